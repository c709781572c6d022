# Sourced by tools/run.sh, tools/test.sh and tools/check.py: create (or reuse) a
# virtual environment and install the project into it, reinstalling only when
# pyproject.toml or Python changed.
#
#   ensure_venv '.[test]' test                    # .venv, with $PYTHON (default python3)
#   ensure_venv '.[test,skelarm]' skelarm .venv312 python3.12
#
# The arguments: what to install, a name for its stamp file, and optionally the
# folder and the interpreter that creates it. PYTHON picks the interpreter of
# .venv (default python3, 3.11 to 3.13).
#
#   find_skelarm_python     # sets SKELARM_PYTHON to a Python >= 3.12, or fails
#   ensure_skelarm_venv     # .venv312 with '.[test,skelarm]' (skelarm needs 3.12+)

VENV=.venv
SKELARM_VENV=.venv312

ensure_venv() {
    local target=$1 name=$2 venv=${3:-$VENV}
    local python=${4:-${PYTHON:-python3}}
    local stamp="$venv/.fsr-$name-install"
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
        echo "==> creating $venv with $("$python" --version 2>&1)"
        "$python" -m venv --clear "$venv"
    fi
    local wanted
    wanted=$("$venv/bin/python" -c \
        'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest(), sys.version)')
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        echo "==> installing -e '$target' into $venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
            -e "$target" 2> >(grep -v -e 'BuildBackendWarning' -e '^  ' -e '^WARNING: Location' >&2 || true)
        printf '%s\n' "$wanted" > "$stamp"
    fi
}

_is_python_312_or_newer() {
    "$@" -c 'import sys; raise SystemExit(not (3, 12) <= sys.version_info[:2] < (3, 14))' \
        >/dev/null 2>&1
}

# Look for a Python 3.12 or 3.13 (skelarm's range): $SKELARM_PYTHON, python3.12,
# python3.13 on PATH, then a pyenv-installed 3.12.x / 3.13.x (selected through
# PYENV_VERSION, which is then exported). Sets SKELARM_PYTHON; returns 1 if none.
find_skelarm_python() {
    local candidate version
    for candidate in "${SKELARM_PYTHON:-}" python3.12 python3.13; do
        if [[ -n "$candidate" ]] && _is_python_312_or_newer "$candidate"; then
            SKELARM_PYTHON=$candidate
            return 0
        fi
    done
    if command -v pyenv >/dev/null 2>&1; then
        for version in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.1[23]\.[0-9]+$' | sort -V); do
            if PYENV_VERSION=$version _is_python_312_or_newer "python${version%.*}"; then
                export PYENV_VERSION=$version
                SKELARM_PYTHON=python${version%.*}
                return 0
            fi
        done
    fi
    return 1
}

ensure_skelarm_venv() {
    if ! find_skelarm_python; then
        echo "no Python 3.12 or 3.13 found (tried \$SKELARM_PYTHON, python3.12, python3.13, pyenv)"
        return 3
    fi
    ensure_venv '.[test,skelarm]' skelarm "$SKELARM_VENV" "$SKELARM_PYTHON"
}
