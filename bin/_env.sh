# Sourced by bin/start and bin/test: make sure .venv exists and holds what
# pyproject.toml asks for, with the search's C core (ai/_longcore.c) built.
# Re-installs only when either changed, so a second run starts at once.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "$PY" -m venv "$VENV"
fi
stamp="$VENV/.installed-$(cat pyproject.toml ai/_longcore.c | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    if ! command -v cc >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        # the C core is optional (the search falls back to the engine), but a
        # compiler is one package away
        echo "installing gcc (the search's C core)" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc >/dev/null
    fi
    echo "installing dependencies into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e ".[test]"
    rm -f "$VENV"/.installed-*
    touch "$stamp"
fi
export PATH="$VENV/bin:$PATH"
