#!/usr/bin/env bash
# The main job on a fresh machine: set up (or reuse) .venv, record the built-in
# demo session with the numpy planar-arm simulator (six takes: reach,
# multi-target, periodic curve, reference tracking, a pushed take, a reset with a
# camera recalibration) into out/demo/, and open it as a playlist in the player.
# Without a display, a screenshot of the window goes to out/demo/player.png.
#
#   ./tools/run.sh             # out/demo/*.fsr (+ scenario TOMLs), then the player
#   ./tools/run.sh FILE...     # open your own files instead
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=tools/venv.sh
source tools/venv.sh
ensure_venv '.' run

if [[ $# -eq 0 ]]; then
    "$VENV/bin/fsr-viewer" demo --out out/demo --no-gui
    set -- out/demo/*.fsr
fi
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
    echo "no display: writing a screenshot of the player to out/demo/player.png"
    mkdir -p out/demo
    exec "$VENV/bin/fsr-viewer" "$@" --screenshot out/demo/player.png --at 1.0 --overwrite
fi
exec "$VENV/bin/fsr-viewer" "$@"
