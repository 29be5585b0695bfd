"""bot/ and ai/ use the engine through its public names only: a private ``_name``
imported from engine/ (as /export once did with ``matfile._header``) ties the
bot to the engine's insides; the engine makes such a helper public instead."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _private_engine_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "engine":
            found += [f"{node.module}.{alias.name}" for alias in node.names
                      if alias.name.startswith("_")]
            if any(part.startswith("_") for part in (node.module or "").split(".")):
                found.append(f"{node.module}")
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] == "engine"
                      and any(part.startswith("_") for part in alias.name.split("."))]
    return found


def test_the_bot_and_the_computer_import_no_private_engine_name() -> None:
    offenders = {}
    for top in ("bot", "ai"):
        for path in sorted((ROOT / top).rglob("*.py")):
            found = _private_engine_imports(path)
            if found:
                offenders[path.relative_to(ROOT).as_posix()] = found
    assert offenders == {}
