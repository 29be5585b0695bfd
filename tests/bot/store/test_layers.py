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


PLAIN = {"redis", "prefix", "history_cap"}
"""The Store's attributes that are not parts (its client and settings)."""


def test_every_part_is_an_object_of_its_module_named_after_it() -> None:
    """One style (issue 23 §6): ``store.<module>.<method>``, every part the
    object of the module it is named after, and no aliases beside them."""
    import fakeredis.aioredis

    from bot.store import Store

    store = Store(fakeredis.aioredis.FakeRedis())
    parts = {name: value for name, value in vars(store).items() if name not in PLAIN}
    wrong = {name: type(value).__module__ for name, value in parts.items()
             if type(value).__module__ != f"bot.store.{name}"}
    assert wrong == {}
    assert {"games", "ledger", "clock", "analysis", "inline", "prefs"} <= set(parts)


def takes_a_store(path: Path) -> list[str]:
    """The functions of a store module that take the whole :class:`Store`
    (a module of free functions reaching into ``store.redis``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [f"{node.name}({arg.arg})" for arg in node.args.args
                      if isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Store"]
    return found


def test_no_part_takes_the_whole_store() -> None:
    offenders = {path.name: takes_a_store(path) for path in sorted((BOT / "store").glob("*.py"))
                 if path.name != "core.py"}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_part_guard_sees_a_free_function(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("async def keep(store: Store, record: object) -> None: ...\n")
    assert takes_a_store(sample) == ["keep(store)"]
