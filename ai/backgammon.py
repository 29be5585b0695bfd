"""The backgammon brain: GNU Backgammon's neural nets through ``gnubg-nn``.

Our boards already use gnubg's layout: :meth:`engine.Position.to_gnubg`
gives ``[opponent, side on roll]``, each side's own points 1..24 then its
bar (``tests/ai`` checks it against our Position IDs).  A turn is scored by
the position after it, the opponent on roll: gnubg's estimate for the
opponent, turned round.

* easy: 0-ply with a beginner's mistakes (:data:`NOISE`, the model of
  :class:`ai.player.Noise`): a softmax over the turns within the cap, and
  now and then the one-look heuristic's favourite;
* medium: 0-ply with an intermediate player's smaller mistakes;
* strong: 1-ply (gnubg's own 21-roll look-ahead) on the best eight turns by
  0-ply within 0.16 equity of the best;
* best: the strong ranking, then gnubg's 2-ply on its best four within 0.16
  (what the strong level's hint shows).

Match cube decisions (a centred cube or the doubler's own) are gnubg's
cubeful match equities at the score on this level's probabilities
(:mod:`ai.matchequity`, the same figures the analysis judges them by); money
games use :mod:`ai.cube`'s rule.  gnubg's settings are process-global: use
one player per process (or thread lock) when deciding cubes for matches.
"""

from __future__ import annotations

from collections.abc import Sequence

import gnubg_nn
import numpy as np

from ai.cube import CubeState, cubeless_equity
from ai.matchequity import match_double, match_take
from ai.player import Depth, Level, Noise, Player, RankedTurn
from engine import Dice, Game, Position, Side, Turn, Variant
from engine.scoring import classify

NOISE = {
    Level.EASY: Noise(temperature=0.075, cap=0.30, hunch=0.25),
    Level.MEDIUM: Noise(temperature=0.0375, cap=0.20, hunch=0.10),
}
"""The levels' mistakes (:class:`ai.player.Noise`), tuned by
``benchmarks/levels_bench.py`` so that each level beats the one below in
about 62-65% of the games (docs/ai.md, "Levels")."""
_DEPTH = {Level.STRONG: Depth(candidates=8, margin=0.16),
          Level.BEST: Depth(candidates=8, margin=0.16)}
HINT_DEPTH = Depth(candidates=4, margin=0.16)
"""The strong level's hints and the best level's play: the best 4 within
0.16 again at 2-ply."""


def _final_points(position: Position, winner: Side) -> float:
    kind = classify(position)
    value = kind.multiplier
    return float(value) if winner is position.turn else -float(value)


def after_turn_probs(position: Position, plies: int) -> tuple[float, ...]:
    """gnubg's five probabilities for the side that just moved into
    ``position`` (still its ``turn``), the opponent on roll next."""
    board = position.to_gnubg()
    # the opponent on roll: it becomes board[1]
    probs = gnubg_nn.probabilities([board[1], board[0]], plies)
    win, wg, wbg, lg, lbg = probs
    return (1 - win, lg, lbg, wg, wbg)


def on_roll_probs(position: Position) -> tuple[float, ...]:
    """gnubg's five 0-ply probabilities for the side on roll in ``position``."""
    return tuple(gnubg_nn.probabilities(position.to_gnubg(), 0))


def turn_equity(turn: Turn, plies: int) -> float:
    """The mover's cubeless equity after ``turn``."""
    after = turn.position
    if after.winner is not None:
        return _final_points(after, after.winner)
    return cubeless_equity(after_turn_probs(after, plies))


class GnubgPlayer(Player):
    """Backgammon at one of the four levels (:class:`ai.player.Level`)."""

    def __init__(self, level: Level = Level.STRONG, seed: int = 0) -> None:
        super().__init__(Variant.BACKGAMMON, seed)
        self.level = level
        self.name = f"gnubg-{level.value}"
        self.depth = _DEPTH.get(level, Depth())
        self.noise = NOISE.get(level)

    def shallow(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        """gnubg's 0-ply."""
        return np.array([turn_equity(turn, 0) for turn in turns])

    def deepen(self, position: Position, turns: Sequence[Turn], indices: Sequence[int]
               ) -> list[float]:
        """gnubg's 1-ply (its own 21-roll look-ahead)."""
        return [turn_equity(turns[i], 1) for i in indices]

    def rank(
        self, position: Position, turns: Sequence[Turn], also: Sequence[int] = (),
        full: bool = False, judging: bool = False,
    ) -> list[RankedTurn]:
        """The best level looks at the strong ranking's first few again at
        2-ply (:func:`two_ply`), judging a game too; the others rank as
        :class:`Player` does."""
        ranked = super().rank(position, turns, also, full, judging)
        if self.level is not Level.BEST:
            return ranked
        played = [turns[i].position for i in also]
        return two_ply(ranked, played, full)

    def hint_ranked(self, state: Position | Game, dice: Dice | None = None) -> list[RankedTurn]:
        """The strong level's hint: its ranking, then the best
        :data:`HINT_DEPTH` candidates (within its margin) again at gnubg's
        2-ply, best first (docs/ai.md: about 0.1-0.3 s of CPU); the best
        level's own ranking is that already."""
        ranked = self.ranked(state, dice)
        if self.level is not Level.STRONG:
            return ranked
        return two_ply(ranked, (), True)

    def probabilities(self, position: Position) -> tuple[float, ...]:
        plies = 1 if self.level in (Level.STRONG, Level.BEST) else 0
        return tuple(gnubg_nn.probabilities(position.to_gnubg(), plies))

    def should_double(self, position: Position, cube: CubeState) -> bool:
        if not cube.may_double(position.turn):
            return False
        if cube.match_length:
            return match_double(self.probabilities(position), cube, position.turn)
        return super().should_double(position, cube)

    def should_take(self, position: Position, cube: CubeState) -> bool:
        if cube.match_length:
            return match_take(self.probabilities(position), cube, position.turn)
        return super().should_take(position, cube)


def two_ply(ranked: list[RankedTurn], also: Sequence[Position], full: bool) -> list[RankedTurn]:
    """``ranked`` with its best :data:`HINT_DEPTH` candidates (within its
    margin) and the turns ending in ``also`` valued again at gnubg's 2-ply,
    those first, best first; ``full``: even when one candidate is left."""
    if len(ranked) < 2:
        return ranked
    best = ranked[0].equity
    top = [index for index, entry in enumerate(ranked[: HINT_DEPTH.candidates])
           if entry.equity >= best - HINT_DEPTH.margin]
    top += [index for index, entry in enumerate(ranked)
            if entry.turn.position in also and index not in top]
    if len(top) < 2 and not full:
        return ranked
    deeper = sorted((RankedTurn(ranked[i].turn, turn_equity(ranked[i].turn, 2)) for i in top),
                    key=lambda entry: -entry.equity)
    return deeper + [entry for index, entry in enumerate(ranked) if index not in top]
