"""Replay engine: render and resimulate recordings, and compare two recordings."""
