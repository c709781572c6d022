"""The player's widgets: timeline, transport bar, playlist dock, side panel, inspector.

Each widget observes the state models of :mod:`app.window.state` and sends intents
back to them; none holds playback logic. Import them from their modules.
"""
