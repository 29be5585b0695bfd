"""Helpers for tests that play games: scripted dice and random play."""

from __future__ import annotations

import random

from engine.game import Game, Phase


class Scripted:
    """A RandomSource that returns the given dice, in order."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def randint(self, a: int, b: int) -> int:
        value = self.values.pop(0)
        assert a <= value <= b
        return value


def play_random(game: Game, rng: random.Random, *, stop: int = 10_000) -> list[Game]:
    """Play random legal steps until the game ends (or ``stop`` actions);
    every intermediate game is returned."""
    seen = [game]
    while not game.is_over and len(seen) < stop:
        if game.phase in {Phase.OPENING, Phase.ROLL}:
            game = game.roll(rng)
        elif game.turn is not None and game.turn.is_complete:
            game = game.confirm()
        else:
            game = game.play_step(rng.choice(sorted(game.legal_steps, key=repr)))
        seen.append(game)
    return seen
