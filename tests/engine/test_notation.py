"""Move notation: formatting, parsing, hits, and round trips over positions
from random games."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.notation import (
    NotationError,
    format_point,
    format_turn,
    hits,
    parse_point,
    parse_step,
    parse_turn,
)
from engine.position import BAR, OFF, Dice, Position, Side, Step, Variant
from engine.turns import apply_step, legal_turns
from tests.engine.strategies import dice, game_positions

START = Position.initial(Variant.BACKGAMMON)


def rows(white: dict[int, int], black: dict[int, int]) -> list[list[int]]:
    board = [[0] * 25, [0] * 25]
    for side, counts in ((0, white), (1, black)):
        for point, count in counts.items():
            board[side][point - 1] = count
    return board


# White: a runner on 24 and the rest on 6; Black: a blot on its 7 (White's
# 18) and the rest on its 5 (White's 20)
BLOT = Position.from_rows(Variant.BACKGAMMON, rows({24: 1, 6: 14}, {7: 1, 5: 14}))


def test_points_and_steps() -> None:
    assert [format_point(p) for p in (BAR, 13, OFF)] == ["bar", "13", "off"]
    assert [parse_point(t) for t in ("BAR", "25", "off", "0", "7")] == [BAR, BAR, OFF, OFF, 7]
    assert parse_step("bar/22") == Step(BAR, 22, 3)
    assert parse_step("6/off") == Step(6, OFF, 6)
    assert parse_step("13/8", die=5) == Step(13, 8, 5)


@pytest.mark.parametrize("text", ["26", "x", "-1"])
def test_bad_points(text: str) -> None:
    with pytest.raises(NotationError):
        parse_point(text)


@pytest.mark.parametrize(
    ("text", "die"),
    [("13-8", None), ("13/", None), ("13/6", None), ("13/8", 4), ("8/13", None), ("9/off", None)],
)
def test_bad_steps(text: str, die: int | None) -> None:
    with pytest.raises(NotationError):
        parse_step(text, die=die)


def test_format_opening_moves() -> None:
    def text(dice: Dice, *steps: Step, compact: bool = True) -> str:
        return format_turn(START, steps, compact=compact)

    assert text(Dice(3, 1), Step(8, 5, 3), Step(6, 5, 1)) == "8/5 6/5"
    assert text(Dice(6, 5), Step(24, 18, 6), Step(18, 13, 5)) == "24/13"
    plain = text(Dice(6, 5), Step(24, 18, 6), Step(18, 13, 5), compact=False)
    assert plain == "24/18 18/13"
    four = (Step(8, 5, 3), Step(8, 5, 3), Step(6, 3, 3), Step(6, 3, 3))
    assert text(Dice(3, 3), *four) == "8/5(2) 6/3(2)"
    assert text(Dice(3, 3), *four, compact=False) == "8/5 8/5 6/3 6/3"


def test_hits_are_computed() -> None:
    steps = (Step(24, 18, 6), Step(18, 13, 5))
    assert hits(BLOT, steps) == (True, False)
    assert format_turn(BLOT, steps) == "24/18*/13"
    assert format_turn(BLOT, (Step(24, 19, 5), Step(19, 13, 6))) == "24/13"
    assert format_turn(BLOT, (Step(24, 18, 6), Step(6, 1, 5)), compact=False) == "24/18* 6/1"


def test_combined_move_prefers_the_quiet_path_unless_a_hit_is_marked() -> None:
    dice = Dice(6, 5)
    quiet = parse_turn(BLOT, dice, "24/13")
    assert hits(BLOT, quiet.steps) == (False, False)
    loud = parse_turn(BLOT, dice, "24/18*/13")
    assert loud.position != quiet.position
    assert parse_turn(BLOT, dice, "24/18 18/13").position == loud.position
    assert parse_turn(BLOT, dice, "18/13 24/18*").position == loud.position


def test_parse_accepts_numbers_for_bar_and_off_and_any_order() -> None:
    entering = Position.from_rows(Variant.BACKGAMMON, rows({25: 1, 6: 14}, {6: 15}))
    turn = parse_turn(entering, Dice(3, 1), "6/5 25/22")
    assert turn.position == parse_turn(entering, Dice(3, 1), "bar/22 6/5").position
    home = Position.from_rows(Variant.BACKGAMMON, rows({3: 2, 1: 1}, {6: 15}))
    off = parse_turn(home, Dice(6, 5), "3/off 3/0")
    assert off.position.borne_off(Side.WHITE) == 14


def test_no_move_is_the_empty_turn() -> None:
    shut_out = Position.from_rows(
        Variant.BACKGAMMON, rows({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3})
    )
    assert parse_turn(shut_out, Dice(6, 6), "").steps == ()
    assert format_turn(shut_out, ()) == ""
    with pytest.raises(NotationError, match="not a legal turn"):
        parse_turn(START, Dice(6, 6), "")


@pytest.mark.parametrize(
    ("position", "dice", "text", "message"),
    [
        (START, Dice(6, 5), "24-13", "cannot read"),
        (START, Dice(6, 5), "24/13(x)", "cannot read"),
        (START, Dice(6, 5), "24/13(5)", "1 to 4"),
        (START, Dice(6, 5), "24/13(0)", "1 to 4"),
        (START, Dice(6, 5), "13/24", "high points to low"),
        (START, Dice(6, 5), "off/3", "no move"),
        (START, Dice(6, 5), "6/bar", "no move"),
        (START, Dice(6, 5), "24/20", "not a legal turn"),
        (START, Dice(6, 5), "24/18", "not a legal turn"),  # the five must be played too
        (START, Dice(6, 5), "24/18 24/18", "not a legal turn"),
        (START, Dice(6, 5), "13/2 13/2", "not a legal turn"),
        (Position.initial(Variant.LONG), Dice(6, 5), "bar/19", "no bar"),
        (Position.initial(Variant.LONG), Dice(6, 5), "24/18 24/19", "not a legal turn"),
    ],
)
def test_malformed_or_illegal_text(position: Position, dice: Dice, text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_turn(position, dice, text)


def test_long_nardy_text() -> None:
    start = Position.initial(Variant.LONG)
    turn = parse_turn(start, Dice(6, 5), "24/13")
    assert turn.position.checkers(Side.WHITE, 13) == 1
    assert format_turn(start, turn.steps) == "24/13"


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(Variant),
    st.data(),
    st.booleans(),
)
def test_round_trip_over_random_game_positions(
    variant: Variant, data: st.DataObject, compact: bool
) -> None:
    position = data.draw(game_positions(variant))
    roll = data.draw(dice())
    turns = legal_turns(position, roll)
    turn = data.draw(st.sampled_from(turns))
    text = format_turn(position, turn.steps, compact=compact)
    parsed = parse_turn(position, roll, text)
    assert parsed.position == turn.position
    # the steps really are the turn: replaying them reaches it
    reached = position
    for step in parsed.steps:
        reached = apply_step(reached, step)
    assert reached == turn.position


def test_turn_text_in_the_words_of_a_board_language() -> None:
    """A Russian or Lithuanian board writes its own bar and off words, and the
    numbers follow ``numbering``; the default stays the English notation."""
    entering = [[0] * 25, [0] * 25]
    entering[0][5], entering[0][24] = 14, 1  # White: 14 on point 6, one on the bar
    entering[1][0] = 15
    position = Position.from_rows(Variant.BACKGAMMON, entering)
    assert format_turn(position, [Step(25, 22, 3)]) == "bar/22"
    assert format_turn(position, [Step(25, 22, 3)], bar="бар") == "бар/22"
    assert format_turn(position, [Step(25, 22, 3)], numbering=Side.BLACK, bar="juosta") \
        == "juosta/3"
    last = [[0] * 25, [0] * 25]
    last[0][3] = 1  # White's last checker on point 4
    last[1][0] = 15
    position = Position.from_rows(Variant.BACKGAMMON, last)
    assert format_turn(position, [Step(4, 0, 4)], off="выброс") == "4/выброс"
    assert format_turn(position, [Step(4, 0, 4)], compact=False, off="išmesta") == "4/išmesta"
