"""Are the derived dice fair, and how fast are they?

Derives N rolls (default a million) from one fixed seed and entropy with
:class:`engine.dice.FairDice` - 1000 rolls in each of N / 1000 games, as a long
match would - and prints:

* the speed (rolls per second, microseconds per roll);
* chi-square tests: the 36 ordered outcomes (35 degrees of freedom), the 21
  rolls the way /dice counts them (20), and each die's six faces (5);
* the share of doubles and the pips per roll next to fair dice's 1/6 and 8⅙.

A p-value is the chance that truly fair dice land at least this far from the
expected counts; anything above ~0.001 is what fair dice do.  Different
seeds give different p-values (uniform on 0..1 for fair dice): pass a seed
number to try another.

Run: ``.venv/bin/python benchmarks/dice_bench.py [rolls] [seed number]``.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.dice import DiceSeed, Entropy, FairDice
from engine.dicestats import FAIR_AVERAGE_PIPS, DiceStats, chi_square, chi_square_sf

PER_GAME = 1000


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    number = int(sys.argv[2]) if len(sys.argv) > 2 else 2026
    fair = FairDice(DiceSeed.from_test_seed(number, "dice_bench"),
                    Entropy.of(("tg.join", "8812734"), ("seed.ann", "lucky seven")))
    ordered: Counter[tuple[int, int]] = Counter()
    start = time.perf_counter()
    for game in range(1, total // PER_GAME + 2):
        dice = fair.for_game(game)
        for index in range(min(PER_GAME, total - (game - 1) * PER_GAME)):
            ordered[dice.roll(index)] += 1
    seconds = time.perf_counter() - start
    rolls = sum(ordered.values())
    print(f"{rolls:,} rolls in {seconds:.2f} s: {rolls / seconds:,.0f} rolls/s, "
          f"{seconds / rolls * 1e6:.2f} µs per roll")

    pairs = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    x36 = chi_square([ordered[pair] for pair in pairs], [rolls / 36] * 36)
    print(f"36 ordered outcomes: chi-square {x36:.2f} (df 35), p = {chi_square_sf(x36, 35):.3f}")

    stats = DiceStats.of(pair for pair, count in ordered.items() for _ in range(count))
    print(f"21 rolls:            chi-square {stats.chi_square:.2f} (df 20), "
          f"p = {stats.p_value:.3f}, verdict {stats.verdict.value}")

    for which in (0, 1):
        faces = Counter[int]()
        for pair, count in ordered.items():
            faces[pair[which]] += count
        x6 = chi_square([faces[face] for face in range(1, 7)], [rolls / 6] * 6)
        print(f"die {which + 1} faces:         chi-square {x6:.2f} (df 5), "
              f"p = {chi_square_sf(x6, 5):.3f}")

    print(f"doubles {stats.doubles / rolls:.5f} (fair 0.16667), "
          f"pips per roll {stats.average_pips:.4f} (fair {FAIR_AVERAGE_PIPS:.4f})")


if __name__ == "__main__":
    main()
