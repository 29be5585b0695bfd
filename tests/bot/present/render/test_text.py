"""The text board: golden files, alignment, and numbers matching point_label."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.present.render import BoardView, LastTurn, point_label, render_text
from bot.present.render.samples import SAMPLES
from bot.present.render.text import MARK, ROWS, WIDTH
from engine import BAR, OFF, Dice, Position, Side, Step, TurnInProgress, Variant
from tests.bot.present.render.conftest import GOLDEN, UPDATE
from tests.engine.strategies import random_game_positions


def _frames(lines: list[str]) -> tuple[int, int]:
    """The indexes of the grid's top and bottom frame lines."""
    frame = "+" + "-" * 12 + "+---+" + "-" * 12 + "+"
    top, bottom = [i for i, line in enumerate(lines) if line == frame][:2]  # before any status
    return top, bottom


def _label_lines(lines: list[str]) -> dict[int, tuple[int, int]]:
    """Per screen row (0 top, 1 bottom): the two lines of its point numbers."""
    top, bottom = _frames(lines)
    return {0: (top - 2, top - 1), 1: (bottom + 1, bottom + 2)}


def _grid_rows(lines: list[str], row: int) -> range:
    """The checker lines of a screen row, from the top of the screen down."""
    top, bottom = _frames(lines)
    return range(top + 1, top + 1 + ROWS) if row == 0 else range(bottom - ROWS, bottom)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_golden_text(name: str) -> None:
    text = render_text(SAMPLES[name]) + "\n"
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _lines_ok(text: str) -> None:
    lines = text.splitlines()
    assert {len(line) for line in lines} == {WIDTH}
    assert len(text) < 4096


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_line_has_the_same_width(name: str) -> None:
    _lines_ok(render_text(SAMPLES[name]))


NAMES = st.text(
    st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]), min_size=0, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(NAMES, NAMES, st.text(max_size=300))
def test_any_names_and_status_keep_the_grid(white: str, black: str, status: str) -> None:
    view = BoardView(
        SAMPLES["backgammon-hits"].position,
        Side.BLACK,
        (white, black),
        score=(1, 2),
        match_length=5,
        last_turn=LastTurn(Side.WHITE, (Step(13, 7, 6),)),
        status=status,
    )
    text = render_text(view)
    _lines_ok(text)
    # names and status never reach the grid lines
    plain = render_text(replace(view, names=("", ""), status="")).splitlines()
    lines = text.splitlines()
    (top, bottom), (plain_top, plain_bottom) = _frames(lines), _frames(plain)
    assert lines[top - 2 : bottom + 3] == plain[plain_top - 2 : plain_bottom + 3]


def _columns(text: str) -> dict[str, tuple[int, int]]:
    """label -> (screen row, column of its last digit) on a text board."""
    lines = text.splitlines()
    found = {}
    for row, label_lines in _label_lines(lines).items():
        for index in label_lines:
            line = lines[index]
            for column, char in enumerate(line):
                if char.isdigit() and (column + 1 == len(line) or line[column + 1] == " "):
                    start = column - 1 if line[column - 1].isdigit() else column
                    found[line[start : column + 1]] = (row, column)
    return found


def _stack_at(text: str, row: int, column: int) -> str:
    lines = text.splitlines()
    return "".join(lines[line][column] for line in _grid_rows(lines, row))


def _check_labels_match_board(position: Position, dice: Dice, viewer: Side) -> None:
    view = BoardView(position, viewer, dice=dice)
    text = render_text(view)
    columns = _columns(text)
    assert sorted(columns, key=int) == [str(n) for n in range(1, 25)]
    mover = position.turn
    for step in TurnInProgress(position, dice).legal_steps:
        source = point_label(view, mover, viewer, step.source)
        target = point_label(view, mover, viewer, step.target)
        if step.source == BAR:
            assert source == "bar" and " BAR " in text
        else:
            # the source label sits over a column holding the mover's checkers
            assert MARK[mover] in _stack_at(text, *columns[source])
        if step.target == OFF:
            assert target == "off"
        else:
            assert MARK[mover.opponent] * 2 not in _stack_at(text, *columns[target])


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("viewer", list(Side))
def test_legal_step_labels_are_on_the_board(variant: Variant, viewer: Side) -> None:
    for position, dice in random_game_positions(variant, seed=7, count=80):
        _check_labels_match_board(position, dice, viewer)


def test_stacks_taller_than_five_show_their_count() -> None:
    for viewer in Side:
        text = render_text(BoardView(Position.initial(Variant.LONG), viewer))
        columns = _columns(text)
        # own head top right, the opponent's at the viewer's 12; counts face the middle
        assert _stack_at(text, *columns["24"]) == MARK[viewer] * 4 + "5"
        assert _stack_at(text, *columns["12"]) == "5" + MARK[viewer.opponent] * 4
        lines = text.splitlines()
        assert "15" in lines[_grid_rows(lines, 0)[-1]] and "15" in lines[_grid_rows(lines, 1)[0]]


def test_the_steps_of_the_turn_in_progress_are_marked_on_the_board() -> None:
    """Beside the last turn's ``+`` and ``·``: ``#`` beside a checker the
    player to move has just moved there, ``:`` where one left (issue 14 §2)."""
    text = render_text(SAMPLES["long-midgame-black"])  # Black has played 24/19
    row, column = _columns(text)["19"]
    lines = text.splitlines()
    cells = [lines[line][column - 1: column + 1] for line in _grid_rows(lines, row)]
    assert "#" + MARK[Side.BLACK] in cells
    bearoff = render_text(SAMPLES["backgammon-bearoff"])  # White's 6/off, Black's 5/off 4/off
    row, column = _columns(bearoff)["6"]
    lines = bearoff.splitlines()
    assert [lines[line][column - 1: column + 1] for line in _grid_rows(lines, row)][-3:] == [
        " :", " " + MARK[Side.WHITE], " " + MARK[Side.WHITE]]  # an empty slot: the mark alone
    assert "#" not in render_text(replace(SAMPLES["long-midgame-black"], current=()))
