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

# shellcheck source=tools/venv.sh
source tools/venv.sh
ensure_venv '.' run

if [[ $# -gt 0 ]]; then
    exec "$VENV/bin/fsr-viewer" inspect --verify "$@"
fi
"$VENV/bin/fsr-viewer" demo --out out/demo --no-gui
exec "$VENV/bin/fsr-viewer" inspect --verify out/demo/01_reach.fsr
