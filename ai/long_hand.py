"""A hand-made long nardy evaluation that knows the game's strategy, for
the yardstick of issue 38 (:mod:`ai.long_expectimax`).

It shares nothing with the net: its features are written here (not
:mod:`ai.long_features`, the net's inputs) and its weights were tuned by
play - win rate in paired games - not fitted to the net's estimates
(``benchmarks/long_hand_tune.py``; docs/ai.md, "The yardstick").

A batch of positions is two integer arrays ``(N, 24)``, ``me`` (to roll)
and ``opp``, each in its own numbering (column ``i`` = its point ``i + 1``).
Every feature is computed for each side against the other (:func:`side`),
and the logit of the side to roll's chance of winning is the weighted sum
of mine minus the opponent's, plus :data:`ON_ROLL`:

* ``race``: the pip lead (with the roll's half a roll) over
  :data:`RACE_SCALE` x the average count, the pips raised by the waste of
  a bear-off (:func:`wasted`) - the whole logit once no contact is left;
* ``head``: checkers still on the head; ``home``: checkers home;
  ``entry``: pips still to bring every checker home;
* points held in each quarter (``q_home`` my 1..6, ``q_theirs`` my 7..12 -
  the opponent's starting quarter, where its head checkers must pass -
  ``q_block`` my 13..18 - the opponent's home, its way in - and ``q_start``
  my 19..23) and ``stack`` (checkers beyond three on a point, the head
  apart: pips doing nothing);
* blocks: the other side's points held in a row in front of my checkers.
  ``trapped4``/``trapped5``/``trapped6``: my checkers with a block of at
  least 4, 5, 6 of the other side's points somewhere ahead of them;
  ``rear_block``: the longest block ahead of my rearmost checker;
  ``pressed``: the other side's points among the six in front of each
  of my checkers outside home, squared (how few dice move it);
* mars: ``mars``, while nothing of mine is borne off, my margin against
  it: the other side's pips minus my ``entry``, in units of 30 pips,
  clipped at 0..3 (0 where mars threatens, 3 when far from it).  Its
  weight (-0.3, the first hand guess, kept as measured) counts that
  margin slightly against me: the wrong sign for the intent, a small
  term (a trial at -1 lost 0.8 points at 1 ply) left to a next tuning;
* ``mobility``: for each die, the points (up to three) from which a
  checker of mine can move that far onto a point the other side does not
  hold, / 18 - a roll that cannot be played is pips lost;
* ``front``: ``pressed`` unsquared; ``deep``: checkers on my 1..3 (played
  deep while there is contact: pips spent for nothing); ``head2``:
  ``head`` squared (one checker a turn leaves the head).

Cheap: numpy over the batch, some 30 column operations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ai.long_features import Matrix, Rows
from ai.long_net import Vector

Flags = npt.NDArray[np.bool_]
_POINTS = np.arange(1, 25, dtype=np.float64)
_ENTRY = np.maximum(_POINTS - 6, 0)

NAMES: tuple[str, ...] = (
    "race", "head", "home", "entry", "q_home", "q_theirs", "q_block", "q_start",
    "stack", "trapped4", "trapped5", "trapped6", "rear_block", "pressed", "mars",
    "mobility", "front", "deep", "head2",
)
INDEX = {name: i for i, name in enumerate(NAMES)}

STRATEGY_WEIGHTS: Mapping[str, float] = {
    "race": 0.692,
    "head": -3.0,
    "home": 0.0,
    "entry": -1.5,
    "q_home": 0.293,
    "q_theirs": 1.0,
    "q_block": 0.0,
    "q_start": 0.2,
    "stack": -1.833,
    "trapped4": -1.234,
    "trapped5": -2.167,
    "trapped6": -2.0,
    "rear_block": -0.628,
    "pressed": -1.0,
    "mars": -0.3,
    "mobility": 1.0,
    "front": 0.0,
    "deep": -1.0,
    "head2": -2.0,
}
"""Logit weights (mine +, the opponent's -); see the module doc.  Tuned
by play (docs/ai.md, "The yardstick"): ``home``, ``q_block`` and ``front``
ended at 0 (kept as features to tune again)."""
ON_ROLL = 0.2
"""Logit of being on roll in contact."""
RACE_SCALE = 0.11
"""The race logit is ``(lead + 4 pips for the roll) / (RACE_SCALE x the
average count)``: a lead of 10% of the count wins about 3 in 4."""


def wasted(x: Matrix) -> Vector:
    """Pips a bear-off wastes beyond the count (a Keith-like count): extra
    checkers on the low points, gaps on the high home points."""
    waste = (2 * np.maximum(x[:, 0] - 1, 0) + np.maximum(x[:, 1] - 1, 0)
             + np.maximum(x[:, 2] - 3, 0) + (x[:, 3:6] == 0).sum(axis=1))
    return np.asarray(waste, dtype=np.float64)


def _runs(held: Flags) -> Matrix:
    """The length of the run of held points each point is in (0 if not
    held); runs do not wrap (a side's points 1 and 24 are not adjacent)."""
    count, points = held.shape
    up = np.zeros((count, points))
    down = np.zeros((count, points))
    for i in range(points):
        up[:, i] = held[:, i] * ((up[:, i - 1] if i else 0) + 1)
    for i in range(points - 1, -1, -1):
        down[:, i] = held[:, i] * ((down[:, i + 1] if i < points - 1 else 0) + 1)
    return np.where(held, up + down - 1, 0)



def side(x: Matrix, y: Matrix, y_pips: Vector) -> Matrix:
    """The features (:data:`NAMES`, but ``race`` holds the pips plus
    waste) of the side ``x`` against ``y``, both in ``x``'s numbering."""
    count = len(x)
    held = x > 0
    theirs = y > 0
    pips = x @ _POINTS
    entry = x @ _ENTRY
    runs = _runs(theirs)
    # the longest block of theirs strictly ahead of (below) each point
    ahead = np.zeros((count, 24))
    ahead[:, 1:] = np.maximum.accumulate(runs, axis=1)[:, :-1]
    on = x.sum(axis=1)
    rear = 23 - np.argmax(held[:, ::-1], axis=1)
    rear_block = np.where(on > 0, ahead[np.arange(count), rear], 0)
    front = np.zeros((count, 24))
    for d in range(1, 7):
        front[:, d:] += theirs[:, :-d]
    pressed = (x[:, 6:] * (front[:, 6:] / 6) ** 2).sum(axis=1) / 15
    off = on < 15
    sources = np.zeros(count)
    for d in range(1, 7):
        free = held[:, d:] & ~theirs[:, :-d]
        sources += np.minimum(free.sum(axis=1), 3)
    out = np.stack([
        pips + wasted(x),
        x[:, 23] / 15,
        x[:, :6].sum(axis=1) / 15,
        entry / 100,
        held[:, :6].sum(axis=1) / 6,
        held[:, 6:12].sum(axis=1) / 6,
        held[:, 12:18].sum(axis=1) / 6,
        held[:, 18:23].sum(axis=1) / 6,
        np.maximum(x[:, :23] - 3, 0).sum(axis=1) / 15,
        (x * (ahead >= 4)).sum(axis=1) / 15,
        (x * (ahead >= 5)).sum(axis=1) / 15,
        (x * (ahead >= 6)).sum(axis=1) / 15,
        rear_block / 6,
        pressed,
        np.where(off, 0, np.clip((y_pips - entry) / 30, 0, 3)),
        sources / 18,
        (x[:, 6:] * front[:, 6:] / 6).sum(axis=1) / 15,
        x[:, :3].sum(axis=1) / 15,
        (x[:, 23] / 15) ** 2,
    ], axis=1)
    return out


def contact(me: Rows, opp: Rows) -> Flags:
    """Contact is left unless every checker of both sides is on its own
    points 1..12 (the two groups can never meet again)."""
    return np.asarray(me[:, 12:].any(axis=1) | opp[:, 12:].any(axis=1))


class StrategyEvaluation:
    """The evaluation in the net's interface (:class:`ai.long_net.LongNet`'s
    ``probs`` and ``value``): the side to roll's chance of winning (the
    other four outputs are 0: it plays for the win)."""

    def __init__(self, weights: Mapping[str, float] = STRATEGY_WEIGHTS) -> None:
        unknown = set(weights) - set(NAMES)
        if unknown:
            raise ValueError(f"no feature {sorted(unknown)!r}")
        self.weights = np.array([weights.get(name, 0.0) for name in NAMES])

    def logits(self, me: Rows, opp: Rows) -> Vector:
        me_f = np.asarray(me, dtype=np.float64)
        opp_f = np.asarray(opp, dtype=np.float64)
        # each side's opponent in its own numbering
        opp_seen = np.roll(opp_f, 12, axis=1)
        me_seen = np.roll(me_f, 12, axis=1)
        my_pips = me_f @ _POINTS
        their_pips = opp_f @ _POINTS
        mine = side(me_f, opp_seen, their_pips)
        theirs = side(opp_f, me_seen, my_pips)
        average = np.maximum((mine[:, 0] + theirs[:, 0]) / 2, 1.0)
        race = (theirs[:, 0] - mine[:, 0] + 4) / (RACE_SCALE * average)
        diff = mine - theirs
        diff[:, 0] = race
        logit = diff @ self.weights + ON_ROLL
        return np.where(contact(np.asarray(me), np.asarray(opp)), logit, race)

    def probs(self, me: Rows, opp: Rows) -> Matrix:
        logit = self.logits(me, opp)
        out = np.zeros((len(logit), 5))
        out[:, 0] = 1 / (1 + np.exp(-np.clip(logit, -30, 30)))
        return out

    def value(self, probs: Matrix, koks: bool = False) -> Vector:
        del koks
        return np.asarray(2 * probs[:, 0] - 1)


def parse_weights(settings: Sequence[str], base: Mapping[str, float]) -> dict[str, float]:
    """``base`` with the weights of ``settings`` (each ``NAME=W,NAME=W``, as
    the benchmarks' ``--weights`` take them) put in.

    >>> parse_weights(["head=-3,deep=-1"], {"head": -1.5, "race": 1.0})
    {'head': -3.0, 'race': 1.0, 'deep': -1.0}
    """
    weights = dict(base)
    for setting in settings:
        for item in setting.split(","):
            name, _, value = item.partition("=")
            weights[name] = float(value)
    return weights
