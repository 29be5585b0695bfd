"""The yardstick of the long nardy brain: a hand-tuned expectimax player.

Issue 38 measures the strong level against "a hand-tuned 1-ply expectimax
player"; this is the project's own such player, so the figure can be
reproduced (``benchmarks/long_yardstick.py``).  Nothing is learned while
it plays:

* the evaluation: by default :class:`ai.long_hand.StrategyEvaluation`,
  features of long nardy strategy (blocks and the checkers trapped behind
  them, the head, quarters, waste, mars) with weights tuned by play
  (docs/ai.md, "The yardstick").  The first yardstick's
  :class:`HandEvaluation` stays for comparison: a weighted sum of
  features of :mod:`ai.long_features` - the pip race, checkers still on
  the head, the longest block and points held, the home board, blocks in
  the opponent's home, mobility, stacks, checkers borne off and the
  danger of mars - each side's taken from the other's, with weights
  fitted to the net's logit (:data:`HAND_WEIGHTS`), so it shared the net's
  blind spots; in a pure race the pip counts alone, the side to roll
  getting half a roll;
* the search: every legal turn is valued by the expectation over the
  opponent's 21 rolls of the position after its best reply by the same
  evaluation ("1-ply expectimax" as the issue says it: one ply of chance
  and reply below each turn; in docs/ai.md's words, 2 ply for every turn).

It is the same search as the strong level's deeper look
(:func:`ai.long_search.roll_values`) with the hand evaluation in place of
the net, over every turn rather than the best few.  Deterministic: no
draw is made; among equal turns the first in :func:`engine.legal_turns`'s
order wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ai.long_features import INDEX, SIDE_NAMES, SIZE, Matrix, Rows, features
from ai.long_hand import StrategyEvaluation
from ai.long_net import Evaluation, Vector
from ai.long_search import CHANCES, afterstate_equities, roll_values, rows
from ai.player import Depth, Player
from engine import Position, Turn, Variant, end_turn

HAND_WEIGHTS: Mapping[str, float] = {
    "pips": -1.4,
    "off": 9.0,
    "home": 3.5,
    "head": -0.9,
    "entry": -3.6,
    "mars_margin": 0.15,
    "mobility_2": 0.3,
    "mobility_3": 0.5,
    "mobility_5": 0.8,
    "mobility_6": 0.9,
    "run": 1.2,
    "spread": -1.8,
    "their_home": -1.2,
    "start_quarter": -1.8,
    "stack": -0.6,
}
"""Logit weights of each side's features (mine counted +, the opponent's
the same feature -): a least-squares fit of the logit of the net's chance
of winning over the contact positions of 30 games of the medium level
against itself, rounded (``benchmarks/long_yardstick.py --fit``), then
checked against the medium level (docs/ai.md, "The yardstick")."""
ON_ROLL = 0.2
"""Logit of being on roll in contact."""
RACE_SCALE = 0.11
"""Race: the logit is ``(lead + 4 pips for the roll) / (RACE_SCALE x the
average pip count)``: a lead of 10% of the count wins about 3 in 4."""


def weight_vector(weights: Mapping[str, float]) -> Vector:
    """The antisymmetric weight vector over :data:`ai.long_features.NAMES`."""
    vector = np.zeros(SIZE)
    for name, weight in weights.items():
        if name not in SIDE_NAMES:
            raise ValueError(f"no side feature {name!r}")
        vector[INDEX[f"me_{name}"]] = weight
        vector[INDEX[f"opp_{name}"]] = -weight
    return vector


class HandEvaluation:
    """The hand-made evaluation, in the net's interface
    (:class:`ai.long_net.LongNet`'s ``probs`` and ``value``): the side to
    roll's chance of winning (mars is not estimated: the other four
    outputs are 0)."""

    def __init__(self, weights: Mapping[str, float] = HAND_WEIGHTS) -> None:
        self.weights = weight_vector(weights)

    def probs(self, me: Rows, opp: Rows) -> Matrix:
        # fitted on the nets' old sums (ai.long_features._legacy_sums), kept as fitted
        x = features(me, opp, legacy=True)
        logit = x @ self.weights + ON_ROLL
        race = x[:, INDEX["race"]] > 0
        if race.any():
            mine = x[race, INDEX["me_pips"]] * 360
            theirs = x[race, INDEX["opp_pips"]] * 360
            average = np.maximum((mine + theirs) / 2, 1.0)
            logit[race] = (theirs - mine + 4) / (RACE_SCALE * average)
        win = 1 / (1 + np.exp(-np.clip(logit, -30, 30)))
        out = np.zeros((len(x), 5))
        out[:, 0] = win
        return out

    def value(self, probs: Matrix, koks: bool = False) -> Vector:
        del koks
        return np.asarray(2 * probs[:, 0] - 1)


class ExpectimaxPlayer(Player):
    """The yardstick: every legal turn by the expectation over the
    opponent's rolls of its best reply, by ``evaluation`` (by default
    :class:`ai.long_hand.StrategyEvaluation`, the hand-tuned one; the
    first yardstick's :class:`HandEvaluation` with ``weights``).
    ``greedy``: the same evaluation at 1 ply alone (each turn by the
    position after it) - how its weights were tuned, cheaply."""

    name = "long-expectimax"
    depth = Depth(candidates=10**6, margin=float("inf"))

    def __init__(self, seed: int = 0, koks: bool = False,
                 weights: Mapping[str, float] | None = None,
                 evaluation: Evaluation | None = None, greedy: bool = False) -> None:
        super().__init__(Variant.LONG, seed, koks)
        if evaluation is None:
            evaluation = (StrategyEvaluation() if weights is None
                          else HandEvaluation(weights))
        self.evaluation = evaluation
        if greedy:
            self.depth = Depth()

    def shallow(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        side = position.turn
        movers = np.array([turn.position.board[side][:24] for turn in turns], dtype=np.int64)
        _, opponent = rows(position)
        return afterstate_equities(self.evaluation, movers, opponent, self.koks)

    def deepen(self, position: Position, turns: Sequence[Turn], indices: Sequence[int]
               ) -> list[float]:
        values = roll_values(self.evaluation, [end_turn(turns[i].position) for i in indices],
                             self.koks)
        return [-float(row @ CHANCES) for row in values]
