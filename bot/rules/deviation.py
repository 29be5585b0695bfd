"""How sure a FIBS rating is: a Glicko-style rating deviation (RD).

The rating itself moves by the FIBS formula (:mod:`bot.rules.ratings`,
unchanged); beside it each player has a deviation that says how far their
true strength may be from it, as in Mark Glickman's Glicko system, with the
FIBS scale put in: FIBS expects the better player by ``D`` points to win an
``n``-point match with ``1 / (1 + 10 ** (-D * sqrt(n) / 2000))``, which is
Glicko's curve with ``q = ln 10 * sqrt(n) / 2000`` instead of ``ln 10 / 400``.
So an ``n``-point match tells as much as ``n`` single games, and a single
game of backgammon, mostly dice, tells little: the deviation shrinks slowly.

* Everybody starts at :data:`INITIAL` (350).
* After a rated match (one of ``length`` points against an opponent of
  rating ``r_j`` and deviation ``RD_j``)::

      g   = 1 / sqrt(1 + 3 q² RD_j² / π²)
      E   = 1 / (1 + 10 ** (-g (r - r_j) sqrt(length) / 2000))
      RD' = 1 / sqrt(1 / RD² + q² g² E (1 - E))      (at least FLOOR)

* Time away makes it grow back: ``sqrt(RD² + C² days)``, at most INITIAL;
  with :data:`C` a player at the floor is provisional again after a year
  without a rated match, and back at the initial deviation after six.
* A rating is **provisional** while its deviation is above
  :data:`PROVISIONAL` (150): about the first 110 points of experience (110
  single games, or 16 seven-point matches) against settled players.  It is
  shown with a question mark: ``1510?``.
* Stats stored before deviations existed have none: theirs is the one their
  experience implies (:func:`from_experience`), so a player with years of
  games is not suddenly provisional, and a newcomer's is the initial one.
* **Seeding** (tournaments) orders players by a conservative rating,
  ``rating - 2 RD`` (:func:`conservative`): a newcomer who won a few games
  is not seeded above players whose rating is known.

>>> shown(1510.0, INITIAL), shown(1642.4, 80.0)
('1510?', '1642')
>>> round(after_match(INITIAL, 1500, 1500, INITIAL, 1), 1)
343.4
"""

from __future__ import annotations

import math

INITIAL = 350.0
FLOOR = 50.0
PROVISIONAL = 150.0
C = math.sqrt((PROVISIONAL**2 - FLOOR**2) / 365)
"""Growth per square root of an idle day."""
_Q1 = math.log(10) / 2000  # Glicko's q on the FIBS scale, one point


class DeviationError(ValueError):
    """A deviation, a match length or a time away no player can have."""


def _q(length: int) -> float:
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise DeviationError(f"a match is at least 1 point long, not {length!r}")
    return _Q1 * math.sqrt(length)


def _g(q: float, deviation: float) -> float:
    return 1 / math.sqrt(1 + 3 * (q * deviation / math.pi) ** 2)


def _check(deviation: float) -> float:
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
    g = _g(q, _check(opponent_deviation))
    expected = 1 / (1 + 10 ** (-g * (rating - opponent) * math.sqrt(length) / 2000))
    information = q * q * g * g * expected * (1 - expected)
    return max(FLOOR, 1 / math.sqrt(1 / _check(deviation) ** 2 + information))


def aged(deviation: float, days: float) -> float:
    """The deviation after ``days`` without a rated match.

    >>> round(aged(FLOOR, 365), 6), round(aged(100.0, 30), 1), aged(FLOOR, 10 * 365)
    (150.0, 107.9, 350.0)
    """
    if not math.isfinite(days) or days < 0:
        raise DeviationError(f"not a time away: {days!r}")
    return min(INITIAL, math.sqrt(_check(deviation) ** 2 + C * C * days))


def from_experience(experience: int) -> float:
    """The deviation a player has after ``experience`` points of even matches
    against settled players: what stats stored without a deviation get.

    >>> from_experience(0), round(from_experience(100)), round(from_experience(400))
    (350.0, 156, 84)
    """
    if experience < 0:
        raise DeviationError(f"experience cannot be negative: {experience}")
    information = experience * _Q1 * _Q1 * 0.25
    return max(FLOOR, 1 / math.sqrt(1 / INITIAL**2 + information))


def is_provisional(deviation: float) -> bool:
    return deviation > PROVISIONAL


def shown(rating: float, deviation: float) -> str:
    """A rating as players read it: whole points, ``?`` while provisional."""
    return f"{rating:.0f}{'?' if is_provisional(deviation) else ''}"


def conservative(rating: float, deviation: float) -> float:
    """The rating a player is at least, very likely: what seeding sorts by.

    >>> conservative(1510, 349), conservative(1480, 90)
    (812, 1300)
    """
    return rating - 2 * deviation
