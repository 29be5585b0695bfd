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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ai.cube import CubeState
from ai.player import Player
from engine import Dice, Game, GameOptions, Phase, Position, RandomSource, Side, end_turn
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


def play_recorded(
    players: Sequence[Player], rng: RandomSource, options: GameOptions | None = None,
    start: Game | None = None, score: tuple[int, int] = (0, 0),
) -> Game:
    """One whole game through the engine's :class:`Game` (what the bot
    stores), ``players[0]`` White: the opening roll, each turn chosen by its
    player and, with the cube (money play), the players' doubles, takes and
    passes.  ``rng`` rolls all dice (a scripted source sets them).
    ``start``: a game already under way to play on to its end (not in the
    middle of a turn).  ``score``: in a match (``options.match_length``),
    the points (White, Black) before this game: the cube is then decided at
    the match score, as the bot's computer does."""
    variant = players[0].variant
    if start is not None:
        game, options = start, start.options
    else:
        options = options or GameOptions(variant)
        game = Game.new(options).roll(rng)
    while game.result is None:
        side = game.to_act
        assert side is not None
        player = players[side]
        if game.phase is Phase.ROLL:
            cube = game.cube
            if cube is not None and game.can_double(side):
                state = CubeState(cube.value, cube.owner, options.match_length, score,
                                  game.crawford, options.jacoby, options.max_cube)
                if player.should_double(game.turn_start, state):
                    game = game.double(side)
                    continue
            game = game.roll(rng)
        elif game.phase is Phase.DOUBLE:
            assert game.cube is not None
            state = CubeState(game.cube.value, game.cube.owner, options.match_length, score,
                              game.crawford, options.jacoby)
            taken = player.should_take(game.turn_start, state)
            game = game.take(side) if taken else game.pass_(side)
        else:
            for step in player.choose(game).steps:
                game = game.play_step(step)
            game = game.confirm()
    return game


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
