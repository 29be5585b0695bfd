"""The computer player: brains for long nardy and backgammon.

>>> from engine import Dice, Position, Variant, legal_turns
>>> player = make_player(Variant.LONG, Level.EASY, seed=1)
>>> start = Position.initial(Variant.LONG)
>>> player.choose(start, Dice(6, 5)) in legal_turns(start, Dice(6, 5))
True
"""

from __future__ import annotations

import os

# The brains multiply small matrices (a few hundred rows by 184 or 64): OpenBLAS's
# threads only add waiting on a shared 2-core machine (measured: the long nardy
# net on 400 rows took 15 ms with its default threads under load, 0.5 ms with
# one; docs/analysis.md).  It reads this when numpy loads, so it applies where
# ``ai`` is imported before numpy (the bot's processes; set it in the environment
# otherwise).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ai.cube import CubeState
from ai.player import AIError, GreedyPlayer, Level, Player, RandomPlayer, RankedTurn
from engine import Variant

__all__ = [
    "AIError",
    "CubeState",
    "GreedyPlayer",
    "Level",
    "Player",
    "RandomPlayer",
    "RankedTurn",
    "make_player",
]


def make_player(variant: Variant, level: Level, seed: int = 0, koks: bool = False) -> Player:
    """The computer player for ``variant`` at ``level`` (deterministic for
    ``seed``; ``koks``: the long nardy house rule is on)."""
    if variant is Variant.LONG:
        from ai.long_player import LongNetPlayer

        return LongNetPlayer(level, seed, koks)
    from ai.backgammon import GnubgPlayer

    return GnubgPlayer(level, seed)
