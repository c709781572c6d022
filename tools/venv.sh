# Sourced by tools/run.sh and tools/test.sh: create (or reuse) .venv and install
# the project into it, reinstalling only when pyproject.toml or Python changed.
#
#   ensure_venv '.[test]' test    # what to install, and a name for its stamp file
#
# PYTHON picks the interpreter that creates .venv (default python3, 3.11 to 3.13).

VENV=.venv

ensure_venv() {
    local target=$1 name=$2
    local python=${PYTHON:-python3}
    local stamp="$VENV/.fsr-$name-install"
    if ! "$VENV/bin/python" -c '' 2>/dev/null; then
        echo "==> creating $VENV with $("$python" --version 2>&1)"
        "$python" -m venv --clear "$VENV"
    fi
    local wanted
    wanted=$("$VENV/bin/python" -c \
        'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest(), sys.version)')
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        echo "==> installing -e '$target' into $VENV"
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
            -e "$target" 2> >(grep -v -e 'BuildBackendWarning' -e '^  ' >&2 || true)
        printf '%s\n' "$wanted" > "$stamp"
    fi
}
