"""Cube and resignation decisions from outcome probabilities.

Probabilities are gnubg's five: ``(win, win_gammon, win_backgammon,
lose_gammon, lose_backgammon)`` for the side on roll, the gammon figures
including backgammons (long nardy's net gives win, mars, koks in the same
places).

Money play has no cube function in gnubg-nn, so it uses Janowski's model of
cubeful equity (R. Janowski, "Take-points in money games", 1993):

* ``W`` and ``L`` are the average values of the doubler's wins and losses
  (1 plus the gammon and backgammon shares; Jacoby with a centred cube: 1);
* the *dead cube* equity is ``p W - (1 - p) L``; the *live cube* equity is
  piecewise linear in ``p`` between the take point ``TP = (L - 1/2) /
  (W + L + 1/2)`` (where the opponent would double us out: -1) and the cash
  point ``CP = 1 - (W - 1/2) / (W + L + 1/2)`` (+1), ending at ``-L`` or
  ``W`` where a side owns the cube;
* cubeful equity = ``x`` live + ``(1 - x)`` dead, with the cube life ``x =
  2/3``.

The side on roll **doubles** when the cube it would hand over is worth more
than playing on: ``min(2 E(opponent owns), 1) > E(as now)`` - which also says
"too good to double" when playing on for a gammon is worth more than the
point the opponent would pass.  The opponent **takes** when ``2 E(taker owns)
>= -1`` in its own terms, i.e. the doubler's ``E(opponent owns) <= 1/2``.
With no gammons this gives the textbook figures: a take point of about 21.7%
and doubling from about 68% on.  It never beavers.

Resignations are accepted when the points offered are at least what playing
on is expected to bring (the cubeless equity times the cube).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import Side

CUBE_LIFE = 2 / 3
Probs = Sequence[float]


@dataclass(frozen=True, slots=True)
class CubeState:
    """What a cube decision needs beside the checkers.

    ``owner`` ``None``: centred.  ``score``: points already won in the match,
    by :class:`Side`; ``match_length`` 0: money play.
    """

    value: int = 1
    owner: Side | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    max_value: int | None = 64

    def may_double(self, side: Side) -> bool:
        if self.crawford or self.owner not in (None, side):
            return False
        if self.max_value is not None and 2 * self.value > self.max_value:
            return False
        if self.match_length:
            # no point doubling past what wins the match
            return self.score[side] + self.value < self.match_length
        return True


def cubeless_equity(probs: Probs, gammons: bool = True) -> float:
    """Expected points per cube unit for the side the ``probs`` are for."""
    win, wg, wbg, lg, lbg = probs
    if not gammons:
        return 2 * win - 1
    return 2 * win - 1 + wg + wbg - lg - lbg


def double_hopeless(probs: Probs) -> bool:
    """Whether a double can only lose in money play for the side on roll
    whose (cubeless) ``probs`` these are: it wins less than half the games
    and expects to lose points.  The opponent takes and owns the cube; with
    the cube dead a double pays only with positive expectation, and a live
    cube raises that bar.

    >>> double_hopeless((0.45, 0.1, 0.0, 0.12, 0.0)), double_hopeless((0.55, 0.1, 0, 0.1, 0))
    (True, False)
    """
    return probs[0] < 0.5 and cubeless_equity(probs) < 0


def win_loss_values(probs: Probs, gammons: bool = True) -> tuple[float, float, float]:
    """``(p, W, L)``: win chance and the average values of wins and losses."""
    win, wg, wbg, lg, lbg = probs
    p = min(max(win, 1e-6), 1 - 1e-6)
    if not gammons:
        return p, 1.0, 1.0
    return p, 1 + (wg + wbg) / p, 1 + (lg + lbg) / (1 - p)


def _line(p: float, p0: float, e0: float, p1: float, e1: float) -> float:
    if p <= p0:
        return e0
    if p >= p1:
        return e1
    return e0 + (e1 - e0) * (p - p0) / (p1 - p0)


def janowski(probs: Probs, owner: str, gammons: bool = True, x: float = CUBE_LIFE) -> float:
    """Cubeful equity per cube unit for the side on roll; ``owner`` is
    ``"me"``, ``"centre"`` or ``"opponent"``."""
    p, wins, losses = win_loss_values(probs, gammons)
    take_point = (losses - 0.5) / (wins + losses + 0.5)
    cash_point = 1 - (wins - 0.5) / (wins + losses + 0.5)
    dead = p * wins - (1 - p) * losses
    if owner == "me":
        live = _line(p, 0.0, -losses, cash_point, 1.0)
    elif owner == "centre":
        live = _line(p, take_point, -1.0, cash_point, 1.0)
    else:
        live = _line(p, take_point, -1.0, 1.0, wins)
    return x * live + (1 - x) * dead


def money_double(probs: Probs, cube_mine: bool, jacoby: bool = False) -> bool:
    """Should the side on roll (``probs``) double in a money game?"""
    now = janowski(probs, "me" if cube_mine else "centre", gammons=cube_mine or not jacoby)
    doubled = min(2 * janowski(probs, "opponent"), 1.0)
    return doubled > now


def money_take(probs: Probs) -> bool:
    """Should the side not on roll take a double from the side on roll
    (``probs`` are the doubler's)?"""
    return janowski(probs, "opponent") <= 0.5


def accept_resignation(my_probs: Probs, points_offered: int, cube: int, gammons: bool) -> bool:
    """Accept when the offer is worth at least playing on, cubeless."""
    return points_offered >= cube * cubeless_equity(my_probs, gammons) - 1e-9
