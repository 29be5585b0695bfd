"""The rating deviation beside the FIBS rating: Glicko's updates on the FIBS scale."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.deviation import (
    FLOOR,
    INITIAL,
    PROVISIONAL,
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
    assert shown(1510.4, INITIAL) == "1510?" and shown(1642.6, 80.0) == "1643"


def test_playing_settled_opponents_evenly_gives_the_experience_deviation() -> None:
    deviation = INITIAL
    for _ in range(200):
        deviation = after_match(deviation, 1500.0, 1500.0, 0.0, 1)
    assert deviation == pytest.approx(from_experience(200))
    # a 7-point match tells as much as seven single games
    assert after_match(INITIAL, 1500, 1500, 0, 7) == pytest.approx(from_experience(7))


def test_a_lopsided_match_tells_less_than_an_even_one() -> None:
    even = after_match(300.0, 1500, 1500, 60, 5)
    lopsided = after_match(300.0, 1500, 2100, 60, 5)
    unsure = after_match(300.0, 1500, 1500, 350, 5)
    assert even < unsure < 300.0 and even < lopsided < 300.0


@given(st.floats(0.0, INITIAL), st.floats(1000, 2200), st.floats(1000, 2200),
       st.floats(0.0, INITIAL), st.integers(1, 25), st.floats(0, 5000))
def test_deviations_stay_between_the_floor_and_the_initial(
        deviation: float, rating: float, opponent: float, theirs: float, length: int,
        days: float) -> None:
    after = after_match(max(deviation, FLOOR), rating, opponent, theirs, length)
    assert FLOOR <= after <= max(deviation, FLOOR)
    assert FLOOR <= aged(after, days) <= INITIAL and aged(after, days) >= after


def test_idle_years_bring_a_settled_deviation_back() -> None:
    assert aged(FLOOR, 364) < PROVISIONAL < aged(FLOOR, 366)
    assert aged(FLOOR, 5 * 365) < INITIAL == aged(FLOOR, 6 * 365 + 2)


def test_seeding_rating_and_bad_arguments() -> None:
    assert conservative(1600.0, 300.0) < conservative(1450.0, 60.0)
    for call in (lambda: after_match(-1, 1500, 1500, 50, 1),
                 lambda: after_match(100, 1500, 1500, math.nan, 1),
                 lambda: after_match(100, 1500, 1500, 50, 0),
                 lambda: aged(100, -1), lambda: from_experience(-1)):
        with pytest.raises(DeviationError):
            call()
