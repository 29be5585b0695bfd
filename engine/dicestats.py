"""Dice statistics: how often each of the 21 rolls came, doubles, pips per
roll, and a chi-square test of the counts against fair dice.

A roll is counted without its order (``52`` and ``25`` are the same roll), so
there are 21 rolls: the 6 doubles each come 1 time in 36, the 15 others 2
times in 36.  Pips count a double four times in both games (``66`` is 24
pips), so fair dice give 8⅙ pips per roll on average.

>>> stats = DiceStats.of([(6, 6), (2, 1), (1, 2)])
>>> stats.rolls, stats.doubles, stats.pips, stats.count(1, 2)
(3, 1, 30, 2)
>>> stats.verdict
<Verdict.TOO_FEW: 'too_few'>
>>> round(FAIR_AVERAGE_PIPS, 4)
8.1667

The p-value is the chance that fair dice give counts at least this far from
the expected ones (the chi-square survival function with 20 degrees of
freedom, computed here from the regularized incomplete gamma function).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.position import EngineError

ROLLS: tuple[tuple[int, int], ...] = tuple(
    (high, low) for high in range(1, 7) for low in range(1, high + 1)
)
"""The 21 distinct rolls, larger die first: 11, 21, 22, 31, 32, 33, ..., 66."""
_INDEX = {roll: index for index, roll in enumerate(ROLLS)}

MIN_ROLLS = 180
"""Fewer rolls give no verdict: every roll must be expected at least 5 times
(a double 1 in 36: 180 rolls) for the chi-square test to be trustworthy."""
SUSPICIOUS_BELOW = 0.001
"""p below this is suspicious.  A chat checks many players, often; at 0.01
one fair player in a hundred would be called suspicious."""


class DiceStatsError(EngineError):
    """Counts or rolls that cannot be dice statistics."""


class Verdict(enum.Enum):
    TOO_FEW = "too_few"
    CONSISTENT = "consistent"
    SUSPICIOUS = "suspicious"


def roll_pips(high: int, low: int) -> int:
    """Pips of one roll; a double is played four times.

    >>> roll_pips(6, 6), roll_pips(5, 2)
    (24, 7)
    """
    return 4 * high if high == low else high + low


def expected_share(high: int, low: int) -> float:
    """The chance of a roll with fair dice: 1/36 for a double, else 2/36."""
    return (1 if high == low else 2) / 36


FAIR_AVERAGE_PIPS = sum(expected_share(*roll) * roll_pips(*roll) for roll in ROLLS)


@dataclass(frozen=True, slots=True)
class DiceStats:
    """The counts of the 21 rolls (in :data:`ROLLS` order): all that needs
    storing, the rest follows from them."""

    counts: tuple[int, ...] = (0,) * len(ROLLS)

    def __post_init__(self) -> None:
        if len(self.counts) != len(ROLLS) or any(
            not isinstance(count, int) or count < 0 for count in self.counts
        ):
            raise DiceStatsError("dice statistics are 21 counts >= 0")

    @classmethod
    def of(cls, rolls: Iterable[tuple[int, int]]) -> DiceStats:
        return cls().added(rolls)

    def added(self, rolls: Iterable[tuple[int, int]]) -> DiceStats:
        """With more rolls counted (each as rolled, either order)."""
        counts = list(self.counts)
        for first, second in rolls:
            key = (max(first, second), min(first, second))
            if key not in _INDEX:
                raise DiceStatsError(f"not a roll of two dice: {first}, {second}")
            counts[_INDEX[key]] += 1
        return DiceStats(tuple(counts))

    def merged(self, other: DiceStats) -> DiceStats:
        return DiceStats(tuple(a + b for a, b in zip(self.counts, other.counts, strict=True)))

    def to_text(self) -> str:
        """A compact stored form: the counts, comma separated.

        >>> DiceStats.parse(DiceStats.of([(3, 1)]).to_text()).count(1, 3)
        1
        """
        return ",".join(map(str, self.counts))

    @classmethod
    def parse(cls, text: str) -> DiceStats:
        try:
            return cls(tuple(int(part) for part in text.split(",")))
        except ValueError as error:
            raise DiceStatsError(f"not dice statistics: {text[:40]!r}") from error

    def count(self, first: int, second: int) -> int:
        return self.counts[_INDEX[(max(first, second), min(first, second))]]

    @property
    def rolls(self) -> int:
        return sum(self.counts)

    @property
    def doubles(self) -> int:
        return sum(count for (high, low), count in zip(ROLLS, self.counts, strict=True)
                   if high == low)

    @property
    def pips(self) -> int:
        return sum(count * roll_pips(*roll) for roll, count in zip(ROLLS, self.counts,
                                                                   strict=True))

    @property
    def average_pips(self) -> float:
        """Pips per roll (0 without rolls); fair dice: :data:`FAIR_AVERAGE_PIPS`."""
        return self.pips / self.rolls if self.rolls else 0.0

    @property
    def expected(self) -> tuple[float, ...]:
        """What fair dice give for this many rolls, per roll of :data:`ROLLS`."""
        return tuple(self.rolls * expected_share(*roll) for roll in ROLLS)

    @property
    def chi_square(self) -> float:
        return chi_square(self.counts, self.expected)

    @property
    def p_value(self) -> float:
        """The chance of a chi-square this large from fair dice (1.0 without rolls)."""
        if not self.rolls:
            return 1.0
        return chi_square_sf(self.chi_square, len(ROLLS) - 1)

    @property
    def verdict(self) -> Verdict:
        if self.rolls < MIN_ROLLS:
            return Verdict.TOO_FEW
        return Verdict.SUSPICIOUS if self.p_value < SUSPICIOUS_BELOW else Verdict.CONSISTENT


def chi_square(observed: Sequence[float], expected: Sequence[float]) -> float:
    """Pearson's statistic: the sum of (observed - expected)² / expected.

    >>> chi_square([10, 20], [15, 15])
    3.3333333333333335
    """
    if len(observed) != len(expected) or any(value <= 0 for value in expected):
        raise DiceStatsError("chi-square needs as many expected counts, all > 0")
    return sum((seen - wanted) ** 2 / wanted
               for seen, wanted in zip(observed, expected, strict=True))


_EPSILON = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


def _gamma_p_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_TERMS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, evaluated with Lentz's method
    (converges fast for x >= a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    fraction = d
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        fraction *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return fraction * math.exp(-x + a * math.log(x) - math.lgamma(a))


def regularized_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a).

    >>> round(regularized_gamma_q(1.0, 2.0), 12) == round(math.exp(-2.0), 12)
    True
    """
    if a <= 0 or x < 0:
        raise DiceStatsError("the incomplete gamma function needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _gamma_p_series(a, x))
    return min(1.0, _gamma_q_fraction(a, x))


def chi_square_sf(statistic: float, df: int) -> float:
    """The chance that a chi-square variable with ``df`` degrees of freedom
    is at least ``statistic``: Q(df / 2, statistic / 2).

    >>> round(chi_square_sf(31.410, 20), 4)
    0.05
    """
    if df < 1:
        raise DiceStatsError("degrees of freedom are 1 or more")
    if statistic < 0:
        raise DiceStatsError("a chi-square statistic is >= 0")
    return regularized_gamma_q(df / 2.0, statistic / 2.0)
