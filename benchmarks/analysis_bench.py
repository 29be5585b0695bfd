"""How long a whole game's analysis takes: prints figures for docs/analysis.md.

    python benchmarks/analysis_bench.py --games 20
    python benchmarks/analysis_bench.py --games 10 --variant long --level strong
    python benchmarks/analysis_bench.py --errors --games 10

Plays ``--games`` games of each variant through the engine (ai.arena's
``play_recorded``: the easy level against the medium one, so there are
mistakes to find; backgammon with the cube, money play), then times
:func:`ai.analysis.analyse` on each game at ``--level`` (default: the
analysis default, strong) in this process, one game after the other, each
on a fresh player (no evaluation cached from playing it).  Prints, per
variant, the turns per game and the wall-clock and CPU seconds per game:
median, 95th percentile and maximum, and the machine's load average.
(numpy is first imported by ``ai``, which keeps OpenBLAS to one thread.)

``--errors`` measures instead what the analysis says of known players:
the greedy baseline and the easy and medium levels, each playing
``--games`` games against the strong level (cubeless), analysed at the
strong depth: decisions per game, the mean error rate, the percentiles of
the loss per decision, and how many decisions per game each grade gets
(the figures behind long nardy's thresholds in docs/analysis.md).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import GreedyPlayer, Level, Player, make_player
from ai.analysis import THRESHOLDS, analyse
from ai.arena import play_recorded
from engine import Game, GameOptions, Variant


def games(variant: Variant, count: int, seed: int) -> list[Game]:
    options = GameOptions.backgammon() if variant is Variant.BACKGAMMON else GameOptions.long()
    played = []
    for index in range(count):
        players = [make_player(variant, Level.EASY, seed + index),
                   make_player(variant, Level.MEDIUM, seed + index)]
        if index % 2:
            players.reverse()
        played.append(play_recorded(players, random.Random(seed * 1000 + index), options))
    return played


def figures(values: list[float]) -> str:
    p95 = statistics.quantiles(values, n=20, method="inclusive")[-1] if values[1:] else values[0]
    return f"median {statistics.median(values):.2f}  p95 {p95:.2f}  max {max(values):.2f}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def errors(variant: Variant, count: int, seed: int) -> None:
    options = GameOptions(variant)
    doubtful, bad, very_bad = THRESHOLDS[variant]
    print(f"{variant.value}: thresholds {doubtful} / {bad} / {very_bad}")
    for name in ("greedy", "easy", "medium"):
        losses: list[float] = []
        rates: list[float] = []
        grades = [0, 0, 0]
        for index in range(count):
            player: Player = (GreedyPlayer(variant, seed + index) if name == "greedy"
                              else make_player(variant, Level(name), seed + index))
            players = [player, make_player(variant, Level.STRONG, seed + index)]
            game = play_recorded(players, random.Random(seed * 1000 + index), options)
            analysis = analyse(game)
            report = analysis.players[0]
            rates.append(report.error_rate)
            losses += [d.loss for d in analysis.decisions if d.side.value == 0]
            grades = [grades[0] + report.doubtful, grades[1] + report.bad,
                      grades[2] + report.very_bad]
        shares = " / ".join(f"{percentile(losses, q):.3f}" for q in (0.5, 0.9, 0.95, 0.99))
        print(f"  {name:6} vs strong: {len(losses) / count:.1f} decisions per game, error rate "
              f"{statistics.mean(rates):.1f}, loss p50/p90/p95/p99 {shares}, doubtful/bad/very "
              f"bad per game {' / '.join(f'{g / count:.1f}' for g in grades)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", choices=[level.value for level in Level], default="strong")
    parser.add_argument("--variant", choices=["both", *(v.value for v in Variant)],
                        default="both")
    parser.add_argument("--errors", action="store_true", help="what analysis says of players")
    args = parser.parse_args()
    level = Level(args.level)
    variants = list(Variant) if args.variant == "both" else [Variant(args.variant)]
    if args.errors:
        for variant in variants:
            errors(variant, args.games, args.seed)
        return
    print(f"load average before: {os.getloadavg()[0]:.1f}; level {level.value}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
    for variant in variants:
        played = games(variant, args.games, args.seed)
        turns = [sum(event.action.value == "move" for event in game.events) for game in played]
        wall, cpu = [], []
        for game in played:
            start, start_cpu = time.perf_counter(), time.process_time()
            analyse(game, level=level)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        print(f"{variant.value}: {len(played)} games, turns per game "
              f"{figures([float(t) for t in turns])}")
        print(f"  wall s per game: {figures(wall)}")
        print(f"  CPU s per game:  {figures(cpu)}")
        print(f"  load average now: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
