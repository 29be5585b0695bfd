"""What a 💡 Hint costs: prints figures for docs/benchmarks.md.

    python benchmarks/hints_bench.py --rolls 200

For each variant, ``--rolls`` positions with a choice from games of the easy
level against itself (:func:`benchmarks.computer_bench.positions`):

- rank: :func:`bot.rules.computer.best_turns` (the strong level's ranking)
  in this process, p50 / p95 / max;
- pool: a first tap's wait for it through the computer's worker pool (the
  bot's path, :func:`bot.edge.handlers.hints.ranked`: the process round trip
  included), p50 / p95;
- cached: a second tap's answer (the cache and the text), p50 in µs;
- the longest alert in any of en/ru/lt against Telegram's 200 characters,
  and how many alerts had to leave a turn out (``cut``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.computer_bench import pct, positions
from bot.edge.handlers import computer as computer_turns
from bot.edge.handlers import hints as hint_answers
from bot.present.hints import hint_text
from bot.rules.computer import best_turns
from bot.rules.hints import HintQuestion
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.usertext import ALERT_LIMIT, utf16_length
from engine import Variant


async def measure(variant: Variant, rolls: int, seed: int) -> str:
    """One variant's row."""
    pooled, direct, cached, longest, cut = [], [], [], 0, 0
    for position, dice in positions(variant, rolls, seed):
        question = HintQuestion(variant, False, position, dice)
        start = time.perf_counter()
        found = best_turns(question)
        direct.append(time.perf_counter() - start)
        start = time.perf_counter()
        assert await hint_answers.ranked(question) == found  # a first tap: the worker pool
        pooled.append(time.perf_counter() - start)
        start = time.perf_counter()
        await hint_answers.answer_text(translator("en"), question)  # a second tap
        cached.append(time.perf_counter() - start)
        for lang in LANGUAGES:
            text = hint_text(translator(lang), question, found)
            longest = max(longest, utf16_length(text))
            cut += text.count("\n") < min(3, len(found))
    ms = [pct(direct, 0.5) * 1e3, pct(direct, 0.95) * 1e3, max(direct) * 1e3,
          pct(pooled, 0.5) * 1e3, pct(pooled, 0.95) * 1e3]
    return (f"{variant.value:<11} " + " ".join(f"{m:>7.1f}" for m in ms)
            + f" {pct(cached, 0.5) * 1e6:>8.0f} {longest:>6} / {ALERT_LIMIT} {cut:>5}")


async def main(rolls: int, seed: int) -> None:
    print(f"{'variant':<11} {'rank p50':>7} {'p95':>7} {'max':>7} {'pool p50':>7} {'p95':>7} "
          f"{'cached µs':>8} {'longest alert':>12} {'cut':>5}   (ms unless noted)")
    for variant in (Variant.LONG, Variant.BACKGAMMON):
        print(await measure(variant, rolls, seed))
    computer_turns.pool().shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main(args.rolls, args.seed))
