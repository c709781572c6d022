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

PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP="$VENV/.fsr-test-install"

if ! "$VENV/bin/python" -c '' 2>/dev/null; then
    echo "==> creating $VENV with $("$PYTHON" --version 2>&1)"
    "$PYTHON" -m venv --clear "$VENV"
fi

# Reinstall only when pyproject.toml (the dependency list) has changed.
wanted=$("$VENV/bin/python" -c \
    'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest(), sys.version)')
if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$wanted" ]]; then
    echo "==> installing -e '.[test]' into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        -e '.[test]'
    printf '%s\n' "$wanted" > "$STAMP"
fi

exec "$VENV/bin/python" tools/check.py "$@"
