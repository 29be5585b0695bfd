"""Redis stays behind the store: no module of bot/ outside bot/store/ imports
redis or reaches into a client's ``.redis``; they call :class:`Store` methods."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[3] / "bot"
def _raw_redis_uses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.split(".")[0] == "redis"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "redis":
            found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Attribute) and node.attr == "redis":
            found.append(f"line {node.lineno}: .redis")
    return found


def test_no_module_outside_the_store_touches_redis() -> None:
    offenders = {}
    for path in sorted(BOT.rglob("*.py")):
        name = path.relative_to(BOT).as_posix()
        if name.startswith("store/"):
            continue
        uses = _raw_redis_uses(path)
        if uses:
            offenders[name] = uses
    assert offenders == {}


def test_the_guard_sees_a_raw_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("async def f(store):\n    await store.redis.get('k')\n")
    assert _raw_redis_uses(sample) == ["line 2: .redis"]


def test_the_rules_import_no_store() -> None:
    """bot/rules/ is pure: of the store it uses the records only; loading and
    saving (bot/service/saving.py) call the rules, not the other way round."""
    offenders = {}
    for path in sorted((BOT / "rules").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("bot.store.")}
        used |= {f"bot.store.{a.name}" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module == "bot.store"
                 for a in node.names}
        if used - {"bot.vocab.records"}:
            offenders[path.name] = sorted(used - {"bot.vocab.records"})
    assert offenders == {}
