"""Playlist index files: a folder of recordings published with their digests.

:mod:`fsr_core.playlists.index_file` reads and writes the index
(``docs/index-format.md``); :mod:`fsr_core.playlists.digests` computes the
size and SHA-256 it records for a file or a folder recording.
"""
