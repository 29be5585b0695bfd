"""How fast the move generator is, next to GNU Backgammon's C generator.

Positions and their rolls come from games of random legal turns played with
a seeded ``random.Random`` (the same every run).  Each position is timed
twice over: its first call ("single call", as the bot makes it) and the best
of the next few calls ("warm", caches hot, the noise gone).  The figures are
medians over the positions, in microseconds.  For backgammon,
``gnubg_nn.moves`` (GNU Backgammon's generator, in C, returning position
keys) runs on the same positions in the same run, interleaved with ours, and
the ratios are printed.

What is compared: each generator's natural output.  GNU Backgammon returns a
20-character key per position; ``legal_turns`` returns :class:`Turn` objects
with their steps, whose ``position`` is built on first read (a caller
usually picks one turn of many).  So the figures do not hide work a caller
cannot avoid, the "all read" line also times ``legal_turns`` plus reading
every turn's ``position``, the most a caller can ask for.

The second part times what a tap keyboard asks on top (issue 14): next to
``legal_turns`` and the legal steps of a fresh :class:`TurnInProgress` (the
baselines), the same steps with
one button per distinct result (``distinct_steps``), whether the turn is
forced (``forced_steps``), the whole-turn choices (``turn_choices``) and, when
there are at most 8, their texts; medians and 95th percentiles over the same
positions, in microseconds, each call on a fresh turn (nothing cached).

Run: ``.venv/bin/python benchmarks/engine_bench.py [positions per variant]``
(``... 500 choices`` runs only the second part).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Dice, Position, TurnInProgress, Variant, legal_turns, turn_choices
from tests.engine.strategies import random_game_positions

SEED = 20240601
WARM_ROUNDS = 5


def timings(call: Callable[[], object]) -> tuple[float, float]:
    """Microseconds of the first call and the best of the next rounds."""
    clock = time.perf_counter
    start = clock()
    call()
    first = clock() - start
    best = float("inf")
    for _ in range(WARM_ROUNDS):
        start = clock()
        call()
        best = min(best, clock() - start)
    return first * 1e6, best * 1e6


def ours(position: Position, dice: Dice) -> Callable[[], object]:
    return lambda: legal_turns(position, dice)


def ours_all_read(position: Position, dice: Dice) -> Callable[[], object]:
    return lambda: [turn.position for turn in legal_turns(position, dice)]


def gnubg(board: list[list[int]], dice: Dice) -> Callable[[], object]:
    import gnubg_nn

    first, second = dice.first, dice.second
    return lambda: gnubg_nn.moves(board, first, second)


def medians_of(rows: list[tuple[float, float]]) -> tuple[float, float]:
    single, warm = (statistics.median(column) for column in zip(*rows, strict=True))
    return single, warm


def main(count: int = 2000) -> None:
    print(f"legal_turns on {count} positions per variant from seeded random games")
    print("median µs per position: single call / warm (best of the next 5)")
    medians: dict[Variant, tuple[float, float]] = {}
    for variant in (Variant.BACKGAMMON, Variant.LONG):
        sample = random_game_positions(variant, SEED, count)
        mine: list[tuple[float, float]] = []
        all_read: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        for position, dice in sample:
            mine.append(timings(ours(position, dice)))
            all_read.append(timings(ours_all_read(position, dice)))
            if variant is Variant.BACKGAMMON:
                theirs.append(timings(gnubg(position.to_gnubg(), dice)))
        single, warm = medians_of(mine)
        r_single, r_warm = medians_of(all_read)
        medians[variant] = single, warm
        turns = statistics.mean(len(legal_turns(p, d)) for p, d in sample)
        print(f"  {variant.value:<11} nardy {single:6.1f} / {warm:5.1f}   [{turns:.1f} turns each]")
        print(f"  {'':<11} all read {r_single:4.1f} / {r_warm:4.1f}")
        if theirs:
            g_single, g_warm = medians_of(theirs)
            print(
                f"  {'':<11} GNU Backgammon {g_single:4.1f} / {g_warm:4.1f}"
                f"   ratio {single / g_single:.1f}x / {warm / g_warm:.1f}x"
                f"   (all read {r_single / g_single:.1f}x / {r_warm / g_warm:.1f}x)"
            )
    long_single, long_warm = medians[Variant.LONG]
    bg_single, bg_warm = medians[Variant.BACKGAMMON]
    print(f"  long nardy / backgammon: {long_single / bg_single:.2f} / {long_warm / bg_warm:.2f}")


BUTTONS = 8
"""The most whole-turn choices a keyboard offers as buttons."""


def keyboard_calls(position: Position, dice: Dice) -> dict[str, Callable[[], object]]:
    def texts() -> object:
        choices = turn_choices(position, dice)
        return [c.notation() for c in choices] if len(choices) <= BUTTONS else len(choices)

    return {
        "legal_turns (baseline)": lambda: legal_turns(position, dice),
        "legal_steps (baseline)": lambda: TurnInProgress(position, dice).legal_steps,
        "distinct_steps": lambda: TurnInProgress(position, dice).distinct_steps,
        "forced_steps": lambda: TurnInProgress(position, dice).forced_steps,
        "turn_choices": lambda: turn_choices(position, dice),
        f"turn_choices + texts (<= {BUTTONS})": texts,
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def choices_main(count: int) -> None:
    print(f"tap keyboard calls on {count} positions per variant (fresh turn each call)")
    print("µs per position, single call: median / 95th percentile")
    for variant in (Variant.BACKGAMMON, Variant.LONG):
        sample = random_game_positions(variant, SEED, count)
        figures: dict[str, list[float]] = {}
        for position, dice in sample:
            for name, call in keyboard_calls(position, dice).items():
                figures.setdefault(name, []).append(timings(call)[0])
        few = sum(len(turn_choices(p, d)) <= BUTTONS for p, d in sample) / len(sample)
        forced = sum(TurnInProgress(p, d).forced_steps is not None for p, d in sample)
        print(f"  {variant.value}: {few:.0%} of rolls have <= {BUTTONS} distinct results,"
              f" {forced / len(sample):.0%} are forced")
        for name, values in figures.items():
            median = statistics.median(values)
            print(f"    {name:<30} {median:7.1f} / {percentile(values, 0.95):7.1f}")


if __name__ == "__main__":
    positions = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    if sys.argv[2:] != ["choices"]:
        main(positions)
    choices_main(positions)
