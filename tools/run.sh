#!/usr/bin/env bash
# The main job on a fresh machine: set up (or reuse) .venv, then open the built-in
# demo recording. Until the player window lands, "open" means: write the demo
# recording (every stream kind, two generations, a calibration change) and print
# its validation report, reading and checking every record.
#
#   ./tools/run.sh            # demo recording -> out/demo.fsr, then inspect it
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
mkdir -p out
if [[ ! -f out/demo.fsr ]]; then
    "$VENV/bin/fsr-viewer" sample out/demo.fsr
fi
exec "$VENV/bin/fsr-viewer" inspect --verify out/demo.fsr
