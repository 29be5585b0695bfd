"""The computer player's strength and speed: prints figures for docs/ai.md.

    python benchmarks/ai_bench.py strength long --games 2000
    python benchmarks/ai_bench.py strength backgammon --games 1000
    python benchmarks/ai_bench.py timing long --games 20

``strength`` plays matches (cubeless, the starter alternating, dice from
``--seed``) and prints each result with its 95% confidence interval:

* long nardy: strong vs random, strong vs greedy, medium vs random, medium
  vs greedy, strong vs medium, medium vs easy, easy vs greedy;
* backgammon: strong vs gnubg-nn 0-ply (the medium level is exactly that),
  strong vs greedy, medium vs easy.

``--pairs`` picks some of them (e.g. ``--pairs strong-greedy,strong-random``).

``timing`` plays games of the strong level against the greedy player,
keeps the positions the strong level met (positions of real games) and
times its choice for each, once more, alone: p50 / p95 / max in wall-clock
and CPU milliseconds, for all turns and for doubles only; ``--level best``
times the best level's choice on those positions instead.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import GreedyPlayer, Level, Player, RandomPlayer, make_player
from ai.arena import match, play_game
from engine import Dice, Position, Side, Variant

PAIRS = {
    Variant.LONG: [
        "strong-random",
        "strong-greedy",
        "medium-random",
        "medium-greedy",
        "strong-medium",
        "medium-easy",
        "easy-greedy",
    ],
    Variant.BACKGAMMON: ["strong-medium", "strong-greedy", "medium-easy"],
}


def player(variant: Variant, name: str, seed: int) -> Player:
    if name == "random":
        return RandomPlayer(variant, seed)
    if name == "greedy":
        return GreedyPlayer(variant, seed)
    return make_player(variant, Level(name), seed)


def strength(variant: Variant, games: int, seed: int, pairs: list[str]) -> None:
    for pair in pairs:
        first, second = pair.split("-")
        start = time.monotonic()
        score = match(player(variant, first, 1), player(variant, second, 2), games, seed)
        label = "gnubg-0ply" if variant is Variant.BACKGAMMON and second == "medium" else second
        print(
            f"{variant.value:10} {first:6} vs {label:10} {score}  "
            f"[{time.monotonic() - start:.0f} s]",
            flush=True,
        )


def _met(variant: Variant, games: int, seed: int) -> list[tuple[Position, Dice]]:
    """The positions (and rolls) the strong level met on roll in games
    against the greedy player.  Run in a process of its own, so that the
    evaluations remembered while playing (our look-ahead cache, gnubg's own
    cache) are not there when the choices are timed."""
    strong = make_player(variant, Level.STRONG, seed)
    seen = []
    for i in range(games):
        record = play_game(
            strong, GreedyPlayer(variant, seed), random.Random(seed + i), i % 2 == 0, keep=True
        )
        seen += [(p, d) for p, d in record.positions if p.turn is Side.WHITE]
    return seen


def timing(variant: Variant, games: int, seed: int, level: Level = Level.STRONG) -> None:
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        seen = pool.submit(_met, variant, games, seed).result()
    strong = make_player(variant, level, seed)
    walls, cpus, doubles = [], [], []
    for position, dice in seen:
        wall, cpu = time.perf_counter(), time.process_time()
        strong.choose(position, dice)
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
        doubles.append(dice.is_double)
    wall_ms, cpu_ms, is_double = np.array(walls), np.array(cpus), np.array(doubles)

    def line(label: str, values: np.ndarray) -> str:
        p50, p95 = np.percentile(values, [50, 95])
        return f"{label} p50 {p50:.1f} p95 {p95:.1f} max {values.max():.1f} ms"

    print(f"{variant.value}: {level.value} level, {len(walls)} turns of {games} games")
    print("  all turns:    " + line("wall", wall_ms) + "; " + line("cpu", cpu_ms))
    print(
        "  doubles only: "
        + line("wall", wall_ms[is_double])
        + "; "
        + line("cpu", cpu_ms[is_double])
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["strength", "timing"])
    parser.add_argument("variant", choices=[v.value for v in Variant])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", default="", help="comma-separated, e.g. strong-greedy")
    parser.add_argument("--level", default="strong", choices=[level.value for level in Level],
                        help="timing: the level timed (on the strong level's positions)")
    args = parser.parse_args()
    variant = Variant(args.variant)
    if args.what == "timing":
        timing(variant, args.games, args.seed, Level(args.level))
    else:
        pairs = args.pairs.split(",") if args.pairs else PAIRS[variant]
        strength(variant, args.games, args.seed, pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
