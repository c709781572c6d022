#!/usr/bin/env bash
# The project's one test command: set up (or reuse) .venv, then run every check.
#
#   ./tools/test.sh          # create .venv if needed, install '.[test]', run tools/check.py
#   ./tools/test.sh --fix    # same, but apply ruff format / ruff check --fix first
#
# Arguments are passed on to tools/check.py. PYTHON picks the interpreter that
# creates .venv (default: python3, which must be 3.11 to 3.13).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=tools/venv.sh
source tools/venv.sh
ensure_venv '.[test]' test

exec "$VENV/bin/python" tools/check.py "$@"
