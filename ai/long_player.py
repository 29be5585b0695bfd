"""The long nardy brain: the self-taught net (:mod:`ai.long_net`) and a
search over the legal turns (:mod:`ai.long_search`).

* easy: 1 ply, plus Gaussian noise (sd 0.06 equity) on the turns within
  0.12 of the best;
* medium: 1 ply;
* strong: 1 ply, then 2 ply (the opponent's 21 rolls and its best reply)
  for the best three turns within 0.2 equity of the best.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from ai.long_net import LongNet
from ai.long_search import afterstate_equities, rows, two_ply
from ai.player import Depth, Level, Player
from engine import Position, Turn, Variant, end_turn

_NOISE = {Level.EASY: (0.06, 0.12)}
"""The easy level's noise and margin (see :meth:`Player.noisy_pick`)."""
_DEPTH = {Level.STRONG: Depth(candidates=3, margin=0.2)}


@cache
def shipped_net() -> LongNet:
    """The weights in the repository, loaded once per process."""
    return LongNet.load()


class LongNetPlayer(Player):
    """Long nardy at one of the three levels."""

    def __init__(
        self,
        level: Level = Level.STRONG,
        seed: int = 0,
        koks: bool = False,
        net: LongNet | None = None,
    ) -> None:
        super().__init__(Variant.LONG, seed, koks)
        self.level = level
        self.name = f"long-{level.value}"
        self.net = net or shipped_net()
        self.depth = _DEPTH.get(level, Depth())

    def shallow(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        """1 ply: the net on each position after a turn, in one batch."""
        side = position.turn
        movers = np.array([turn.position.board[side][:24] for turn in turns], dtype=np.int64)
        _, opponent = rows(position)
        return afterstate_equities(self.net, movers, opponent, self.koks)

    def deepen(self, position: Position, turns: Sequence[Turn], indices: Sequence[int]
               ) -> list[float]:
        """2 ply: the opponent's 21 rolls and its best reply to each."""
        return [two_ply(self.net, end_turn(turns[i].position), self.koks) for i in indices]

    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        if self.level in _NOISE:
            noise, margin = _NOISE[self.level]
            return self.noisy_pick(turns, self.shallow(position, turns), noise, margin)
        return super().pick(position, turns)

    def probabilities(self, position: Position) -> tuple[float, ...]:
        me, opponent = rows(position)
        probs = self.net.probs(me[None, :], opponent[None, :])[0]
        return tuple(float(v) for v in probs)
