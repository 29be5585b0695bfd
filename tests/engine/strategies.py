"""Positions for property tests and benchmarks, sampled from random games.

Random positions built point by point are mostly unreachable (and in long
nardy often illegal); positions met in games played with random legal turns
are what the engine really sees.  Everything is seeded, so a failing example
replays.

>>> sample = random_game_positions(Variant.LONG, seed=1, count=3)
>>> [position.first_turn for position, _ in sample]
[True, True, False]
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from hypothesis import strategies as st

from engine import Dice, Position, Side, Variant, end_turn, legal_turns

MAX_TURNS = 1000
"""A random game ends long before this; the cap only guards the loop."""


def random_game(variant: Variant, rng: random.Random) -> Iterator[tuple[Position, Dice]]:
    """The positions of one game of random legal turns, each with its roll."""
    position = Position.initial(variant, Side(rng.randint(0, 1)))
    for _ in range(MAX_TURNS):
        if position.winner is not None:
            return
        dice = Dice.roll(rng)
        yield position, dice
        position = end_turn(rng.choice(legal_turns(position, dice)).position)


def random_game_positions(variant: Variant, seed: int, count: int) -> list[tuple[Position, Dice]]:
    """``count`` positions with their rolls from games played with
    ``random.Random(seed)``, game after game."""
    rng = random.Random(seed)
    found: list[tuple[Position, Dice]] = []
    while len(found) < count:
        for item in random_game(variant, rng):
            found.append(item)
            if len(found) == count:
                break
    return found


@functools.cache
def position_pool(variant: Variant) -> tuple[Position, ...]:
    """A fixed pool of game positions that strategies draw from (built once)."""
    return tuple(position for position, _ in random_game_positions(variant, 2024, 1500))


def dice() -> st.SearchStrategy[Dice]:
    return st.builds(Dice, st.integers(1, 6), st.integers(1, 6))


def game_positions(variant: Variant) -> st.SearchStrategy[Position]:
    """Positions from random games of ``variant``; pair them with :func:`dice`."""
    return st.deferred(lambda: st.sampled_from(position_pool(variant)))
