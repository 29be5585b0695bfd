"""Games between two players, for benchmarks and tests (cubeless: the
cube is judged on its own, in tests).

>>> from ai.player import RandomPlayer
>>> from engine import Variant
>>> a, b = RandomPlayer(Variant.LONG, 1), RandomPlayer(Variant.LONG, 2)
>>> result = play_game(a, b, random.Random(3))
>>> result.winner in (0, 1), result.points in (1, 2)
(True, True)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ai.player import Player
from engine import Dice, Position, Side, end_turn
from engine.scoring import classify


@dataclass(frozen=True, slots=True)
class GameRecord:
    winner: int
    """0: the first player, 1: the second."""
    points: int
    turns: int
    positions: tuple[tuple[Position, Dice], ...] = ()


def play_game(
    first: Player,
    second: Player,
    rng: random.Random,
    first_starts: bool = True,
    keep: bool = False,
    timer: Callable[[float], object] | None = None,
) -> GameRecord:
    """One game; the first player plays White.  ``keep`` records every
    position and roll; ``timer`` gets each choice's seconds."""
    variant = first.variant
    players = {Side.WHITE: first, Side.BLACK: second}
    starter = Side.WHITE if first_starts else Side.BLACK
    position = Position.initial(variant, starter)
    seen: list[tuple[Position, Dice]] = []
    turns = 0
    opening = True
    while True:
        dice = Dice.roll(rng)
        if opening and variant.value == "backgammon":
            while dice.is_double:
                dice = Dice.roll(rng)
        opening = False
        if keep:
            seen.append((position, dice))
        start = time.perf_counter()
        turn = players[position.turn].choose(position, dice)
        if timer is not None:
            timer(time.perf_counter() - start)
        turns += 1
        after = turn.position
        if after.winner is not None:
            kind = classify(after, koks=first.koks)
            return GameRecord(int(after.winner), kind.multiplier, turns, tuple(seen))
        position = end_turn(after)


@dataclass(frozen=True, slots=True)
class Score:
    games: int
    wins: int
    points: int
    """Net points of the first player."""

    @property
    def rate(self) -> float:
        return self.wins / self.games

    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        n, p, z = self.games, self.rate, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return centre - half, centre + half

    def __str__(self) -> str:
        low, high = self.interval()
        return (
            f"{self.wins}/{self.games} won = {100 * self.rate:.1f}% "
            f"(95% CI {100 * low:.1f}-{100 * high:.1f}%), "
            f"{self.points / self.games:+.3f} points/game"
        )


def match(first: Player, second: Player, games: int, seed: int) -> Score:
    """``games`` games, the starter alternating; dice from ``seed``."""
    wins = points = 0
    for i in range(games):
        record = play_game(first, second, random.Random(seed * 1_000_003 + i), i % 2 == 0)
        won = record.winner == 0
        wins += won
        points += record.points if won else -record.points
    return Score(games, wins, points)
