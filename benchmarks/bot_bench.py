"""The bot under load: many games played at once by tapping, through the
local Bot API server, against the real bot process and the real Redis.

Run: ``.venv/bin/python benchmarks/bot_bench.py [games]``
(the BENCH_REDIS_URL database, see bench_redis.py, is flushed first).
Prints taps per second and the median / p99 time
from a tap (the callback-query update being queued) to the bot's
answerCallbackQuery arriving at the server, twice: paced (each player taps
every THINK seconds, like quick humans) and flat out (every player taps
again the moment the board changed: the bot's throughput).  With each: how
long the slowest 1% of taps waited before getUpdates handed them over, the
CPU the bot (with its painter process), this harness and Redis spent per
tap, and the bot's Bot API requests per tap.  Dice are seeded; the bot runs
with NARDY_RATE_LIMIT=0 (its throughput, not Telegram's budget: the local
server then keeps no flood limits either).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from benchmarks.bench_redis import bench_redis_url, past_upgrade_day
from benchmarks.cpu import CpuMeter
from tests.bot.driver import Driver
from tests.botapi import BotApiServer, BotProcess

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 20
THINK = 0.3
"""Seconds between one player's taps in the paced run (a quick human)."""
PACED_TAPS = 80
VARIANTS = ("long", "backgammon")


def _start_game(server: BotApiServer, chat: object, alice: object, bob: object,
                variant: str) -> None:
    sent = server.user_sends(chat, alice, f"/new {variant}")  # type: ignore[arg-type]
    lobby = server.wait_message(chat, "New game", since=sent, timeout=20)  # type: ignore[arg-type]
    for user in (alice, bob):
        join = next(d for row in lobby.buttons for _, d in row if d.endswith(":j"))
        tap = server.user_taps(chat, user, lobby, join)  # type: ignore[arg-type]
        tap.wait_answer(20)
        lobby = server.wait_message(chat, since=tap, timeout=20,  # type: ignore[arg-type]
                                    match=lambda m: bool(m.buttons))


def _run(server: BotApiServer, games: int, think: float, taps: int | None, offset: int
         ) -> tuple[list[Driver], float]:
    drivers = []
    for i in range(offset, offset + games):
        alice, bob = server.add_user(f"A{i}"), server.add_user(f"B{i}")
        chat = server.add_group(f"G{i}", members=[alice, bob])
        _start_game(server, chat, alice, bob, VARIANTS[i % 2])
        drivers.append(Driver(server, chat, (alice, bob), timeout=30, think=think))
    errors: list[BaseException] = []
    # Paced players start at random moments within one think time, as people in
    # different chats would: started together, the 20 first taps arrive within
    # ~15 ms, a burst the rest of the run never sees (the last of them waited
    # ~70 ms), which alone made the paced p99.
    starts = random.Random(offset).sample(range(1000), len(drivers))

    def run(driver: Driver, start: int) -> None:
        try:
            time.sleep(think * start / 1000)
            if taps is None:
                driver.play()
            else:
                driver.play(max_taps=taps, stop_early=True)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(d, start))
               for d, start in zip(drivers, starts, strict=True)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return drivers, time.perf_counter() - began


def _report(server: BotApiServer, title: str, drivers: list[Driver], elapsed: float,
            cpu: CpuMeter, began: float) -> None:
    answered = {r.params.get("callback_query_id"): r.time
                for r in server.requests("answerCallbackQuery")}
    # (tap -> answer, tap -> handed to the bot by getUpdates), in ms
    timed = sorted(((answered[q] - t) * 1000, (server.delivered_at.get(u, t) - t) * 1000)
                   for d in drivers for q, t, u in d.sent if q in answered)
    latencies = [total for total, _ in timed]
    taps = sum(len(d.sent) for d in drivers)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    slowest = timed[int(len(timed) * 0.99):]
    print(f"  {title}: {taps} taps in {elapsed:.1f} s = {taps / elapsed:.0f} taps/s; "
          f"tap -> answerCallbackQuery median {statistics.median(latencies):.1f} ms, "
          f"p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms")
    for total, waited in timed[-3:]:
        if total > 500:
            print(f"    a tap took {total:.0f} ms ({waited:.0f} ms before getUpdates)")
    print(f"    slowest 1%: median {statistics.median(t for t, _ in slowest):.1f} ms, of which "
          f"{statistics.median(w for _, w in slowest):.1f} ms before getUpdates handed the "
          f"tap over")
    print(f"    CPU ms per tap: {cpu.per(taps)}")
    sent = [r.method for r in server.requests() if r.time >= began]
    print("    bot requests per tap: " + ", ".join(
        f"{method} {n / taps:.2f}" for method, n in Counter(sent).most_common()))


def main() -> None:
    url = bench_redis_url()
    redis.Redis.from_url(url).flushdb()
    past_upgrade_day(redis.Redis.from_url(url))
    env = {"NARDY_TEST_SEED": "5", "NARDY_RATE_LIMIT": "0"}
    print(f"bot_bench: {GAMES} games at once ({' and '.join(VARIANTS)} alternating), "
          f"Redis at {url}")
    with tempfile.TemporaryDirectory() as data_dir, BotApiServer() as server:
        bot = BotProcess.for_server(server, redis_url=url, data_dir=None if url else data_dir,
                                    log_level="WARNING", env=env).start()
        try:
            server.watch(bot)
            time.sleep(1.5)  # start-up; the first requests wait on getUpdates anyway
            assert bot.pid is not None
            pids = {"bot": [bot.pid], "harness": [os.getpid()]}
            if url:
                pids["redis"] = [int(redis.Redis.from_url(url).info("server")["process_id"])]
            cpu, began = CpuMeter(pids), time.time()
            drivers, elapsed = _run(server, GAMES, THINK, PACED_TAPS, 0)
            _report(server, f"paced ({THINK * 1000:.0f} ms between a player's taps, "
                    f"{PACED_TAPS} taps a game)", drivers, elapsed, cpu, began)
            cpu, began = CpuMeter(pids), time.time()
            drivers, elapsed = _run(server, GAMES, 0.0, None, GAMES)
            _report(server, "flat out (games to the end, every tap at once after the last)",
                    drivers, elapsed, cpu, began)
        finally:
            bot.stop()
            logged = bot.log.strip().splitlines()
            if logged:  # the bot logs warnings and errors only here
                print(f"  the bot logged {len(logged)} lines; the last ones:")
                print("\n".join("    " + line for line in logged[-20:]))


if __name__ == "__main__":
    main()
