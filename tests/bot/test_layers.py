"""The layers point one way, as README's picture draws them: every package
imports only the packages below it (imports inside functions count too), so
no cycle between packages can come back.  ``ai`` and ``bot`` use the engine
through its public names only (``tests/bot/test_engine_api.py``)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BELOW: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "ai": frozenset({"engine"}),
    "bot.vocab": frozenset({"engine"}),
    "bot.rules": frozenset({"engine", "ai", "bot.vocab"}),
    "bot.store": frozenset({"engine", "bot.vocab"}),
    "bot.present": frozenset({"engine", "ai", "bot.vocab", "bot.rules"}),
    "bot.service": frozenset({"engine", "ai", "bot.vocab", "bot.rules", "bot.store"}),
    "bot.edge": frozenset({"engine", "ai", "bot.vocab", "bot.rules", "bot.store",
                           "bot.present", "bot.service"}),
    "bot": frozenset({"bot.edge"}),  # bot/__main__.py starts the edge
}
"""Each package and what it may import: the layer picture as data."""


def package(module: str) -> str:
    """The layer a dotted module name belongs to (``bot.rules.play`` -> ``bot.rules``)."""
    parts = module.split(".")
    if parts[0] == "bot" and len(parts) > 1 and parts[1] not in ("__main__", "__init__"):
        return f"bot.{parts[1]}"
    return parts[0]


def imports_between_packages(root: Path, tops: tuple[str, ...]) -> dict[str, set[str]]:
    """For every package under ``root``, the other packages its modules import."""
    edges: dict[str, set[str]] = defaultdict(set)
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            source = package(".".join(path.relative_to(root).with_suffix("").parts))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                for name in names:
                    target = package(name)
                    if name.split(".")[0] in tops and target != source:
                        edges[source].add(target)
    return edges


def test_every_package_imports_only_the_layers_below_it() -> None:
    edges = imports_between_packages(ROOT, ("engine", "ai", "bot"))
    assert set(edges) | {"engine"} <= set(BELOW), f"a package the picture lacks: {set(edges)}"
    upward = {src: sorted(dst - BELOW[src]) for src, dst in edges.items() if dst - BELOW[src]}
    assert upward == {}


def test_the_picture_has_no_cycle() -> None:
    seen: dict[str, int] = {}

    def depth(layer: str) -> int:  # recursion ends only if the table is acyclic
        assert seen.get(layer) != -1, f"a cycle through {layer}"
        if layer not in seen:
            seen[layer] = -1
            seen[layer] = 1 + max((depth(d) for d in BELOW[layer]), default=0)
        return seen[layer]

    assert all(depth(layer) >= 1 for layer in BELOW)  # depth() fails on a cycle


def test_the_guard_sees_an_upward_import(tmp_path: Path) -> None:
    (tmp_path / "bot" / "store").mkdir(parents=True)
    (tmp_path / "bot" / "store" / "x.py").write_text(
        "def f():\n    from bot.rules.play import apply_game\n")
    assert imports_between_packages(tmp_path, ("bot",)) == {"bot.store": {"bot.rules"}}


def private_imports(root: Path, tops: tuple[str, ...]) -> list[str]:
    """``from module import _name`` across modules: a private name used elsewhere
    (then it is not private: give it a public name, or move it)."""
    found = []
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in tops:
                    found += [f"{path.relative_to(root)}: {node.module}.{alias.name}"
                              for alias in node.names if alias.name.startswith("_")]
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    assert private_imports(ROOT, ("bot",)) == []


def test_the_guard_sees_a_private_import(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "x.py").write_text("def f():\n    from bot.y import _z, w\n")
    assert private_imports(tmp_path, ("bot",)) == ["bot/x.py: bot.y._z"]
