"""Does the analysis add up?  The luck + skill identity over played games.

    python benchmarks/identity_bench.py --games 100
    python benchmarks/identity_bench.py --games 40 --variant backgammon --pairing self
    python benchmarks/identity_bench.py --games 120 --variant long --level medium --quiet

For a game analysed with one value function, White's result is what the
game was worth before its first roll plus White's luck minus Black's, minus
the points White's decisions lost plus Black's, plus what the evaluation
changed its mind by between its depths (the drift; :func:`ai.analysis.balance`,
docs/analysis.md "Luck and skill add up").  This plays ``--games`` cubeless
games through the engine (``ai.arena.play_recorded``; ``--pairing``:
``strong-medium``, the strong level against the medium one with the colours
alternating, or ``self``, the strong level on both sides), analyses each at
the strong depth and prints, per game, the result, the luck difference, the
error difference, the start value, the drift and the residual ``result -
start - luck + error - drift``; then the residual's mean with a 95% interval (normal, from the
games' spread), its largest size, and the luck per roll over all rolls
(each roll against the average of the 21 of its position: 0 on average).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import Level, make_player
from ai.analysis import Balance, analyse, balance
from ai.arena import play_recorded
from engine import GameOptions, Variant


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% normal interval."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if values[1:] else 0.0
    return mean, mean - half, mean + half


def run(variant: Variant, games: int, seed: int, pairing: str, quiet: bool,
        level: Level = Level.STRONG) -> None:
    options = GameOptions(variant)  # cubeless: the identity is about moves and dice
    balances: list[Balance] = []
    lucks: list[float] = []
    print(f"{variant.value}: {games} games, {pairing}, analysed at the {level.value} depth")
    if not quiet:
        print("  game  starter  result    luck   error   start   drift  residual")
    for index in range(games):
        levels = (Level.STRONG, Level.STRONG if pairing == "self" else Level.MEDIUM)
        players = [make_player(variant, level, seed * 1000 + index + 500 * i)
                   for i, level in enumerate(levels)]
        if index % 2:
            players.reverse()
        game = play_recorded(players, random.Random(seed * 1_000_003 + index), options)
        analysis = analyse(game, level=level)
        check = balance(analysis)
        balances.append(check)
        lucks.extend(analysis.luck)
        if not quiet:
            print(f"  {index:4}  {analysis.movers[0].name.lower():7}  {check.result:+5.0f}  "
                  f"{check.luck:+6.3f}  {check.error:+6.3f}  {check.start:+6.3f}  "
                  f"{check.drift:+6.3f}  {check.residual:+8.4f}")
    residuals = [b.residual for b in balances]
    mean, low, high = interval(residuals)
    print(f"  residual per game: mean {mean:+.4f} (95% {low:+.4f} .. {high:+.4f}), "
          f"sd {statistics.pstdev(residuals):.4f}, largest {max(map(abs, residuals)):.1e}")
    mean, low, high = interval([b.drift for b in balances])
    print(f"  drift per game: mean {mean:+.4f} (95% {low:+.4f} .. {high:+.4f})")
    raw = [b.result - b.luck + b.error for b in balances]
    mean, low, high = interval(raw)
    print(f"  result - luck + error (start left in): mean {mean:+.4f} "
          f"(95% {low:+.4f} .. {high:+.4f})")
    mean, low, high = interval(lucks)
    print(f"  luck per roll over {len(lucks)} rolls: mean {1000 * mean:+.1f} millipoints "
          f"(95% {1000 * low:+.1f} .. {1000 * high:+.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", choices=["both", *(v.value for v in Variant)],
                        default="both")
    parser.add_argument("--pairing", choices=["strong-medium", "self"], default="strong-medium")
    parser.add_argument("--quiet", action="store_true", help="only the summary lines")
    parser.add_argument("--level", choices=[level.value for level in Level], default="strong",
                        help="the depth analysed at (the luck is the same at every depth: "
                        "medium is the quick way to count many rolls)")
    args = parser.parse_args()
    variants = [Variant.LONG, Variant.BACKGAMMON] if args.variant == "both" else [
        Variant(args.variant)]
    for variant in variants:
        run(variant, args.games, args.seed, args.pairing, args.quiet, Level(args.level))


if __name__ == "__main__":
    main()
