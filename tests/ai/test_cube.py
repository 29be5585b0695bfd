"""Cube and resignation decisions on clear-cut positions."""

from __future__ import annotations

import pytest

from ai import CubeState, Level, make_player
from ai.cube import janowski, money_double, money_take
from engine import Position, ResultKind, Side, Variant


def _row(points: dict[int, int]) -> list[int]:
    row = [0] * 25
    for point, count in points.items():
        row[point - 1] = count
    return row


def _bg(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """White (``mine``) on roll; point 25 is the bar."""
    return Position.from_gnubg(Variant.BACKGAMMON, [_row(theirs), _row(mine)])


HOME = {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}  # 57 pips, all home
SMALL_LEAD = _bg(HOME, {6: 4, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1})  # 62 pips: ~73%
BIG_LEAD = _bg(HOME, {7: 2, 6: 4, 5: 3, 4: 2, 3: 2, 2: 1, 1: 1})  # 70 pips: ~88%
FAR_BEHIND = _bg({11: 5, 12: 5, 13: 5}, {1: 3, 2: 3, 3: 3, 4: 3, 5: 3})
# a closed board, three of theirs on the bar: a gammon more often than not
TOO_GOOD = _bg({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3}, {25: 3, 6: 4, 5: 4, 4: 4})


def test_janowski_gives_the_textbook_money_points_without_gammons() -> None:
    doubles = [p / 100 for p in range(50, 100) if money_double((p / 100, 0, 0, 0, 0), False)]
    takes = [p / 100 for p in range(50, 100) if money_take((p / 100, 0, 0, 0, 0))]
    assert 0.68 <= doubles[0] <= 0.71  # the initial double point
    assert 0.77 <= takes[-1] <= 0.80  # the taker needs about 21.7%
    # owning the cube is worth something; handing it over costs
    probs = (0.6, 0.0, 0.0, 0.0, 0.0)
    assert janowski(probs, "me") > janowski(probs, "centre") > janowski(probs, "opponent")


@pytest.mark.parametrize(
    ("position", "double", "take"),
    [
        (FAR_BEHIND, False, True),
        (SMALL_LEAD, True, True),
        (BIG_LEAD, True, False),
        (TOO_GOOD, False, False),
    ],
    ids=["far-behind", "double-take", "double-pass", "too-good"],
)
@pytest.mark.parametrize("level", list(Level))
def test_money_cube_on_clear_cut_positions(
    position: Position, double: bool, take: bool, level: Level
) -> None:
    player = make_player(Variant.BACKGAMMON, level)
    money = CubeState()
    assert player.should_double(position, money) is double
    assert player.should_take(position, money) is take


def test_the_cube_owner_alone_redoubles_and_never_past_the_limit() -> None:
    player = make_player(Variant.BACKGAMMON, Level.STRONG)
    assert player.should_double(SMALL_LEAD, CubeState(value=2, owner=Side.WHITE))
    assert not player.should_double(SMALL_LEAD, CubeState(value=2, owner=Side.BLACK))
    assert not player.should_double(SMALL_LEAD, CubeState(value=64, owner=Side.WHITE))


def test_match_cube_follows_gnubg_and_respects_crawford() -> None:
    player = make_player(Variant.BACKGAMMON, Level.STRONG)
    match = CubeState(match_length=7)
    assert player.should_double(BIG_LEAD, match)
    assert not player.should_take(BIG_LEAD, match)
    assert not player.should_double(FAR_BEHIND, match)
    crawford = CubeState(match_length=7, score=(0, 6), crawford=True)
    assert not player.should_double(BIG_LEAD, crawford)
    # the leader one point from victory gains nothing by doubling
    assert not player.should_double(BIG_LEAD, CubeState(match_length=7, score=(6, 3)))


def test_long_nardy_has_no_cube() -> None:
    player = make_player(Variant.LONG, Level.STRONG)
    assert not player.should_double(Position.initial(Variant.LONG), CubeState())


def test_resignations_are_accepted_only_when_worth_it() -> None:
    player = make_player(Variant.BACKGAMMON, Level.STRONG)
    # winning a gammon more often than not: a single is not enough
    assert not player.accepts_resignation(TOO_GOOD, Side.WHITE, ResultKind.SINGLE)
    assert player.accepts_resignation(TOO_GOOD, Side.WHITE, ResultKind.BACKGAMMON)
    # losing: any resignation by the opponent is welcome
    assert player.accepts_resignation(FAR_BEHIND, Side.WHITE, ResultKind.SINGLE)
    # the same from the other side's seat: Black answers White's offer
    assert player.accepts_resignation(FAR_BEHIND, Side.BLACK, ResultKind.GAMMON)
    # a gammonless race won 88% of the time is worth less than a point
    assert player.accepts_resignation(BIG_LEAD, Side.WHITE, ResultKind.SINGLE)


def test_long_nardy_resignation_counts_mars() -> None:
    player = make_player(Variant.LONG, Level.STRONG)
    rows = [_row({1: 3, 2: 3, 3: 3, 4: 3, 5: 3}), _row({9: 8, 10: 7})]
    # White is nearly done, Black has nothing home: White wins, mostly with mars
    position = Position.from_rows(Variant.LONG, rows, Side.WHITE)
    assert not player.accepts_resignation(position, Side.WHITE, ResultKind.OIN)
    assert player.accepts_resignation(position, Side.WHITE, ResultKind.MARS)


def test_a_match_cube_decision_leaves_money_evaluations_as_they_were() -> None:
    """gnubg keeps the match score process-wide: a match decision once left
    it set, and every later money evaluation (moves, hints, analysis) in that
    process shifted by up to 0.005."""
    import random

    from engine import Dice, legal_turns

    strong = make_player(Variant.BACKGAMMON, Level.STRONG)
    easy = make_player(Variant.BACKGAMMON, Level.EASY)
    rng = random.Random(1)
    position, positions = Position.initial(Variant.BACKGAMMON), []
    for _ in range(30):
        turns = legal_turns(position, Dice(rng.randint(1, 6), rng.randint(1, 6)))
        if not turns or turns[0].position.winner is not None:
            break
        position = rng.choice(turns).position
        positions.append(position)

    def equities() -> list[list[float]]:
        return [[r.equity for r in strong.ranked(p, Dice(6, 4))] for p in positions[3:12]]

    before = equities()
    for p in positions:
        for score in ((0, 0), (2, 4), (4, 4), (3, 4), (1, 0)):
            cube = CubeState(match_length=5, score=score)
            for player in (easy, strong):
                player.should_take(p, cube)
                player.should_double(p, cube)
    assert equities() == before
