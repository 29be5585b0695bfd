"""The computer player: brains for long nardy and backgammon.

>>> from engine import Dice, Position, Variant, legal_turns
>>> player = make_player(Variant.LONG, Level.EASY, seed=1)
>>> start = Position.initial(Variant.LONG)
>>> player.choose(start, Dice(6, 5)) in legal_turns(start, Dice(6, 5))
True
"""

from __future__ import annotations

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
