"""Playlists: the recordings a list names, and the index files that pin them.

Both kinds of pinned index are read here: :mod:`fsr_core.playlists.index_file`
reads and writes the ``fsr-viewer-index`` (``docs/index-format.md``), and
:mod:`fsr_core.playlists.real2sim_index` reads EmbodiChain's
``real2sim-replay/v1`` index. :mod:`fsr_core.playlists.pinned` gives what
either pins as :class:`~fsr_core.playlists.pinned.Pinned` entries, checked
before a recording is opened; :mod:`fsr_core.playlists.digests` computes the
size and SHA-256 of a file or a folder recording, and
:mod:`fsr_core.playlists.episodes` addresses a dataset's episodes by path, as
any entry of a playlist.
"""
