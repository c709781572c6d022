"""Overlays: what is drawn over a recording's picture, one module each.

See :mod:`app.canvas.overlay` for what an overlay is and
:mod:`app.canvas.overlay_registry` for the list every view, menu, flag and
export is made from.
"""
