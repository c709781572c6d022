"""FSR Viewer application: GUI and command-line interface on top of ``fsr_core``."""
