"""The bot's side of a game's analysis: drawing it, and the event loop meanwhile.

    python benchmarks/analysis_picture_bench.py --games 6

Plays ``--games`` games of each variant (ai.arena's ``play_recorded``: the
easy level against the medium one) and analyses each once.  Prints, per
variant: milliseconds to make the picture's data, the caption and the text
(:mod:`bot.present.analysis`), to paint the picture (``render_analysis``,
median of 3 paints per game) and its size.  Then, as the bot does it, one
game after the other is analysed in the thinking pool's process and painted
in the painter's process while the event loop runs a 10 ms ticker: the
ticker's lateness is how long any other tap would have waited for the loop
(bot/edge/handlers/analysis.py), beside the same ticker's lateness on the
idle loop (the machine's own noise).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.analysis import Analysis, analyse
from benchmarks.analysis_bench import games
from bot.edge.handlers.computer import in_pool
from bot.present.analysis import analysis_picture, analysis_text, caption
from bot.present.painter import Painter
from bot.present.render.analysis import render_analysis
from bot.rules.analysis import analyse_job, job
from bot.rules.matchstate import MatchState
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status
from engine import Side, Variant


def played(variant: Variant, count: int, seed: int) -> list[GameRecord]:
    """benchmarks/analysis_bench.py's games, as the bot keeps them."""
    players = (Player(user_id=1, name="Alice", side=Side.WHITE),
               Player(user_id=2, name="Борис", side=Side.BLACK))
    return [GameRecord(chat_id=1, variant=variant, status=Status.FINISHED, players=players,
                       engine=MatchState(game).to_dict())
            for game in games(variant, count, seed)]


def drawing(records: list[GameRecord], analyses: list[Analysis]) -> str:
    tr = translator("ru")
    render_analysis(analysis_picture(tr, records[0], analyses[0]))  # catalogs, fonts, layers
    made, paint, size = [], [], []
    for record, analysis in zip(records, analyses, strict=True):
        start = time.perf_counter()
        picture = analysis_picture(tr, record, analysis)
        caption(tr, record, analysis)
        analysis_text(tr, record, analysis)
        made.append((time.perf_counter() - start) * 1000)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            png = render_analysis(picture)
            times.append((time.perf_counter() - start) * 1000)
        paint.append(statistics.median(times))
        size.append(len(png) / 1024)
    return (f"data+caption+text {statistics.median(made):.1f} ms, "
            f"paint median {statistics.median(paint):.0f} ms max {max(paint):.0f} ms, "
            f"PNG {statistics.median(size):.0f} KB")


class Ticker:
    """Wakes every 10 ms on the event loop and notes how late it woke."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self.running = True

    async def run(self) -> None:
        while self.running:
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            self.late.append((time.perf_counter() - start - 0.01) * 1000)

    def figures(self) -> str:
        p99 = statistics.quantiles(self.late, n=100)[-1]
        return f"p99 {p99:.1f} ms, worst {max(self.late):.1f} ms"


async def loop_lag(records: list[GameRecord]) -> str:
    painter = Painter()
    painter.start()
    await in_pool(int, 0)  # the pool's process is up
    await asyncio.sleep(2)  # and the painter's warmed up
    idle = Ticker()  # the machine's own noise: the loop with nothing else to do
    tick = asyncio.create_task(idle.run())
    await asyncio.sleep(5)
    idle.running = False
    await tick
    busy = Ticker()
    tick = asyncio.create_task(busy.run())
    started = time.perf_counter()
    tr = translator("en")
    for record in records:
        analysis = await in_pool(analyse_job, job(record))
        await painter.paint(render_analysis, analysis_picture(tr, record, analysis))
    spent = time.perf_counter() - started
    busy.running = False
    await tick
    painter.close()
    return (f"{len(records)} games analysed and painted off the loop in {spent:.1f} s; "
            f"the loop's lateness meanwhile {busy.figures()} (idle: {idle.figures()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    for variant in Variant:
        records = played(variant, args.games, args.seed)
        analyses = [analyse(MatchState.from_dict(r.engine).game) for r in records]
        print(f"{variant.value:10} {drawing(records, analyses)}")
        print(f"{'':10} {asyncio.run(loop_lag(records))}")
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
