"""The rating deviation beside the FIBS rating: Glicko's updates on the FIBS scale."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.ratings import (
    MIN_DEVIATION,
    PROVISIONAL_DEVIATION,
    START_DEVIATION,
    DeviationError,
    after_match,
    aged,
    conservative,
    from_experience,
    is_provisional,
    shown,
)


def test_a_newcomer_is_provisional_until_about_110_points_of_experience() -> None:
    assert is_provisional(from_experience(100)) and not is_provisional(from_experience(115))
    assert shown(1510.4, START_DEVIATION) == "1510?" and shown(1642.6, 80.0) == "1643"


def test_playing_settled_opponents_evenly_gives_the_experience_deviation() -> None:
    deviation = START_DEVIATION
    for _ in range(200):
        deviation = after_match(deviation, 1500.0, 1500.0, 0.0, 1)
    assert deviation == pytest.approx(from_experience(200))
    # a 7-point match tells as much as seven single games
    assert after_match(START_DEVIATION, 1500, 1500, 0, 7) == pytest.approx(from_experience(7))


def test_a_lopsided_match_tells_less_than_an_even_one() -> None:
    even = after_match(300.0, 1500, 1500, 60, 5)
    lopsided = after_match(300.0, 1500, 2100, 60, 5)
    unsure = after_match(300.0, 1500, 1500, 350, 5)
    assert even < unsure < 300.0 and even < lopsided < 300.0


@given(st.floats(0.0, START_DEVIATION), st.floats(1000, 2200), st.floats(1000, 2200),
       st.floats(0.0, START_DEVIATION), st.integers(1, 25), st.floats(0, 5000))
def test_deviations_stay_between_the_floor_and_the_initial(
        deviation: float, rating: float, opponent: float, theirs: float, length: int,
        days: float) -> None:
    after = after_match(max(deviation, MIN_DEVIATION), rating, opponent, theirs, length)
    assert MIN_DEVIATION <= after <= max(deviation, MIN_DEVIATION)
    assert MIN_DEVIATION <= aged(after, days) <= START_DEVIATION and aged(after, days) >= after


def test_idle_years_bring_a_settled_deviation_back() -> None:
    assert aged(MIN_DEVIATION, 364) < PROVISIONAL_DEVIATION < aged(MIN_DEVIATION, 366)
    assert aged(MIN_DEVIATION, 5 * 365) < START_DEVIATION == aged(MIN_DEVIATION, 6 * 365 + 2)


def test_seeding_rating_and_bad_arguments() -> None:
    assert conservative(1600.0, 300.0) < conservative(1450.0, 60.0)
    for call in (lambda: after_match(-1, 1500, 1500, 50, 1),
                 lambda: after_match(100, 1500, 1500, math.nan, 1),
                 lambda: after_match(100, 1500, 1500, 50, 0),
                 lambda: aged(100, -1), lambda: from_experience(-1)):
        with pytest.raises(DeviationError):
            call()


def test_rated_results_keep_a_deviation_beside_the_rating() -> None:
    """A rated game moves both deviations by Glicko's formula; a player
    stored before deviations starts from the one their experience implies;
    time away between rated games widens it again."""
    from bot.rules.ledger import Outcome, deviation_of, updated_stats
    from bot.vocab.records import Player, PlayerStats
    from engine.position import Side, Variant
    from engine.scoring import EndReason, GameResult, ResultKind

    players = (Player(user_id=1, name="Ann", side=Side.WHITE),
               Player(user_id=2, name="Bob", side=Side.BLACK))
    won = GameResult(Side.WHITE, ResultKind.OIN, EndReason.BORNE_OFF)
    veteran = PlayerStats(user_id=2, variant=Variant.LONG, rating=1600.0, experience=900)
    assert veteran.deviation is None
    assert deviation_of(veteran) == pytest.approx(from_experience(900))
    ann, bob = updated_stats(Outcome("g", Variant.LONG, players, won), {2: veteran}, now=1000.0)
    assert ann.deviation == pytest.approx(after_match(START_DEVIATION, 1500.0, 1600.0,
                                                      from_experience(900), 1))
    assert bob.deviation == pytest.approx(after_match(from_experience(900), 1600.0, 1500.0,
                                                      START_DEVIATION, 1))
    assert ann.rated_at == bob.rated_at == 1000.0
    assert shown(ann.rating, ann.deviation) == f"{ann.rating:.0f}?"
    assert not is_provisional(bob.deviation)
    later = 1000.0 + 400 * 86400
    assert deviation_of(bob, later) == pytest.approx(aged(bob.deviation, 400))
    assert is_provisional(deviation_of(bob, later))   # a year and more away
    again, _ = updated_stats(Outcome("h", Variant.LONG, players, won), {1: ann, 2: bob},
                             now=later)
    assert again.deviation == pytest.approx(after_match(
        aged(ann.deviation, 400), ann.rating, bob.rating, aged(bob.deviation, 400), 1))


def test_a_deviation_at_zero_is_taken_as_the_floor() -> None:
    """A stored deviation of 0 (the record allows it) divided by zero."""
    assert after_match(0, 1500, 1500, 60, 1) == MIN_DEVIATION
