"""10,000 simulated tournaments through the pure rules, every invariant checked.

Plays N random tournaments (default 10,000; a third of each format, 3-64
players, 2-64 for a knockout, round robins up to 16) with random results,
no-shows, double forfeits, withdrawals, deadlines and cancels
(tests/bot/rules/tournament/simulate.py), checks each with the suite's
checks, and prints:

* the time per tournament (median and 99th percentile) and in all, by format;
* how many results, forfeits, withdrawals and deadlines they went through;
* the Swiss pairing's own figures: the median and slowest time to pair a
  round of 64, how often a Swiss ended before its planned rounds because no
  pairing without a repeat was left, and how often a round's search ran out
  of budget and paired the rest top-down.

Run: ``.venv/bin/python benchmarks/tournament_bench.py [N] [first seed]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.rules.tournament import pairing
from bot.vocab.tournament import Format
from tests.bot.rules.tournament.simulate import check, simulate


def _counting_fallback() -> Counter[str]:
    counts: Counter[str] = Counter()
    original = pairing._top_down

    def counted(witness: pairing.Witness, rest: list[int]) -> list[tuple[int, int]]:
        counts["fallback"] += 1
        return original(witness, rest)

    pairing._top_down = counted  # type: ignore[assignment]
    return counts


def _swiss_timing(rounds: int = 200) -> list[float]:
    """Seconds to pair round 5 of a 64-player Swiss with four rounds behind it."""
    import random
    rng = random.Random(7)
    out = []
    for _ in range(rounds):
        players = list(range(64))
        met: set[frozenset[int]] = set()
        for _ in range(4):
            rng.shuffle(players)
            met |= {frozenset(players[i:i + 2]) for i in range(0, 64, 2)}
        score = {p: rng.randint(0, 4) for p in players}
        ranked = sorted(players, key=lambda p: (-score[p], p))
        start = time.perf_counter()
        assert pairing.swiss(ranked, score, met, set()) is not None
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    fallback = _counting_fallback()
    times: dict[Format, list[float]] = {f: [] for f in Format}
    events: Counter[str] = Counter()
    early = swiss = 0
    began = time.perf_counter()
    for seed in range(first, first + count):
        fmt = list(Format)[seed % 3]
        start = time.perf_counter()
        played = simulate(seed, fmt)
        check(played)
        times[fmt].append(time.perf_counter() - start)
        events.update(played.events)
        record = played.record
        if fmt is Format.SWISS and not played.cancelled:
            swiss += 1
            playing = sum(e.withdrawn is None for e in record.entrants)
            early += len(record.rounds) < record.rounds_planned and playing >= 2
    total = time.perf_counter() - began
    print(f"{count} tournaments, every invariant checked: {total:.1f} s in all")
    for fmt, each in times.items():
        cut = sorted(each)
        print(f"  {fmt.value:12} {len(each):6}: median {statistics.median(each) * 1e3:6.2f} ms, "
              f"p99 {cut[int(len(cut) * 0.99) - 1] * 1e3:7.2f} ms, all {sum(each):6.1f} s")
    print("  events:", ", ".join(f"{k} {v}" for k, v in sorted(events.items())))
    print(f"  Swiss: {early} of {swiss} ended before their planned rounds (no pairing left); "
          f"{fallback['fallback']} rounds ran out of search budget")
    pair = _swiss_timing()
    print(f"  a 64-player Swiss round 5: median {statistics.median(pair) * 1e3:.2f} ms, "
          f"slowest {max(pair) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
