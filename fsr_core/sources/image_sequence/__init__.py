"""Image-sequence folders: numbered frames as renderers leave them, as cameras."""
