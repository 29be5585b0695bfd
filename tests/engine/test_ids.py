"""Position IDs: agreement with GNU Backgammon on thousands of boards, round
trips of the long nardy ID, and clear errors for bad IDs."""

from __future__ import annotations

import base64
import contextlib
import random

import gnubg_nn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ids import (
    InvalidIdError,
    long_id,
    position_from_id,
    position_from_long_id,
    position_id,
)
from engine.position import Position, Side, Variant, opponent_point
from tests.engine.strategies import game_positions, position_pool


def random_board(variant: Variant, rng: random.Random) -> Position:
    """Any legal arrangement (not necessarily reachable): random counts on
    random points, the bar included in backgammon, some checkers borne off."""
    slots = 25 if variant is Variant.BACKGAMMON else 24
    rows = [[0] * 25, [0] * 25]
    for side in Side:
        for _ in range(rng.randint(0, 15)):
            point = rng.randint(1, slots)
            if point != 25 and rows[side.opponent][opponent_point(variant, point) - 1]:
                continue  # the opponent holds that point
            rows[side][point - 1] += 1
    return Position.from_rows(variant, rows, Side(rng.randint(0, 1)))


def test_the_starting_position() -> None:
    start = Position.initial(Variant.BACKGAMMON)
    assert position_id(start) == "4HPwATDgc/ABMA"
    assert position_from_id("4HPwATDgc/ABMA") == start


def test_agrees_with_gnubg_on_random_boards() -> None:
    rng = random.Random(7)
    boards = [random_board(Variant.BACKGAMMON, rng) for _ in range(3000)]
    boards += position_pool(Variant.BACKGAMMON)
    for position in boards:
        text = position_id(position)
        assert text == gnubg_nn.position_id(position.to_gnubg())
        assert gnubg_nn.board_from_position_id(text) == position.to_gnubg()
        assert position_from_id(text, position.turn).board == position.board


def test_the_id_is_seen_from_the_side_to_move() -> None:
    position = random_board(Variant.BACKGAMMON, random.Random(3)).with_turn(Side.WHITE)
    flipped = position.with_turn(Side.BLACK)
    assert position_from_id(position_id(position), Side.BLACK).board == tuple(
        reversed(position.board)
    )
    assert position_id(flipped) == gnubg_nn.position_id(flipped.to_gnubg())


def test_long_nardy_ids_round_trip_random_boards() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        position = random_board(Variant.LONG, rng)
        if rng.random() < 0.3:
            position = Position(
                Variant.LONG, position.board, position.turn, not position.first_turn
            )
        text = long_id(position)
        assert len(text) == 14
        assert position_from_long_id(text) == position


@settings(deadline=None)
@given(game_positions(Variant.LONG))
def test_long_nardy_ids_round_trip_game_positions(position: Position) -> None:
    assert position_from_long_id(long_id(position)) == position


def test_long_ids_keep_turn_and_first_turn() -> None:
    start = Position.initial(Variant.LONG, Side.BLACK)
    decoded = position_from_long_id(long_id(start))
    assert (decoded.turn, decoded.first_turn) == (Side.BLACK, True)


def test_ids_are_for_their_own_variant() -> None:
    with pytest.raises(InvalidIdError, match="for backgammon"):
        position_id(Position.initial(Variant.LONG))
    with pytest.raises(InvalidIdError, match="for long nardy"):
        long_id(Position.initial(Variant.BACKGAMMON))


def encode(bits: list[bool], altchars: bytes = b"+/") -> str:
    """Hand-made IDs: ``bits`` least significant first, as both IDs pack them."""
    value = sum(1 << index for index, bit in enumerate(bits) if bit)
    return base64.b64encode(value.to_bytes(10, "little"), altchars=altchars).decode()[:14]


def unary(*counts: int) -> list[bool]:
    bits: list[bool] = []
    for count in counts:
        bits += [True] * count + [False]
    return bits


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "14 base64"),
        ("4HPwATDgc/ABM", "14 base64"),
        ("4HPwATDgc/ABMAA", "14 base64"),
        ("4HPwATDgc-ABMA", "14 base64"),  # the URL-safe alphabet is the long ID's
        ("4HPwATDgc/ABM!", "14 base64"),
        ("4HPwATDgc/ABMB", "stray bits"),  # the last character has bits past 80
        (encode(unary(16, *[0] * 24)), "more than 15"),
        (encode([*unary(*[0] * 25, 1, *[0] * 24), False, True]), "bits after the board"),
        (encode([True] * 80), "ends in the middle"),
    ],
)
def test_bad_gnubg_ids(text: str, message: str) -> None:
    with pytest.raises(InvalidIdError, match=message):
        position_from_id(text)


def test_gnubg_id_with_shared_points() -> None:
    # White on its 24 and Black on its 1, which is White's 24
    text = encode(unary(*[0] * 23, 15, 0, 15, *[0] * 24))
    with pytest.raises(InvalidIdError, match="both sides"):
        position_from_id(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AgAA/v8AAAD/fw", "14 base64"),  # the gnubg alphabet
        ("AgAA_v8AAAD_f", "14 base64"),
        (encode([False, False, *unary(16, *[0] * 23)], b"-_"), "more than 15"),
        (encode([True] * 80, b"-_"), "ends in the middle"),
        (encode([False, False, *unary(*[0] * 48), True], b"-_"), "bits after the board"),
        # White's 24 is Black's 12
        (encode([False, False, *unary(*[0] * 23, 1, *[0] * 11, 1)], b"-_"), "both sides"),
    ],
)
def test_bad_long_ids(text: str, message: str) -> None:
    with pytest.raises(InvalidIdError, match=message):
        position_from_long_id(text)


@given(st.text(max_size=20))
def test_garbage_never_crashes(text: str) -> None:
    for parse in (position_from_id, position_from_long_id):
        with contextlib.suppress(InvalidIdError):
            parse(text)
