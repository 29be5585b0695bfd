"""Files GNU Backgammon itself wrote (``export match mat``) read back into
games, as ``python -m ai analyse`` reads them.

``gnubg_exports/`` holds a few of them, small: matches played by
tests/engine/test_matfile_gnubg.py ``play_match`` (its SESSIONS, seeds 0 and
1), exported by us, imported into GNU Backgammon (PyPI ``gnubg`` 1.1.0a16,
``import mat``) and exported again by it.  What it writes and we did not
read: one space after a White cell of 27 characters or more (``55: 25/20*
22/17* 13/8 11/6 15: 25/24 25/20``, "cannot read '15:'"), unplayed dice and
the resignation in one cell (``42:  Wins 1 point``), and a beaver as
``Beavers => 4`` with no ``Takes`` after it (and no ``Beaver`` tag)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ai.matgames import read_games
from engine.game import Action
from engine.matread import read_mat
from engine.position import Side

EXPORTS = sorted((Path(__file__).parent / "gnubg_exports").glob("*.mat"))
_WINS = re.compile(r"Wins (\d+) points?")
_DICE = re.compile(r"(?<![0-9/])[1-6][1-6]:")


def test_the_exports_hold_what_they_are_for() -> None:
    text = "\n".join(path.read_text() for path in EXPORTS)
    assert re.search(r"\) \S.{26,}\S [1-6][1-6]:", text)  # a long cell, one space
    assert re.search(r"[1-6][1-6]:  Wins", text)
    assert "Beavers =>" in text


def test_a_long_white_cell_one_space_from_blacks_is_two_cells() -> None:
    text = (" 3 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
            "  1) 55: 25/20* 22/17* 13/8 11/6 15: 25/24 25/20 \n"
            "  2) 66: 24/18 24/18 13/7 13/7  Doubles => 2\n")
    [game] = read_mat(text).games
    assert game.cells == ((Side.WHITE, "55: 25/20* 22/17* 13/8 11/6"),
                          (Side.BLACK, "15: 25/24 25/20"),
                          (Side.WHITE, "66: 24/18 24/18 13/7 13/7"),
                          (Side.BLACK, "Doubles => 2"))


@pytest.mark.parametrize("path", EXPORTS, ids=lambda path: path.stem)
def test_a_file_gnubg_exported_replays_every_roll_and_result(path: Path) -> None:
    text = path.read_text()
    record = read_mat(text)
    replays = read_games(text)
    assert [r.number for r in replays] == [g.number for g in record.games]
    sections = re.split(r"\n Game \d+\n", text)[1:]
    for replay, section in zip(replays, sections, strict=True):
        rolls = [e.dice for e in replay.game.events if e.action is Action.ROLL]
        assert len(rolls) == len(_DICE.findall(section)), (path.name, replay.number)
        wins = _WINS.search(section)
        if replay.game.result is not None:  # ended by the moves or a drop (a
            # resignation is only its Wins line)
            assert wins is not None and replay.game.result.points == int(wins.group(1))
