"""Handlers import no other handler (issue 23 §7).

A module of ``bot/edge/handlers/`` is either a handler module (one feature's
commands, buttons and updates: ``dice.py``, ``clock.py``, ``analysis.py``, ...)
or one of the few :data:`SHARED` modules beside them, which hold no handler.
A handler module imports shared modules only, never another handler module;
shared modules import shared modules only; the registry (:data:`REGISTRY`:
the command and button tables and the registration) imports them all.  So
there is no cycle to break with an import inside a function, and imports
inside functions count here too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.edge.handlers import menu

ROOT = Path(__file__).resolve().parents[4]
HANDLERS = ROOT / "bot" / "edge" / "handlers"
PACKAGE = "bot.edge.handlers"

SHARED = {
    "common": "what every handler uses: the store and dealer of the application, a "
              "chat's settings, translators, replies, a tap's parsing",
    "board": "what a change shows: posting, editing and re-posting a game's boards "
             "(a chat's, private views, an inline message), the turn ping, the dice's "
             "commitment notices",
    "which": "which of a chat's games a command means",
    "computer": "the worker pools and what runs in them: the computer's turns, analyses",
    "hints": "💡 Hint's rankings, worked out in the computer's pool and kept",
}
"""The modules beside the handlers that any handler may import, and why."""

REGISTRY = {
    "__init__": "registers every handler",
    "menu": "the command, button and /start tables name every handler",
}
"""The modules that may import every handler module: they register them."""


def imported_modules(path: Path, package: str = PACKAGE) -> set[str]:
    """The modules of ``package`` that the file imports, anywhere in it
    (``from package import x``, ``from package.x import y``, ``import package.x``,
    relative imports)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against the package
                base = package if node.level == 1 else package.rsplit(".", node.level - 1)[0]
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            if module == package:
                found |= {alias.name for alias in node.names}
            elif module.startswith(package + "."):
                found.add(module[len(package) + 1:].split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {alias.name[len(package) + 1:].split(".")[0] for alias in node.names
                      if alias.name.startswith(package + ".")}
    return found


def tangles(directory: Path, package: str = PACKAGE) -> dict[str, list[str]]:
    """For each module of ``directory`` (but the registry's), the modules beside
    it that it may not import: for a handler module, any but the shared ones;
    for a shared one, any handler module."""
    modules = {path.stem: path for path in sorted(directory.glob("*.py"))}
    wrong = {}
    for name, path in modules.items():
        if name in REGISTRY:
            continue
        bad = sorted(imported_modules(path, package) - set(SHARED) - {name})
        if bad:
            wrong[name] = bad
    return wrong


def test_a_handler_imports_only_the_shared_modules() -> None:
    assert tangles(HANDLERS) == {}


def test_the_shared_modules_hold_no_handler() -> None:
    """What the tables route to lives in handler modules, not in shared ones."""
    routed: list[Callable[..., Any]] = [command.handler for command in menu.COMMANDS]
    routed += [callback for callback, _kinds in menu.BUTTONS]
    routed += list(menu.START_PAYLOADS)
    homes = {handler.__module__.rpartition(".")[2] for handler in routed}
    assert homes & set(SHARED) == set()
    assert homes - set(REGISTRY) - {"menu"}  # (the tables name real handler modules)


def test_the_declared_modules_exist() -> None:
    names = {path.stem for path in HANDLERS.glob("*.py")}
    assert set(SHARED) | set(REGISTRY) <= names


def test_the_guard_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    """The check itself, on modules made for it: every way to import a handler."""
    (tmp_path / "common.py").write_text("")
    (tmp_path / "board.py").write_text("def f():\n    from bot.edge.handlers import inline\n")
    (tmp_path / "clock.py").write_text("from bot.edge.handlers.board import edit\n"
                                       "from bot.edge.handlers.common import reply\n")
    (tmp_path / "dice.py").write_text("import bot.edge.handlers.clock\n")
    (tmp_path / "inline.py").write_text("def f():\n    from .dice import roll\n")
    (tmp_path / "menu.py").write_text("from bot.edge.handlers import clock, dice, inline\n")
    assert tangles(tmp_path) == {"board": ["inline"], "dice": ["clock"], "inline": ["dice"]}
