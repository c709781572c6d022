"""``python -m app``: the fsr-viewer command line."""

from app.cli import main

raise SystemExit(main())
