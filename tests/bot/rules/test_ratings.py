"""The FIBS rating formula (bot/rules/ratings.py) against worked examples and its invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.ratings import (
    Rating,
    RatingError,
    changes,
    experience_factor,
    update,
    upset_probability,
)

# The favourite's "batting average" needed to keep his rating, 1 - P_upset, from the
# table in the rec.games.backgammon FIBS FAQ (rating difference x match length).
BATTING = {
    (100, 1): 0.529, (100, 3): 0.550, (100, 5): 0.564, (100, 7): 0.576, (100, 11): 0.594,
    (200, 1): 0.557, (200, 5): 0.626, (200, 9): 0.666,
    (300, 3): 0.645, (300, 7): 0.714, (400, 7): 0.772, (500, 11): 0.871, (700, 1): 0.691,
    (700, 11): 0.935,
}  # fmt: skip


@pytest.mark.parametrize(("difference", "length"), sorted(BATTING))
def test_upset_probability_matches_the_faq_table(difference: int, length: int) -> None:
    assert round(1 - upset_probability(difference, length), 3) == BATTING[difference, length]


def test_worked_example_favourite_wins_a_five_pointer() -> None:
    # 1800 (experienced) beats 1600 (experienced) in a 5-point match:
    # P_upset = 1 / (10 ** (200 * sqrt 5 / 2000) + 1) = 0.3740517 (worked out by hand,
    # to 30 digits); the favourite won, so P = P_upset and both move by
    # 4 * sqrt 5 * 0.3740517 = 3.3456203
    assert upset_probability(200, 5) == pytest.approx(0.3740517181, abs=1e-10)
    winner, loser = update(Rating(1800, 1000), Rating(1600, 2000), 5)
    assert winner.value == pytest.approx(1803.3456203, abs=1e-7)
    assert loser.value == pytest.approx(1596.6543797, abs=1e-7)
    assert (winner.experience, loser.experience) == (1005, 2005)


def test_worked_example_underdog_wins_with_experience_factors() -> None:
    # 1600 (experience 150, K = 3.5) beats 1800 (experience 300, K = 2) in 5 points:
    # P = 1 - 0.3740517 = 0.6259483; base 4 * sqrt 5 * P = 5.5986516
    gain, loss = changes(Rating(1600, 150), Rating(1800, 300), 5)
    assert gain == pytest.approx(19.5952807, abs=1e-7)  # K = 3.5
    assert loss == pytest.approx(11.1973033, abs=1e-7)  # K = 2


def test_newcomers_and_the_experience_factor() -> None:
    assert experience_factor(0) == 5
    assert experience_factor(399) == pytest.approx(1.01)
    assert experience_factor(400) == experience_factor(10_000) == 1
    # two newcomers, one game: 4 * 1 * 0.5 * 5 = 10 each way
    assert update(Rating(), Rating(), 1) == (Rating(1510.0, 1), Rating(1490.0, 1))
    # the experience counts the match length, so K falls faster in long matches
    winner, _ = update(Rating(), Rating(), 7)
    assert winner.experience == 7


@pytest.mark.parametrize("length", [0, -3, 1.5, True])
def test_bad_match_lengths_are_refused(length: object) -> None:
    with pytest.raises(RatingError):
        update(Rating(), Rating(), length)  # type: ignore[arg-type]


def test_bad_ratings_are_refused() -> None:
    with pytest.raises(RatingError):
        Rating(1500, -1)
    with pytest.raises(RatingError):
        Rating(float("nan"), 0)


ratings = st.floats(500, 2500, allow_nan=False)


@given(ratings, ratings, st.integers(1, 25))
def test_experienced_players_exchange_exactly_what_is_won(a: float, b: float, n: int) -> None:
    gain, loss = changes(Rating(a, 500), Rating(b, 500), n)
    assert gain == loss
    assert 0 < gain < 4 * math.sqrt(n)


@given(st.floats(1, 1000), st.integers(1, 25))
def test_an_upset_pays_more_than_the_expected_win(difference: float, n: int) -> None:
    favourite_wins, _ = changes(Rating(1500 + difference, 500), Rating(1500, 500), n)
    underdog_wins, _ = changes(Rating(1500, 500), Rating(1500 + difference, 500), n)
    assert underdog_wins > 2 * math.sqrt(n) > favourite_wins
    # and the two possible changes, weighted by their chances, balance out
    upset = upset_probability(difference, n)
    assert (1 - upset) * favourite_wins == pytest.approx(upset * underdog_wins)
