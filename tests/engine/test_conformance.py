"""``python -m engine legal`` through a real subprocess, as a checker runs it."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import pytest

import engine.conformance
from engine import Dice, Position, Variant, legal_turns

START = Position.initial(Variant.BACKGAMMON).to_gnubg()
LONG_START = Position.initial(Variant.LONG).to_gnubg()


def request(board: object = START, dice: object = (3, 1), **fields: object) -> str:
    line = {"variant": "backgammon", "board": board, "dice": list(dice), "first_turn": False}
    line.update(fields)
    return json.dumps(line)


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def answers(*lines: str) -> list[dict[str, object]]:
    result = run("legal", stdin="".join(line + "\n" for line in lines))
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_good_lines_list_every_position_sorted() -> None:
    (opening,) = answers(request())
    boards = opening["positions"]
    assert isinstance(boards, list)
    expected = sorted(
        t.position.to_gnubg() for t in legal_turns(Position.initial(Variant.BACKGAMMON), Dice(3, 1))
    )
    assert boards == expected and len(boards) == 16
    assert all(board[0] == START[0] for board in boards)  # board[1] stays the mover


def test_long_nardy_first_turn() -> None:
    first, later = answers(
        request(LONG_START, (6, 6), variant="long", first_turn=True),
        request(LONG_START, (6, 6), variant="long", first_turn=False),
    )
    head = [0] * 24 + [0]
    head[23], head[17] = 13, 2
    assert first == {"positions": [[LONG_START[0], head]]}
    assert len(later["positions"]) == 1 and later["positions"][0][1][23] == 14  # type: ignore[index]


def test_no_move_answers_the_input_board() -> None:
    board = [[2, 2, 2, 2, 2, 2, 3] + [0] * 18, [0] * 5 + [14] + [0] * 18 + [1]]
    assert answers(request(board, (6, 5))) == [{"positions": [board]}]


def test_errors_then_the_run_goes_on() -> None:
    bad = [
        "not json",
        "",
        "[1, 2]",
        json.dumps({"variant": "backgammon", "board": START}),
        request(variant="chess"),
        request(board=[START[0]]),
        request(board=[START[0], START[1][:24]]),
        request(board=[START[0], [1] * 25]),
        request(board=[START[0], [-1, *START[1][1:]]]),
        request(dice=(0, 3)),
        request(dice=(7, 3)),
        request(dice=(3,)),
        request(dice=(True, 3)),
        request(first_turn="no"),
        request([LONG_START[0], [1] * 25], variant="long"),
        request(variant="long", board=[[0] * 24 + [1], [0] * 23 + [15, 0]]),
        request(variant="long", board=[[0] * 23 + [15, 0], [0] * 11 + [1] + [0] * 11 + [14, 0]]),
    ]
    replies = answers(*bad, request())
    assert len(replies) == len(bad) + 1
    for line, reply in zip(bad, replies, strict=False):
        assert set(reply) == {"error"} and reply["error"], line
    assert "positions" in replies[-1]


def test_first_turn_may_be_left_out_for_either_variant() -> None:
    """RULES.md: ``first_turn`` is for long nardy; left out it is false."""
    bare_bg = json.dumps({"variant": "backgammon", "board": START, "dice": [3, 1]})
    bare_long = json.dumps({"variant": "long", "board": LONG_START, "dice": [6, 6]})
    replies = answers(bare_bg, request(), bare_long,
                      request(LONG_START, (6, 6), variant="long", first_turn=False),
                      request(LONG_START, (6, 6), variant="long", first_turn=True))
    assert "positions" in replies[0] and replies[0] == replies[1]
    assert "positions" in replies[2] and replies[2] == replies[3] != replies[4]


@pytest.mark.parametrize(("board", "variant", "error"), [
    ([START[0], [1] * 25], "backgammon", "board[1] has 25 checkers, more than 15"),
    ([[1] * 25, START[1]], "backgammon", "board[0] has 25 checkers, more than 15"),
    ([START[0], [-1, *START[1][1:]]], "backgammon", "board[1]: bad checker count -1"),
    ([[True, *START[0][1:]], START[1]], "backgammon", "board[0]: bad checker count True"),
    ([START[0], [2.0, *START[1][1:]]], "backgammon", "board[1]: bad checker count 2.0"),
    ([START[0], START[1][:24]], "backgammon", "board must be two lists of 25 checker counts"),
    # board[1]'s point 1 is board[0]'s point 24, where board[0] has two checkers
    ([START[0], [1] + [0] * 24], "backgammon", "both sides on board[1]'s point 1"),
    ([[0] * 24 + [1], [0] * 23 + [15, 0]], "long", "board[0]: long nardy has no bar"),
    ([[0] * 23 + [15, 0], [0] * 11 + [1] + [0] * 11 + [14, 0]], "long",
     "both sides on board[1]'s point 12"),
])
def test_errors_name_the_sides_as_the_input_does(board: object, variant: str, error: str) -> None:
    (reply,) = answers(request(board, variant=variant))
    assert reply == {"error": error}


def test_usage_errors_exit_2() -> None:
    for args in ((), ("moves",), ("legal", "extra")):
        result = run(*args)
        assert result.returncode == 2
        assert "usage" in result.stderr and not result.stdout


def test_module_examples() -> None:
    # pytest's doctest collection skips __main__.py; run its examples here
    assert doctest.testmod(engine.conformance).failed == 0
