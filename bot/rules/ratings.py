"""Player ratings: the FIBS formula, and how sure a rating is (its deviation).

**The rating** follows the FIBS formula (the First Internet Backgammon
Server's ``help formula``).

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

**How sure a rating is**: a Glicko-style rating deviation (RD).  The
rating itself moves by the FIBS formula (above, unchanged); beside it each
player has a deviation that says how far their true strength may be from it,
as in Mark Glickman's Glicko system, with the FIBS scale put in: FIBS expects
the better player by ``D`` points to win an ``n``-point match with
``1 / (1 + 10 ** (-D * sqrt(n) / 2000))``, which is Glicko's curve with
``q = ln 10 * sqrt(n) / 2000`` instead of ``ln 10 / 400``.  So an
``n``-point match tells as much as ``n`` single games, and a single game of
backgammon, mostly dice, tells little: the deviation shrinks slowly.

* Everybody starts at :data:`START_DEVIATION` (350).
* After a rated match (one of ``length`` points against an opponent of
  rating ``r_j`` and deviation ``RD_j``)::

      g   = 1 / sqrt(1 + 3 q² RD_j² / π²)
      E   = 1 / (1 + 10 ** (-g (r - r_j) sqrt(length) / 2000))
      RD' = 1 / sqrt(1 / RD² + q² g² E (1 - E))      (at least MIN_DEVIATION)

* Time away makes it grow back: ``sqrt(RD² + C² days)``, at most
  START_DEVIATION; with ``C`` = :data:`DEVIATION_GROWTH` a player at the floor
  is provisional again after a year without a rated match, and back at the
  initial deviation after six.
* A rating is **provisional** while its deviation is above
  :data:`PROVISIONAL_DEVIATION` (150): about the first 110 points of
  experience (110 single games, or 16 seven-point matches) against settled
  players.  It is shown with a question mark: ``1510?``.
* Stats stored before deviations existed have none: theirs is the one their
  experience implies (:func:`from_experience`), so a player with years of
  games is not suddenly provisional, and a newcomer's is the initial one.
* **Seeding** (tournaments) orders players by a conservative rating,
  ``rating - 2 RD`` (:func:`conservative`): a newcomer who won a few games
  is not seeded above players whose rating is known.

>>> shown(1510.0, START_DEVIATION), shown(1642.4, 80.0)
('1510?', '1642')
>>> round(after_match(START_DEVIATION, 1500, 1500, START_DEVIATION, 1), 1)
343.4

Both applied to a player's stats when a game ends: :func:`bot.rules.ledger.rated`.
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


def _check_length(length: int, error: type[RatingError] = RatingError) -> None:
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise error(f"a match is at least 1 point long, not {length!r}")


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


# ---------------------------------------------------------------- the deviation


START_DEVIATION = 350.0
"""Every player's first deviation."""
MIN_DEVIATION = 50.0
PROVISIONAL_DEVIATION = 150.0
DEVIATION_GROWTH = math.sqrt((PROVISIONAL_DEVIATION**2 - MIN_DEVIATION**2) / 365)
"""Growth per square root of an idle day."""
_Q1 = math.log(10) / 2000  # Glicko's q on the FIBS scale, one point


class DeviationError(RatingError):
    """A deviation, a match length or a time away no player can have."""


def _q(length: int) -> float:
    _check_length(length, DeviationError)
    return _Q1 * math.sqrt(length)


def _g(q: float, deviation: float) -> float:
    return 1 / math.sqrt(1 + 3 * (q * deviation / math.pi) ** 2)


def _check_deviation(deviation: float) -> float:
    if not math.isfinite(deviation) or deviation < 0:
        raise DeviationError(f"not a deviation: {deviation!r}")
    return deviation


def after_match(deviation: float, rating: float, opponent: float, opponent_deviation: float,
                length: int) -> float:
    """A player's deviation after a rated match of ``length`` points (won or
    lost alike: Glicko's deviation depends on the chances, not the result).

    An even single game moves a newcomer's a little; a 25-point match with a
    settled player moves it as much as 25 such games:

    >>> [round(after_match(350, 1500, 1500, 60, length), 1) for length in (1, 25)]
    [343.1, 248.8]
    """
    q = _q(length)
    g = _g(q, _check_deviation(opponent_deviation))
    expected = 1 / (1 + 10 ** (-g * (rating - opponent) * math.sqrt(length) / 2000))
    information = q * q * g * g * expected * (1 - expected)
    # below the floor (0 is a valid stored value) counts as the floor, never 1 / 0
    precision = 1 / max(_check_deviation(deviation), MIN_DEVIATION) ** 2 + information
    return max(MIN_DEVIATION, 1 / math.sqrt(precision))


def aged(deviation: float, days: float) -> float:
    """The deviation after ``days`` without a rated match.

    >>> round(aged(MIN_DEVIATION, 365), 6), round(aged(100.0, 30), 1)
    (150.0, 107.9)
    >>> aged(MIN_DEVIATION, 10 * 365)
    350.0
    """
    if not math.isfinite(days) or days < 0:
        raise DeviationError(f"not a time away: {days!r}")
    growth = DEVIATION_GROWTH * DEVIATION_GROWTH * days
    return min(START_DEVIATION, math.sqrt(_check_deviation(deviation) ** 2 + growth))


def from_experience(experience: int) -> float:
    """The deviation a player has after ``experience`` points of even matches
    against settled players: what stats stored without a deviation get.

    >>> from_experience(0), round(from_experience(100)), round(from_experience(400))
    (350.0, 156, 84)
    """
    if experience < 0:
        raise DeviationError(f"experience cannot be negative: {experience}")
    information = experience * _Q1 * _Q1 * 0.25
    return max(MIN_DEVIATION, 1 / math.sqrt(1 / START_DEVIATION**2 + information))


def is_provisional(deviation: float) -> bool:
    return deviation > PROVISIONAL_DEVIATION


def shown(rating: float, deviation: float) -> str:
    """A rating as players read it: whole points, ``?`` while provisional."""
    return f"{rating:.0f}{'?' if is_provisional(deviation) else ''}"


def conservative(rating: float, deviation: float) -> float:
    """The rating a player is at least, very likely: what seeding sorts by.

    >>> conservative(1510, 349), conservative(1480, 90)
    (812, 1300)
    """
    return rating - 2 * deviation
