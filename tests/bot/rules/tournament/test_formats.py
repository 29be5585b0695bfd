"""A tournament format is one row of bot/rules/tournament/formats.py (issue
36): the table covers every format, and no other module asks which format a
tournament is (adding a format changes that table and its pairing function)."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.present.tournament import MEANINGS
from bot.rules.tournament import formats
from bot.rules.tournament.formats import FORMATS
from bot.rules.tournament.setup import FORMAT_WORDS, ONLY, parse_setup
from bot.vocab.tournament import Format

ROOT = Path(__file__).resolve().parents[4]
TABLE = Path(formats.__file__).resolve()


def test_every_format_has_its_row() -> None:
    assert set(FORMATS) == set(Format)
    for key, row in FORMATS.items():
        assert row.format is key
        assert 2 <= row.min_entrants <= row.max_entrants
        assert row.takes <= set(ONLY)
        assert all(head in MEANINGS for head in row.tiebreak_heads)   # the legend says them
        for word, flags in row.words.items():   # /tournament <word> asks for it
            setup, rest = parse_setup([word])
            assert setup.format is key and not rest
            assert all(getattr(setup, flag) == value for flag, value in flags.items())


def test_a_word_asks_for_one_format() -> None:
    words = [word for row in FORMATS.values() for word in row.words]
    assert len(words) == len(set(words)) == len(FORMAT_WORDS)


def _format_branches(path: Path, root: Path = ROOT) -> list[str]:
    """Where ``path`` compares a format (``x.format is ...``, ``== Format.X``,
    ``in (Format.X, ...)``) or keys a table by one (``{Format.X: ...}``)."""

    def names_format(node: ast.AST | None) -> bool:   # x.format, Format.X, (Format.X, ...)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(names_format(n) for n in node.elts)
        return isinstance(node, ast.Attribute) and (
            node.attr == "format" or (isinstance(node.value, ast.Name)
                                      and node.value.id == "Format"))

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
        keys = node.keys if isinstance(node, ast.Dict) else []
        if any(names_format(n) for n in (*sides, *keys)):
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_module_but_the_table_branches_on_a_format() -> None:
    found = [where for path in sorted((ROOT / "bot").rglob("*.py")) if path.resolve() != TABLE
             for where in _format_branches(path)]
    assert not found, f"ask the format's row (bot/rules/tournament/formats.py): {found}"


def test_the_check_finds_a_branch(tmp_path: Path) -> None:
    """The guard above is not blind: each kind of branch it forbids is found."""
    for line in ("ok = record.format is Format.SWISS", "ok = fmt == Format.KNOCKOUT",
                 "ok = record.format in (Format.SWISS,)", "t = {Format.SWISS: 1}"):
        source = tmp_path / "bot" / "x.py"
        source.parent.mkdir(exist_ok=True)
        source.write_text(line + "\n")
        assert _format_branches(source, tmp_path), line
