"""Does the computer's thinking slow the event loop?  Prints figures for docs/ai.md.

    python benchmarks/computer_bench.py --turns 40

Collects positions of real games (the easy level against itself), then, for
each worker kind the bot may use (``NARDY_AI_WORKERS``: ``process`` or
``thread``), asks the strong level for ``--turns`` turns of each variant
through :func:`bot.rules.computer.think` in that pool, one after another, while
a ticker on the same event loop sleeps 5 ms again and again (a stand-in for
the taps of other games).  It prints the think time per turn (wall clock,
p50 / p95) and the ticker's lateness (p50 / p95 / max): what any other tap
waits for on top of its own work while the computer thinks.  A baseline row
shows the lateness with nobody thinking.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import Level, make_player
from bot.rules.computer import Question, think
from engine import Dice, Position, Side, Variant, end_turn, legal_turns

TICK = 0.005


def positions(variant: Variant, count: int, seed: int) -> list[tuple[Position, Dice]]:
    """Positions (and rolls) met in games of the easy level against itself."""
    rng = random.Random(seed)
    player = make_player(variant, Level.EASY, seed=seed)
    found: list[tuple[Position, Dice]] = []
    while len(found) < count:
        position = Position.initial(variant, Side.WHITE)
        while position.winner is None and len(found) < count:
            dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
            if len(legal_turns(position, dice)) > 1:
                found.append((position, dice))
            position = end_turn(player.choose(position, dice).position)
    return found


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def ticker(stop: asyncio.Event, late: list[float]) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(TICK)
        late.append(time.perf_counter() - start - TICK)


async def measure(pool: concurrent.futures.Executor | None,
                  questions: list[Question]) -> tuple[list[float], list[float]]:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    late: list[float] = []
    ticking = asyncio.create_task(ticker(stop, late))
    thinks = []
    if pool is None:
        await asyncio.sleep(2.0)
    for question in questions:
        start = time.perf_counter()
        await loop.run_in_executor(pool, think, question)
        thinks.append(time.perf_counter() - start)
    stop.set()
    await ticking
    return thinks, late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    questions = [Question("move", variant, Level.STRONG, False, position, position.turn, dice)
                 for variant in (Variant.LONG, Variant.BACKGAMMON)
                 for position, dice in positions(variant, args.turns, args.seed)]
    pools: dict[str, Callable[[], concurrent.futures.Executor | None]] = {
        "nobody thinking": lambda: None,
        "thread": lambda: concurrent.futures.ThreadPoolExecutor(1),
        "process": lambda: concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn")),
    }
    print(f"{len(questions)} strong-level turns (long nardy and backgammon), "
          f"ticker {TICK * 1000:.0f} ms")
    print(f"{'workers':16} {'think p50':>9} {'p95':>7} {'late p50':>9} {'p95':>7} {'max':>7}  (ms)")
    for name, make in pools.items():
        pool = make()
        if pool is not None:  # warm up: the brains load once per worker
            asyncio.run(measure(pool, questions[:1] + questions[-1:]))
        thinks, late = asyncio.run(measure(pool, [] if pool is None else questions))
        if pool is not None:
            pool.shutdown()
        think_cols = (f"{statistics.median(thinks)*1000:9.1f} {pct(thinks, .95)*1000:7.1f}"
                      if thinks else f"{'-':>9} {'-':>7}")
        print(f"{name:16} {think_cols} {statistics.median(late)*1000:9.2f} "
              f"{pct(late, .95)*1000:7.2f} {max(late)*1000:7.2f}")


if __name__ == "__main__":
    main()
