"""The backgammon brain: GNU Backgammon's neural nets through ``gnubg-nn``.

Our boards already use gnubg's layout: :meth:`engine.Position.to_gnubg`
gives ``[opponent, side on roll]``, each side's own points 1..24 then its
bar (``tests/ai`` checks it against our Position IDs).  A turn is scored by
the position after it, the opponent on roll: gnubg's estimate for the
opponent, turned round.

* easy: 0-ply, plus Gaussian noise (sd 0.05 equity) on the turns within
  0.10 of the best - mistakes a beginner makes, never a blunder;
* medium: 0-ply;
* strong: 1-ply (gnubg's own 21-roll look-ahead) on the best eight turns by
  0-ply within 0.16 equity of the best.

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
from ai.player import Depth, Level, Player, RankedTurn
from engine import Dice, Game, Position, Side, Turn, Variant
from engine.scoring import classify

_NOISE = {Level.EASY: (0.05, 0.10)}
"""The easy level's noise and margin (see :meth:`Player.noisy_pick`)."""
_DEPTH = {Level.STRONG: Depth(candidates=8, margin=0.16)}
HINT_DEPTH = Depth(candidates=4, margin=0.16)
"""The strong level's hints: the best 4 within 0.16 again at 2-ply."""


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
    """Backgammon at one of the three levels."""

    def __init__(self, level: Level = Level.STRONG, seed: int = 0) -> None:
        super().__init__(Variant.BACKGAMMON, seed)
        self.level = level
        self.name = f"gnubg-{level.value}"
        self.depth = _DEPTH.get(level, Depth())

    def shallow(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        """gnubg's 0-ply."""
        return np.array([turn_equity(turn, 0) for turn in turns])

    def deepen(self, position: Position, turns: Sequence[Turn], indices: Sequence[int]
               ) -> list[float]:
        """gnubg's 1-ply (its own 21-roll look-ahead)."""
        return [turn_equity(turns[i], 1) for i in indices]

    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        if self.level in _NOISE:
            noise, margin = _NOISE[self.level]
            return self.noisy_pick(turns, self.shallow(position, turns), noise, margin)
        return super().pick(position, turns)

    def hint_ranked(self, state: Position | Game, dice: Dice | None = None) -> list[RankedTurn]:
        """The strong level's hint: its ranking, then the best
        :data:`HINT_DEPTH` candidates (within its margin) again at gnubg's
        2-ply, best first (docs/ai.md: about 0.1-0.3 s of CPU)."""
        ranked = self.ranked(state, dice)
        if self.level is not Level.STRONG or len(ranked) < 2:
            return ranked
        best = ranked[0].equity
        top = [entry for entry in ranked[: HINT_DEPTH.candidates]
               if entry.equity >= best - HINT_DEPTH.margin]
        deeper = sorted((RankedTurn(entry.turn, turn_equity(entry.turn, 2)) for entry in top),
                        key=lambda entry: -entry.equity)
        return deeper + ranked[len(top):]

    def probabilities(self, position: Position) -> tuple[float, ...]:
        plies = 1 if self.level is Level.STRONG else 0
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
