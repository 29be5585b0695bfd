"""Does the analysis add up, and does its luck average zero?

    python benchmarks/identity_bench.py --games 100
    python benchmarks/identity_bench.py --games 40 --variant backgammon --pairing self
    python benchmarks/identity_bench.py --games 1000 --variant long --level medium --quiet

For a game analysed with one value function, White's result is what the
game was worth before its first roll plus White's luck minus Black's, minus
the points White's decisions lost plus Black's, plus what the evaluation
changed its mind by between its depths (the drift; :func:`ai.analysis.balance`,
docs/analysis.md "Luck and skill add up").  This plays ``--games`` cubeless
games through the engine (``ai.arena.play_recorded``; ``--pairing``:
``strong-medium``, the strong level against the medium one with the colours
alternating, ``self``, the strong level on both sides, or ``medium``, the
medium level on both: the quickest), with the bot's own dice (``--dice
fair``: ``engine.dice.FairDice`` from a test seed per game, as the bot rolls
them) or Python's generator (``--dice random``), analyses each at
``--level`` (what players see: ``ai.analysis.analyse``) and prints, per
game, the result, the luck difference, the error difference, the start
value, the drift and the residual ``result - start - luck + error -
drift``; then the residual's mean with a 95% interval (normal, from the
games' spread), its largest size, and the luck per roll: both players'
luck over both players' rolls (the figures of ``PlayerReport``), with a
95% interval by game (the ratio's standard error from the games' sums, and
a bootstrap over games: a game's rolls are no independent draws), and the
dice's chi-square against fair dice.

A roll's luck is the same at every analysis level (its roll values are the
net's 1 ply in long nardy, gnubg's 0-ply in backgammon, whatever the depth
of the decisions): ``--level medium`` counts the most rolls per CPU second.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from ai import Level, make_player
from ai.analysis import Analysis, Balance, analyse, balance
from ai.arena import play_recorded
from ai.player import ROLLS
from engine import Action, Dice, GameOptions, RandomSource, Variant
from engine.dice import DiceSeed, FairDice
from engine.dicestats import chi_square, chi_square_sf

PAIRINGS = {
    "strong-medium": (Level.STRONG, Level.MEDIUM),
    "self": (Level.STRONG, Level.STRONG),
    "medium": (Level.MEDIUM, Level.MEDIUM),
}
BOOTSTRAP = 2000


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% normal interval."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if values[1:] else 0.0
    return mean, mean - half, mean + half


def ratio_interval(sums: np.ndarray, counts: np.ndarray, seed: int
                   ) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """sum(sums) / sum(counts) with two 95% intervals by game: normal, from
    the ratio estimator's standard error over the games (the linearised
    residuals ``sums - ratio * counts``), and a percentile bootstrap over
    the games."""
    ratio = float(sums.sum() / counts.sum())
    games = len(sums)
    residuals = sums - ratio * counts
    se = math.sqrt(games / (games - 1) * float(np.sum(residuals ** 2))) / float(counts.sum())
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, games, size=(BOOTSTRAP, games))
    boot = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.percentile(boot, [2.5, 97.5])
    return ratio, (ratio - 1.96 * se, ratio + 1.96 * se), (float(low), float(high))


def dice_source(kind: str, seed: int, index: int) -> RandomSource:
    """The game's dice: the bot's (a test seed per game) or Python's."""
    if kind == "fair":
        return FairDice(DiceSeed.from_test_seed(seed, f"identity-{index}")).source()
    return random.Random(seed * 1_000_003 + index)


def run(variant: Variant, games: int, seed: int, pairing: str, quiet: bool,
        level: Level = Level.STRONG, dice: str = "fair") -> None:
    options = GameOptions(variant)  # cubeless: the identity is about moves and dice
    balances: list[Balance] = []
    luck_sums: list[float] = []
    roll_counts: list[int] = []
    turn_lucks: list[float] = []
    counts = dict.fromkeys((d for d, _ in ROLLS), 0)
    openings = 0
    started = time.process_time()
    print(f"{variant.value}: {games} games, {pairing}, {dice} dice seed {seed}, "
          f"analysed at the {level.value} depth")
    if not quiet:
        print("  game  starter  result    luck   error   start   drift  residual")
    for index in range(games):
        players = [make_player(variant, lvl, seed * 1000 + index + 500 * i)
                   for i, lvl in enumerate(PAIRINGS[pairing])]
        if index % 2:
            players.reverse()
        game = play_recorded(players, dice_source(dice, seed, index), options)
        analysis: Analysis = analyse(game, level=level)
        check = balance(analysis)
        balances.append(check)
        white, black = analysis.players
        luck_sums.append(white.luck + black.luck)
        roll_counts.append(white.rolls + black.rolls)
        turn_lucks.append(float(np.sum(analysis.luck)))
        opening = game.opening is not None and variant is Variant.BACKGAMMON
        openings += opening
        for number, event in enumerate(e for e in game.events if e.action is Action.ROLL):
            if event.dice is not None and not (opening and number == 0):
                first, second = sorted((event.dice.first, event.dice.second))
                counts[Dice(first, second)] += 1
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
    sums, rolls = np.array(luck_sums), np.array(roll_counts, dtype=float)
    ratio, normal, boot = ratio_interval(sums, rolls, seed)
    print(f"  luck per roll (both players' luck / their {int(rolls.sum())} rolls, "
          f"{games} games): {1000 * ratio:+.2f} millipoints, 95% by game "
          f"{1000 * normal[0]:+.2f} .. {1000 * normal[1]:+.2f} (bootstrap "
          f"{1000 * boot[0]:+.2f} .. {1000 * boot[1]:+.2f})")
    ratio, normal, _ = ratio_interval(np.array(turn_lucks), rolls, seed)
    print(f"  the same over the turns' luck (Analysis.luck, no lot): {1000 * ratio:+.2f} "
          f"({1000 * normal[0]:+.2f} .. {1000 * normal[1]:+.2f})")
    seen = sum(counts.values())
    statistic = chi_square(list(counts.values()), [seen * chance for _, chance in ROLLS])
    print(f"  dice: {seen} rolls (no opening roll) against fair dice: chi-square "
          f"{statistic:.1f} on 20 df, p = {chi_square_sf(statistic, 20):.3f}; "
          f"doubles {sum(n for d, n in counts.items() if d.is_double) / seen:.4f} "
          f"(fair 0.1667)")
    print(f"  CPU {time.process_time() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", choices=["both", *(v.value for v in Variant)],
                        default="both")
    parser.add_argument("--pairing", choices=list(PAIRINGS), default="strong-medium")
    parser.add_argument("--dice", choices=["fair", "random"], default="fair",
                        help="the bot's dice (a test seed per game) or Python's generator")
    parser.add_argument("--quiet", action="store_true", help="only the summary lines")
    parser.add_argument("--level", choices=[level.value for level in Level], default="strong",
                        help="the depth analysed at (the luck is the same at every depth: "
                        "medium is the quick way to count many rolls)")
    args = parser.parse_args()
    variants = [Variant.LONG, Variant.BACKGAMMON] if args.variant == "both" else [
        Variant(args.variant)]
    for variant in variants:
        run(variant, args.games, args.seed, args.pairing, args.quiet, Level(args.level),
            args.dice)


if __name__ == "__main__":
    main()
