"""Results: every kind of win, the Jacoby rule, and the results of
resignations, passed doubles and timeouts."""

from __future__ import annotations

import pytest

from engine.position import Position, Side, Variant
from engine.scoring import (
    EndReason,
    GameResult,
    ResultKind,
    ScoringError,
    classify,
    resign_kinds,
)


def finished(variant: Variant, loser_row: dict[int, int]) -> Position:
    """White has borne off everything; Black's checkers are on the given
    own points (25 = bar)."""
    rows = [[0] * 25, [0] * 25]
    for point, count in loser_row.items():
        rows[Side.BLACK][point - 1] = count
    return Position.from_rows(variant, rows, Side.BLACK)


@pytest.mark.parametrize(
    ("variant", "loser", "koks", "kind", "points"),
    [  # points at a cube of 4, written out: oin/single 1, mars/gammon 2, koks/backgammon 3
        (Variant.LONG, {24: 14}, False, ResultKind.OIN, 4),
        (Variant.LONG, {24: 15}, False, ResultKind.MARS, 8),
        (Variant.LONG, {24: 15}, True, ResultKind.KOKS, 12),
        (Variant.LONG, {24: 14, 3: 1}, True, ResultKind.MARS, 8),  # a checker home: no koks
        (Variant.LONG, {3: 14}, True, ResultKind.OIN, 4),
        (Variant.BACKGAMMON, {6: 14}, False, ResultKind.SINGLE, 4),
        (Variant.BACKGAMMON, {6: 15}, False, ResultKind.GAMMON, 8),
        (Variant.BACKGAMMON, {18: 15}, False, ResultKind.GAMMON, 8),
        (Variant.BACKGAMMON, {6: 14, 19: 1}, False, ResultKind.BACKGAMMON, 12),
        (Variant.BACKGAMMON, {6: 14, 25: 1}, False, ResultKind.BACKGAMMON, 12),
        (Variant.BACKGAMMON, {6: 13, 25: 1}, False, ResultKind.SINGLE, 4),
    ],
)
def test_borne_off_kinds(
    variant: Variant, loser: dict[int, int], koks: bool, kind: ResultKind, points: int
) -> None:
    position = finished(variant, loser)
    assert classify(position, koks=koks) is kind
    result = GameResult.borne_off(position, cube=4, koks=koks)
    assert (result.winner, result.kind, result.reason) == (Side.WHITE, kind, EndReason.BORNE_OFF)
    assert result.points == points


@pytest.mark.parametrize(("kind", "multiplier"), [
    (ResultKind.OIN, 1), (ResultKind.MARS, 2), (ResultKind.KOKS, 3),
    (ResultKind.SINGLE, 1), (ResultKind.GAMMON, 2), (ResultKind.BACKGAMMON, 3),
])
def test_multipliers(kind: ResultKind, multiplier: int) -> None:
    assert kind.multiplier == multiplier


def test_classify_needs_a_finished_game() -> None:
    with pytest.raises(ScoringError, match="not over"):
        classify(Position.initial(Variant.BACKGAMMON))


@pytest.mark.parametrize(("cube", "points"), [(1, 1), (2, 6)])
def test_jacoby_counts_a_backgammon_single_until_the_cube_is_turned(cube: int, points: int) -> None:
    position = finished(Variant.BACKGAMMON, {1: 14, 25: 1})
    result = GameResult.borne_off(position, cube=cube, jacoby=True)
    assert result.kind is ResultKind.BACKGAMMON
    assert result.points == points


def test_jacoby_does_not_touch_long_nardy() -> None:
    result = GameResult.borne_off(finished(Variant.LONG, {24: 15}), jacoby=True)
    assert result.points == 2


def test_resignations() -> None:
    result = GameResult.resigned(Variant.BACKGAMMON, Side.WHITE, ResultKind.BACKGAMMON, cube=2)
    assert (result.winner, result.points, result.reason) == (Side.BLACK, 6, EndReason.RESIGNED)
    jacoby = GameResult.resigned(Variant.BACKGAMMON, Side.WHITE, ResultKind.GAMMON, jacoby=True)
    assert jacoby.points == 1
    mars = GameResult.resigned(Variant.LONG, Side.BLACK, ResultKind.MARS)
    assert (mars.winner, mars.points) == (Side.WHITE, 2)
    koks = GameResult.resigned(Variant.LONG, Side.BLACK, ResultKind.KOKS, koks=True)
    assert koks.points == 3


@pytest.mark.parametrize(
    ("variant", "kind", "koks"),
    [
        (Variant.LONG, ResultKind.GAMMON, False),
        (Variant.LONG, ResultKind.KOKS, False),
        (Variant.BACKGAMMON, ResultKind.MARS, False),
        (Variant.BACKGAMMON, ResultKind.OIN, True),
    ],
)
def test_resigning_a_kind_of_the_other_game_is_refused(
    variant: Variant, kind: ResultKind, koks: bool
) -> None:
    with pytest.raises(ScoringError, match="cannot resign"):
        GameResult.resigned(variant, Side.WHITE, kind, koks=koks)


def test_resign_kinds() -> None:
    assert resign_kinds(Variant.LONG, koks=True) == (
        ResultKind.OIN,
        ResultKind.MARS,
        ResultKind.KOKS,
    )
    assert resign_kinds(Variant.BACKGAMMON)[-1] is ResultKind.BACKGAMMON


def test_double_passed_and_timeout() -> None:
    passed = GameResult.double_passed(Side.BLACK, 8)
    assert (passed.winner, passed.kind, passed.points) == (Side.BLACK, ResultKind.SINGLE, 8)
    assert GameResult.timeout(Variant.LONG, Side.WHITE).kind is ResultKind.OIN
    assert GameResult.timeout(Variant.BACKGAMMON, Side.WHITE, cube=4).points == 4
    assert (
        str(GameResult.timeout(Variant.LONG, Side.WHITE)) == "White wins an oin, 1 point (timeout)"
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF, cube=3),
        lambda: GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF, cube=0),
        lambda: GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF, multiplier=3),
        lambda: GameResult(Side.WHITE, ResultKind.MARS, EndReason.TIMEOUT),
        lambda: GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.DOUBLE_PASSED),
        lambda: GameResult(2, ResultKind.OIN, EndReason.TIMEOUT),  # type: ignore[arg-type]
    ],
)
def test_impossible_results_are_refused(make: object) -> None:
    with pytest.raises(ScoringError):
        make()  # type: ignore[operator]


def test_results_are_hashable_values() -> None:
    one = GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF)
    two = GameResult(Side.WHITE, ResultKind.GAMMON, EndReason.BORNE_OFF, multiplier=2)
    assert one == two and hash(one) == hash(two)
