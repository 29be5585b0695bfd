"""One member floods one group while two games are played in two others
(issue 21 §2): the other games' tap -> answer times, quiet and flooded.

Run: ``.venv/bin/python benchmarks/flood_bench.py [taps per game] [flood per second] [--before]``

In-process, as tests/bot does: the real Application polling the local Bot
API server (tests/botapi), the store on fakeredis, seeded dice, text boards,
and the real shared flood limiter (bot/edge/limits.py) with Telegram's
budgets sped up :data:`SPEED` times (a group: 20 messages a minute, here
``20 * SPEED``; the test server keeps its limits as fast), so a run lasts
seconds, not minutes.
Two players in each of two groups tap their games at :data:`THINK` seconds a
tap; meanwhile, in a third group, one member sends ``/rules`` at
``1.5 * SPEED`` a second (the issue's realistic 1.5 a second, sped up like
the budget) for as long as the games last.  Three runs, side by side:

- ``quiet``: no flood;
- ``flood``: the flood, with every defence (the per-user input limit answers
  the flood once and ignores it; what gets through waits in its chat's outbox);
- ``flood, no input limit``: every ``/rules`` is answered, so the flooded
  group's replies queue up far beyond its budget: the outbox alone keeps the
  other groups' taps answered (their handlers never wait for that bucket);
- with ``--before``, also ``flood, no input limit, waiting in the slots``:
  handlers wait for the flooded group's bucket in their update slots, as
  before issue 21 (``bot.edge.ops.handle_once`` straight from the polling
  processor): what the outbox saves.

Prints, for each run, the other games' tap -> answerCallbackQuery median and
p99 (from the tap's update being queued at the server to the answer arriving
there) and the p99's ratio to the quiet run's (the target: within 2x), plus
how many ``/rules`` were sent and answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fakeredis

from bot.edge import ops
from bot.edge.limits import GROUP, PRIVATE, SharedRateLimiter, Window
from bot.store import Store
from bot.vocab.records import ChatSettings, settings_key
from tests.bot.conftest import World, running_world
from tests.bot.driver import Driver
from tests.botapi import BotApiServer

BEFORE = "--before" in sys.argv
ARGS = [arg for arg in sys.argv[1:] if arg != "--before"]
TAPS = int(ARGS[0]) if ARGS else 30
SPEED = 4.0
"""How many times faster than Telegram's the flood budgets run here."""
FLOOD_RATE = float(ARGS[1]) if len(ARGS) > 1 else 1.5 * SPEED
"""``/rules`` a second from the flooding member."""
THINK = 0.8
"""Seconds between two taps of one game (a quick human; one board edit a tap
fits the sped-up group budget)."""


def _limiter(store: Store) -> SharedRateLimiter:
    limiter = SharedRateLimiter(group=Window(GROUP.limit, GROUP.seconds / SPEED),
                                private=Window(PRIVATE.limit, PRIVATE.seconds / SPEED))
    limiter.attach(store.flood)
    return limiter


async def _group(world: World, name: str, *users: object) -> object:
    chat = world.server.add_group(name, members=list(users))  # type: ignore[arg-type]
    await world.store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
        chat_id=chat.id, board_style="text"))
    return chat


async def _start(world: World, chat: object, alice: object, bob: object) -> None:
    s = world.server
    sent = s.user_sends(chat, alice, "/new long")  # type: ignore[arg-type]
    lobby = await s.wait_message_async(chat, "New game", since=sent, timeout=30)  # type: ignore[arg-type]
    for user in (alice, bob):
        join = next(d for row in lobby.buttons for _, d in row if d.endswith(":j"))
        tap = s.user_taps(chat, user, lobby, join)  # type: ignore[arg-type]
        await tap.wait_answer_async(30)
        lobby = await s.wait_message_async(chat, since=tap, timeout=30,  # type: ignore[arg-type]
                                           match=lambda m: bool(m.buttons))


