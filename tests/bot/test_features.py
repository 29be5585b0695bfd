"""A feature keeps one name in every layer (issue 23 §1): docs/architecture.md's
"Features and their homes" table, checked against the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"


def homes(page: str) -> dict[str, list[str]]:
    """Each feature's name and the modules the table lists for it."""
    section = page.split("## Features and their homes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    found = {}
    for row in rows:
        _what, name, places = (cell.strip() for cell in row.strip("|").split(" | "))
        found[name.strip("`")] = re.findall(r"`(bot/[\w/]+\.py)`", places)
    return found


def wrong(table: dict[str, list[str]], root: Path) -> list[str]:
    """What in the table does not match the tree under ``root``."""
    problems = []
    for name, listed in table.items():
        problems += [f"{name}: {path} does not exist" for path in listed
                     if not (root / path).is_file()]
        problems += [f"{name}: {path} is not named {name}.py" for path in listed
                     if Path(path).stem != name]
        named = sorted(p.relative_to(root).as_posix() for p in (root / "bot").rglob(f"{name}.py"))
        problems += [f"{name}: {path} is not in the table" for path in named
                     if path not in listed]
    return problems


def test_the_table_lists_every_home_of_each_feature() -> None:
    table = homes(PAGE.read_text(encoding="utf-8"))
    assert {"dice", "analysis", "clock", "inline"} <= set(table)
    assert all(len(listed) >= 1 for listed in table.values())
    assert wrong(table, ROOT) == []


def test_the_check_sees_a_feature_under_another_name(tmp_path: Path) -> None:
    for path in ("bot/rules/dice.py", "bot/present/fairtext.py", "bot/edge/handlers/dice.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    table = {"dice": ["bot/rules/dice.py", "bot/present/fairtext.py", "bot/present/dice.py"]}
    assert wrong(table, tmp_path) == [
        "dice: bot/present/dice.py does not exist",
        "dice: bot/present/fairtext.py is not named dice.py",
        "dice: bot/edge/handlers/dice.py is not in the table",
    ]
