#!/usr/bin/env bash
# The main job on a fresh machine: set up (or reuse) .venv, then record the
# built-in demo session with the numpy planar-arm simulator (six takes: reach,
# multi-target, periodic curve, reference tracking, a pushed take, a reset with a
# camera recalibration) into out/demo/, and open it. Until the player window
# lands, "open" means: print the takes and the full validation report of the
# first one (every record read and checked).
#
#   ./tools/run.sh            # out/demo/*.fsr (+ scenario TOMLs), then inspect
#   ./tools/run.sh FILE.fsr   # inspect your own file instead
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP="$VENV/.fsr-run-install"

if ! "$VENV/bin/python" -c '' 2>/dev/null; then
    echo "==> creating $VENV with $("$PYTHON" --version 2>&1)"
    "$PYTHON" -m venv --clear "$VENV"
fi
wanted=$("$VENV/bin/python" -c \
    'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest(), sys.version)')
if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$wanted" ]]; then
    echo "==> installing -e . into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -e .
    printf '%s\n' "$wanted" > "$STAMP"
fi

if [[ $# -gt 0 ]]; then
    exec "$VENV/bin/fsr-viewer" inspect --verify "$@"
fi
"$VENV/bin/fsr-viewer" demo --out out/demo --no-gui
exec "$VENV/bin/fsr-viewer" inspect --verify out/demo/01_reach.fsr
