"""Dice statistics: counts, doubles, pips, the chi-square survival function
against closed forms and table values, and the verdict."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import DiceSeed, FairDice
from engine.dicestats import (
    FAIR_AVERAGE_PIPS,
    MIN_ROLLS,
    ROLLS,
    DiceStats,
    DiceStatsError,
    Verdict,
    chi_square,
    chi_square_sf,
    regularized_gamma_q,
)

dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


def test_the_21_rolls() -> None:
    assert len(ROLLS) == 21 and len(set(ROLLS)) == 21
    assert sum(high == low for high, low in ROLLS) == 6
    assert math.isclose(sum(DiceStats.of([(1, 1)]).expected), 1.0)


def test_counts_doubles_and_pips() -> None:
    stats = DiceStats.of([(6, 6), (2, 1), (1, 2), (5, 3), (4, 4)])
    assert stats.rolls == 5 and stats.doubles == 2
    assert stats.count(2, 1) == 2 and stats.count(3, 5) == 1 and stats.count(6, 5) == 0
    assert stats.pips == 24 + 3 + 3 + 8 + 16  # doubles four times
    assert stats.average_pips == pytest.approx(54 / 5)
    assert DiceStats().average_pips == 0.0 and DiceStats().p_value == 1.0


def test_fair_average_is_eight_and_a_sixth() -> None:
    assert math.isclose(FAIR_AVERAGE_PIPS, 49 / 6)


@given(st.lists(dice, max_size=60), st.lists(dice, max_size=60))
def test_merging_is_counting_together(first: list[tuple[int, int]],
                                      second: list[tuple[int, int]]) -> None:
    merged = DiceStats.of(first).merged(DiceStats.of(second))
    assert merged == DiceStats.of(first + second) == DiceStats.of(first).added(second)
    assert merged.rolls == len(first) + len(second)
    assert DiceStats.parse(merged.to_text()) == merged


@pytest.mark.parametrize("bad", [(0, 3), (7, 1)])
def test_bad_rolls_and_counts_are_refused(bad: tuple[int, int]) -> None:
    with pytest.raises(DiceStatsError):
        DiceStats.of([bad])
    with pytest.raises(DiceStatsError):
        DiceStats((1,) * 20)
    with pytest.raises(DiceStatsError):
        DiceStats.parse("1,2,x")


# -------------------------------------------------------------- chi-square


@pytest.mark.parametrize("x", [0.001, 0.5, 1.0, 3.0, 10.0, 40.0, 150.0])
def test_two_degrees_of_freedom_is_an_exponential(x: float) -> None:
    assert chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("x", [0.01, 0.5, 2.0, 3.841, 6.635, 20.0])
def test_one_degree_of_freedom_is_erfc(x: float) -> None:
    assert chi_square_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10)


@pytest.mark.parametrize("df", [4, 10, 20, 36])
@pytest.mark.parametrize("x", [0.5, 5.0, 19.0, 20.0, 21.0, 35.0, 80.0])
def test_even_degrees_of_freedom_match_the_poisson_sum(df: int, x: float) -> None:
    # Q(k, x/2) for whole k is P(Poisson(x/2) < k)
    half = x / 2
    exact = math.exp(-half) * sum(half ** k / math.factorial(k) for k in range(df // 2))
    assert chi_square_sf(x, df) == pytest.approx(exact, rel=1e-10)


@pytest.mark.parametrize("statistic, df, p", [
    (3.841, 1, 0.05), (6.635, 1, 0.01), (10.828, 1, 0.001),
    (11.070, 5, 0.05), (18.307, 10, 0.05),
    (31.410, 20, 0.05), (37.566, 20, 0.01), (45.315, 20, 0.001), (12.443, 20, 0.90),
    (49.802, 35, 0.05), (19.337, 20, 0.50),
])
def test_table_values(statistic: float, df: int, p: float) -> None:
    assert chi_square_sf(statistic, df) == pytest.approx(p, rel=5e-3)


def test_edges() -> None:
    assert chi_square_sf(0.0, 20) == 1.0
    assert chi_square_sf(1e4, 20) < 1e-300
    # the series (x < a + 1) and the continued fraction (x >= a + 1) meet smoothly
    assert regularized_gamma_q(10.0, 10.999) == pytest.approx(
        regularized_gamma_q(10.0, 11.0), abs=1e-3)
    for bad in [(-1.0, 20), (1.0, 0)]:
        with pytest.raises(DiceStatsError):
            chi_square_sf(*bad)
    with pytest.raises(DiceStatsError):
        chi_square([1, 2], [1, 0])


@settings(max_examples=200)
@given(st.floats(0.0, 200.0), st.integers(1, 60))
def test_survival_is_a_probability_falling_with_the_statistic(x: float, df: int) -> None:
    p = chi_square_sf(x, df)
    assert 0.0 <= p <= 1.0
    assert chi_square_sf(x + 1.0, df) <= p + 1e-12


# -------------------------------------------------------------- the verdict


def test_exactly_expected_counts_are_consistent() -> None:
    rolls = [(high, low) for high, low in ROLLS for _ in range(10 if high == low else 20)]
    stats = DiceStats.of(rolls)
    assert stats.chi_square == 0.0 and stats.p_value == 1.0
    assert stats.verdict is Verdict.CONSISTENT


def test_too_few_rolls_give_no_verdict() -> None:
    assert DiceStats.of([(6, 6)] * (MIN_ROLLS - 1)).verdict is Verdict.TOO_FEW


def test_loaded_dice_are_suspicious() -> None:
    fair = FairDice(DiceSeed(bytes(32)))
    rolls = [fair.roll(index) for index in range(300)] + [(6, 6)] * 30
    assert DiceStats.of(rolls).verdict is Verdict.SUSPICIOUS


def test_derived_dice_are_consistent() -> None:
    fair = FairDice(DiceSeed(bytes(32)))
    stats = DiceStats.of(fair.roll(index) for index in range(3600))
    assert stats.verdict is Verdict.CONSISTENT, (stats.chi_square, stats.p_value)
    assert abs(stats.average_pips - FAIR_AVERAGE_PIPS) < 0.3
