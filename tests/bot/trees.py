"""The turn tree the board app is sent (:func:`bot.present.webstate.turn_tree`),
walked as a player in the app would."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.position import Step

Edge = dict[str, Any]
"""One step out of a node: ``step`` (its wire form), ``from``, ``to``, ``next``."""


def walk(tree: Sequence[dict[str, Any]],
         pick: Callable[[Sequence[Edge]], Edge] = lambda edges: edges[0]) -> list[Edge]:
    """The steps of a whole turn, from the root to a complete node, each
    chosen among its node's by ``pick`` (the first, unless told)."""
    node, path = 0, []
    while not tree[node]["complete"]:
        edge = pick(tree[node]["steps"])
        path.append(edge)
        node = edge["next"]
    return path


def random_turn(tree: Sequence[dict[str, Any]], rng: random.Random) -> list[Step]:
    """A whole turn of random steps."""
    return [Step(*edge["step"]) for edge in walk(tree, rng.choice)]
