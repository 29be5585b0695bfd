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
from ai.player import Level, Player
from engine import Position, Turn, Variant, end_turn

_SETTINGS = {
    Level.EASY: {"noise": 0.06, "margin": 0.12, "deep": 0},
    Level.MEDIUM: {"noise": 0.0, "margin": 0.0, "deep": 0},
    Level.STRONG: {"noise": 0.0, "margin": 0.2, "deep": 3},
}


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
        self.settings = _SETTINGS[level]

    def pick(self, position: Position, turns: Sequence[Turn]) -> Turn:
        side = position.turn
        movers = np.array([turn.position.board[side][:24] for turn in turns], dtype=np.int64)
        _, opponent = rows(position)
        values = afterstate_equities(self.net, movers, opponent, self.koks)
        settings = self.settings
        best = float(values.max())
        if settings["noise"]:
            return self.noisy_pick(turns, values, settings["noise"], settings["margin"])
        if settings["deep"]:
            ranked = np.argsort(-values, kind="stable")[: int(settings["deep"])]
            order = [int(i) for i in ranked if values[i] >= best - settings["margin"]]
            if len(order) > 1:
                deeper = [two_ply(self.net, end_turn(turns[i].position), self.koks) for i in order]
                return turns[order[int(np.argmax(deeper))]]
        return turns[int(np.argmax(values))]

    def probabilities(self, position: Position) -> tuple[float, ...]:
        me, opponent = rows(position)
        probs = self.net.probs(me[None, :], opponent[None, :])[0]
        return tuple(float(v) for v in probs)
