# Sourced by bin/start and bin/test: make sure .venv exists and holds what
# pyproject.toml asks for.  Re-installs only when pyproject.toml changed, so a
# second run starts at once.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "$PY" -m venv "$VENV"
fi
stamp="$VENV/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    echo "installing dependencies into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e ".[test]"
    rm -f "$VENV"/.installed-*
    touch "$stamp"
fi
export PATH="$VENV/bin:$PATH"