def _flood(server: BotApiServer, chat: object, user: object, stop: threading.Event,
           sent: list[object]) -> None:
    while not stop.is_set():
        sent.append(server.user_sends(chat, user, "/rules"))  # type: ignore[arg-type]
        stop.wait(1 / FLOOD_RATE)


async def run(title: str, *, flood: bool, input_limit: bool) -> list[float]:
    """One run in a fresh bot and server; the other games' tap -> answer in ms."""
    store = Store(fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer()))
    async with running_world(store, server=BotApiServer(limits_speed=SPEED),
                             limiter=_limiter(store), input_limit=input_limit) as world:
        s = world.server
        users = [s.add_user(name) for name in ("A1", "B1", "A2", "B2", "Mallory")]
        games = [await _group(world, "Game 1", *users[0:2]),
                 await _group(world, "Game 2", *users[2:4])]
        flooded = await _group(world, "Flooded", users[4])
        for chat, pair in zip(games, (users[0:2], users[2:4]), strict=True):
            await _start(world, chat, *pair)
        stop, spam = threading.Event(), []  # type: ignore[var-annotated]
        flooder = threading.Thread(target=_flood, args=(s, flooded, users[4], stop, spam))
        if flood:
            flooder.start()
            await asyncio.sleep(3)  # the flood is under way before the games go on
        drivers = [Driver(s, chat, (pair[0], pair[1]), think=THINK)  # type: ignore[arg-type]
                   for chat, pair in zip(games, (users[0:2], users[2:4]), strict=True)]
        started = time.perf_counter()
        ended = await asyncio.gather(*(asyncio.to_thread(d.play, TAPS, stop_early=True)
                                       for d in drivers), return_exceptions=True)
        # a driver gives up on a tap unanswered for its timeout (30 s): the game froze
        froze = sum(1 for outcome in ended if isinstance(outcome, AssertionError))
        elapsed = time.perf_counter() - started
        stop.set()
        if flood:
            flooder.join()
        answered = {r.params.get("callback_query_id"): r.time
                    for r in s.requests("answerCallbackQuery")}
        times = sorted((answered[q] - t) * 1000 if q in answered else d.timeout * 1000
                       for d in drivers for q, t, _ in d.sent)
        replies = sum(1 for m in s.messages(flooded) if m.by_bot)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(world.idle(), 5)
        breaches = s.breaches  # 429s above the (sped-up) limits: the limiter's failures
    print(f"  {title}: {len(times)} taps in {elapsed:.0f} s; median {_pct(times, 50):.0f} ms, "
          f"p99 {_pct(times, 99):.0f} ms; 429s {breaches}"
          + (f"; {froze} game(s) froze (a tap unanswered for 30 s)" if froze else "")
          + (f"; /rules sent {len(spam)}, answered {replies} "
                                             f"(by the run's end)" if flood else ""))
    return times


def _pct(values: list[float], pct: int) -> float:
    return values[min(len(values) - 1, int(len(values) * pct / 100))] if values else 0.0


async def main() -> None:
    print(f"flood_bench: 2 games x {TAPS} taps ({THINK} s apart) in two groups; flood "
          f"{FLOOD_RATE:.1f} /rules a second in a third; budgets x{SPEED:.0f}")
    quiet = await run("quiet", flood=False, input_limit=True)
    flooded = await run("flood", flood=True, input_limit=True)
    unlimited = await run("flood, no input limit", flood=True, input_limit=False)
    runs = [("flood", flooded), ("flood, no input limit", unlimited)]
    if BEFORE:
        parking = ops.handle_in_slot
        ops.handle_in_slot = ops.handle_once  # type: ignore[assignment]
        try:
            runs.append(("waiting in the slots", await run(
                "flood, no input limit, waiting in the slots", flood=True, input_limit=False)))
        finally:
            ops.handle_in_slot = parking
    base = _pct(quiet, 99) or 1.0
    for title, times in runs:
        print(f"  {title}: p99 {_pct(times, 99) / base:.2f}x the quiet run's; "
              f"median {statistics.median(times) / max(1e-9, statistics.median(quiet)):.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
