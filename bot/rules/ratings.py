"""Player ratings by the FIBS formula (the First Internet Backgammon Server's ``help formula``).

Pure arithmetic; the store keeps one rating and experience per chat, variant
and player (see :class:`bot.vocab.records.PlayerStats`).  For an ``n``-point match
between ratings ``r1`` and ``r2`` (a single game counts as ``n = 1``)::

    D        = |r1 - r2|
    P_upset  = 1 / (10 ** (D * sqrt(n) / 2000) + 1)   the underdog's chance to win
    P        = 1 - P_upset if the underdog won, P_upset if the favourite won
    K        = max(1, 5 - experience / 100)           each player's own experience
    change   = 4 * K * sqrt(n) * P                    added to the winner,
                                                      subtracted from the loser

``experience`` is the sum of the lengths of the matches a player had finished
*before* this one (FIBS's man page; some clients add ``n`` first - we follow
the server).  Everybody starts at 1500 with experience 0.

Two experienced players of equal rating, one game: the winner gains 2.

>>> update(Rating(1500.0, 400), Rating(1500.0, 400), 1)
(Rating(value=1502.0, experience=401), Rating(value=1498.0, experience=401))

A newcomer's change is five times as big (K = 5 at experience 0):

>>> update(Rating(), Rating(), 1)
(Rating(value=1510.0, experience=1), Rating(value=1490.0, experience=1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START = 1500.0
"""Every player's first rating."""


class RatingError(ValueError):
    """Arguments no match can have: a match length below 1, negative experience."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating and experience (the sum of finished match lengths)."""

    value: float = START
    experience: int = 0

    def __post_init__(self) -> None:
        if self.experience < 0 or not math.isfinite(self.value):
            raise RatingError(f"not a rating: {self.value!r}, experience {self.experience!r}")


def _check_length(length: int) -> None:
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise RatingError(f"a match is at least 1 point long, not {length!r}")


def upset_probability(difference: float, length: int) -> float:
    """The underdog's chance to win an ``length``-point match, ``difference`` points below.

    The "batting average" a favourite needs to keep his rating is one minus this
    (the table of rec.games.backgammon's FIBS FAQ: 100 points, 1 game: .529;
    400 points, 7 points: .772):

    >>> round(1 - upset_probability(100, 1), 3), round(1 - upset_probability(400, 7), 3)
    (0.529, 0.772)
    >>> upset_probability(0, 5)
    0.5
    """
    _check_length(length)
    return 1 / (10 ** (abs(difference) * math.sqrt(length) / 2000) + 1)


def experience_factor(experience: int) -> float:
    """K: 5 for a newcomer, falling by 1 per 100 points of experience, at least 1.

    >>> [experience_factor(e) for e in (0, 100, 250, 350, 400, 5000)]
    [5.0, 4.0, 2.5, 1.5, 1.0, 1.0]
    """
    if experience < 0:
        raise RatingError(f"experience cannot be negative: {experience}")
    return max(1.0, 5 - experience / 100)


def winner_probability_term(winner: float, loser: float, length: int) -> float:
    """FIBS's ``P``: the chance the result had *not* to happen.

    >>> round(winner_probability_term(1400, 1600, 1), 4)   # the underdog won
    0.5573
    >>> round(winner_probability_term(1600, 1400, 1), 4)   # the favourite won
    0.4427
    """
    upset = upset_probability(winner - loser, length)
    return 1 - upset if winner < loser else upset


def changes(winner: Rating, loser: Rating, length: int) -> tuple[float, float]:
    """(the winner's gain, the loser's loss) - both positive; each uses its own K.

    A newcomer (K=5) beats a settled player of equal rating in a 7-point match:

    >>> gain, loss = changes(Rating(1500, 0), Rating(1500, 1000), 7)
    >>> round(gain, 4), round(loss, 4)
    (26.4575, 5.2915)
    """
    term = winner_probability_term(winner.value, loser.value, length)
    base = 4 * math.sqrt(length) * term
    return (base * experience_factor(winner.experience),
            base * experience_factor(loser.experience))


def update(winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
    """Both ratings after ``winner`` beat ``loser`` in a ``length``-point match."""
    gain, loss = changes(winner, loser, length)
    return (Rating(winner.value + gain, winner.experience + length),
            Rating(loser.value - loss, loser.experience + length))
