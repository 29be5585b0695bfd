"""The flood limiter is exact and shared: two workers (two limiters on one
Redis) book in the same per-chat and per-bot sliding windows, no window ever
holds more than its limit, a chat with messages waiting never idles, and a
429 seen by one worker holds back the other.  The clock is injected."""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Callable
from typing import Any

import fakeredis
import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from telegram.error import RetryAfter
from telegram.ext import ExtBot

from bot.edge.limits import MARGIN, OVERALL_MARGIN, SharedRateLimiter, Window
from bot.edge.outbox import ChatOutbox
from bot.store.flood import FloodBuckets
from tests.botapi import BotApiServer


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def pair(clients: Callable[[], aioredis.Redis], clock: Clock, **kw: Any
         ) -> tuple[SharedRateLimiter, SharedRateLimiter]:
    limiters = (SharedRateLimiter(clock=clock, **kw), SharedRateLimiter(clock=clock, **kw))
    for limiter in limiters:
        limiter.attach(FloodBuckets(clients()))
    return limiters


async def test_two_workers_share_a_chats_window(clients: Callable[[], aioredis.Redis]) -> None:
    clock = Clock()
    a, b = pair(clients, clock, group=Window(2, 1.0), margin=0, overall=Window(1000, 1.0))
    waits = [await (a if i % 2 else b).acquire(-100) for i in range(6)]
    # two at once, then two more as soon as the first two are a second old: queued
    # across both workers
    assert waits == pytest.approx([0, 0, 1, 1, 2, 2])
    assert await a.acquire(-200) == 0  # another chat has its own window
    clock.now += 2.5  # the first four are out of the window; two more are booked (at 2)
    waits = [await (a if i % 2 else b).acquire(-100) for i in range(3)]
    assert waits == pytest.approx([0.5, 0.5, 1.5])


async def test_the_bots_overall_window_spans_chats(clients: Callable[[], aioredis.Redis]) -> None:
    a, b = pair(clients, Clock(), overall=Window(10, 1.0), margin=0)
    waits = [await (a if i % 2 else b).acquire(-i) for i in range(12)]  # 12 chats
    assert waits[:10] == [0] * 10 and waits[10:] == pytest.approx([1.0, 1.0])


async def test_a_message_held_back_by_the_bots_window_holds_its_place_in_the_chats_there(
        clients: Callable[[], aioredis.Redis]) -> None:
    """Where the bot's window makes a message wait, its chat's window books it
    at that time too (it is when the message goes)."""
    clock = Clock()
    a, _ = pair(clients, clock, group=Window(2, 10.0), overall=Window(1, 1.0), margin=0)
    assert await a.acquire(-1) == 0
    assert await a.acquire(-2) == pytest.approx(1.0)  # the bot's window: next second
    assert await a.acquire(-2) == pytest.approx(2.0)
    # chat -2 holds messages at +1 and +2: its third goes 10 s after the first of them
    assert await a.acquire(-2) == pytest.approx(11.0)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_flood_wait_holds_back_the_other_worker(
        clients: Callable[[], aioredis.Redis]) -> None:
    clock = Clock()
    a, b = pair(clients, clock, margin=0, overall=Window(1000, 1.0))
    calls: list[str] = []

    async def send(text: str) -> bool:
        calls.append(text)
        if len(calls) == 1:
            raise RetryAfter(datetime.timedelta(seconds=1))
        return True

    sending = asyncio.create_task(a.process_request(send, ("hi",), {}, "sendMessage",
                                                    {"chat_id": -100}, None))
    await asyncio.sleep(0.05)  # a got the 429 and waits it out
    assert await b.acquire(-100) == pytest.approx(1.0)  # nothing before the 429's second
    assert await b.acquire(-300) == 0
    assert await sending is True and calls == ["hi", "hi"]


async def test_answers_to_taps_are_never_throttled(clients: Callable[[], aioredis.Redis]) -> None:
    a, _ = pair(clients, Clock(), group=Window(1, 1000.0), overall=Window(1000, 1.0))
    assert await a.acquire(-100) == 0
    assert await a.acquire(-100) > 100  # the chat's window is full for a long time

    async def answer() -> bool:
        return True

    result = await asyncio.wait_for(a.process_request(
        answer, (), {}, "answerCallbackQuery", {"callback_query_id": "1"}, None), 1)
    assert result is True


async def test_without_redis_it_does_not_throttle() -> None:
    limiter = SharedRateLimiter(private=Window(1, 1000.0))
    assert [await limiter.acquire(-1) for _ in range(3)] == [0, 0, 0]


async def test_telegrams_budget_a_group_and_a_private_chat(
        clients: Callable[[], aioredis.Redis]) -> None:
    """No more than 20 messages in any 60 s to a group (edits count; a burst of
    ten let 21-27 through), about one a second in a private chat; each window
    :data:`MARGIN` longer, for the way to Telegram."""
    clock = Clock()
    a, _ = pair(clients, clock)  # the defaults
    group = [await a.acquire(-100) for _ in range(41)]
    assert group[:20] == [0] * 20  # a quick turn's edits go at once
    assert group[20:40] == pytest.approx([60 + MARGIN] * 20)  # then the next 20
    assert group[40] == pytest.approx(2 * (60 + MARGIN))
    private = [await a.acquire(42) for _ in range(7)]
    assert private[:5] == [0] * 5 and private[5:] == pytest.approx([5 + MARGIN] * 2)
    clock.now += 1000
    overall = [await a.acquire(-1000 - n) for n in range(31)]  # 31 groups at once
    # the bot's 30 a second, its margin a tenth of a second (not a whole one: a
    # second on a one-second window would halve the bot's throughput)
    assert overall[:30] == [0] * 30 and overall[30] == pytest.approx(1 + OVERALL_MARGIN)


def fits(sent: list[float], t: float, limit: int, seconds: float) -> bool:
    """One more message at ``t`` keeps every window (x - seconds, x] within ``limit``."""
    ends = [t] + [x for x in sent if t < x < t + seconds]
    return all(sum(1 for y in [*sent, t] if x - seconds < y <= x) <= limit for x in ends)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.floats(0, 30), st.integers(0, 1), st.booleans()),
                min_size=1, max_size=60),
       st.integers(1, 6), st.floats(1.0, 20.0))
def test_a_window_is_never_overfull_and_never_idle_while_messages_wait(
        steps: list[tuple[float, int, bool]], limit: int, seconds: float) -> None:
    """Property: whatever the pace of asking, from two workers, with some
    reservations given back: no window holds more than ``limit`` messages
    sent; and each message goes as early as the window allows (the window just
    before it is full), so a chat with work waiting never idles."""

    async def run() -> None:
        clock = Clock()
        redis = fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())
        workers = [SharedRateLimiter(clock=clock, group=Window(limit, seconds), margin=0,
                                     overall=Window(10_000, 1.0)) for _ in range(2)]
        for worker in workers:
            worker.attach(FloodBuckets(redis))
        sent: list[float] = []
        for pause, who, given_back in steps:
            clock.now += pause
            booking = await workers[who].reserve(-100)
            at = clock.now + booking.wait
            if given_back:
                await booking.release()
                continue
            assert fits(sent, at, limit, seconds)
            # no idle gap: a moment sooner would not fit
            assert booking.wait == 0 or not fits(sent, at - 1e-6, limit, seconds)
            sent.append(at)
        sent.sort()
        for i in range(len(sent) - limit):
            assert sent[i + limit] - sent[i] >= seconds - 1e-9  # never overfull

    asyncio.run(run())


async def test_a_time_given_back_is_taken_by_the_next_message(
        clients: Callable[[], aioredis.Redis]) -> None:
    a, b = pair(clients, Clock(), group=Window(2, 60.0), margin=0)
    assert await a.acquire(-5) == 0
    unused = await a.reserve(-5)
    assert await b.acquire(-5) == pytest.approx(60.0)
    await unused.release()
    assert await b.acquire(-5) == 0


async def test_an_inline_message_has_a_bucket_of_its_own(
        clients: Callable[[], aioredis.Redis]) -> None:
    """Edits of an inline game's message are throttled in a group's window
    named by its inline_message_id; its 429 holds back that message only."""
    clock = Clock()
    a, b = pair(clients, clock, margin=0, overall=Window(1000, 1.0))
    calls: list[str] = []

    async def edit() -> bool:
        calls.append("edit")
        if len(calls) == 1:
            raise RetryAfter(datetime.timedelta(seconds=1))
        return True

    editing = asyncio.create_task(a.process_request(
        edit, (), {}, "editMessageText", {"inline_message_id": "AgAAAx1"}, None))
    await asyncio.sleep(0.05)  # a got the 429 and waits it out
    assert await b.acquire("AgAAAx1") == pytest.approx(1.0)  # after the 1 s penalty
    assert await b.acquire("AgAAAx2") == 0  # another inline message
    assert await b.acquire(-100) == 0  # and the chats go on
    assert await editing is True and calls == ["edit", "edit"]


async def test_a_flood_of_sends_and_edits_keeps_the_bot_apis_limits(
        clients: Callable[[], aioredis.Redis]) -> None:
    """End to end, on real time with Telegram's windows sped up 20 times (not
    the margin: the way to the server takes as long): two workers send and
    edit in one group and a private chat all at once; the test server, which
    answers 429 above Telegram's limits, never has to, and every message
    arrives."""
    speed = 20.0
    with BotApiServer(limits_speed=speed) as server:
        group, alice = server.add_group("Club"), server.private_chat(server.add_user("Alice"))
        workers = pair(clients, Clock(), max_retries=0,
                       group=Window(20, 60.0 / speed), private=Window(5, 5.0 / speed))
        for worker in workers:
            worker.clock = time.time  # real time: the server's windows run on it
            worker.outbox = ChatOutbox(worker._reserve, clock=time.time)
        bots = [ExtBot(server.token or "", base_url=server.base_url, rate_limiter=worker)
                for worker in workers]
        async with bots[0], bots[1]:
            board = await bots[0].send_message(group.id, "board")
            sends = [bot.send_message(chat, f"{n}") for n in range(24)
                     for bot, chat in ((bots[n % 2], group.id), (bots[1 - n % 2], alice.id))]
            edits = [bots[n % 2].edit_message_text(f"board {n}", chat_id=group.id,
                                                   message_id=board.message_id)
                     for n in range(10)]
            await asyncio.gather(*sends, *edits)
        assert server.breaches == 0
        assert len(server.messages(group.id)) == 25


class VirtualTime:
    """A clock and a sleep on virtual time: every task runs until it sleeps,
    then the clock jumps to the earliest wake-up (no wall clock anywhere)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = 0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        woken = asyncio.get_running_loop().create_future()
        self._order += 1
        self._sleepers.append((self.now + max(0.0, seconds), self._order, woken))
        await woken

    async def run(self, work: asyncio.Future[Any]) -> None:
        while not work.done():
            for _ in range(200):  # let every runnable task run until it sleeps
                await asyncio.sleep(0)
            if not self._sleepers:
                continue
            self._sleepers.sort(key=lambda s: s[:2])
            at, _, woken = self._sleepers.pop(0)
            self.now = max(self.now, at)
            woken.set_result(None)


async def test_a_request_delayed_beyond_the_margin_cannot_make_21_in_60_s(
        clients: Callable[[], aioredis.Redis]) -> None:
    """The event loop lags (2,000 open Mini Apps): the first 20 messages of a
    group reach the server 2 s after their reserved time, more than
    :data:`MARGIN`; the later ones at once.  With each entry at its reserved
    time the 21st left 61 s after the first 20 were reserved and reached the
    server 59 s after them: 21 in 60 s, a 429.  Each entry now moves to the
    time its request came back, and the next time is reserved only then: no
    60 s at the server holds more than 20, whatever the delays."""
    time_ = VirtualTime()
    limiter = SharedRateLimiter(clock=time_, sleep=time_.sleep, overall=Window(1000, 1.0))
    limiter.attach(FloodBuckets(clients()))
    arrived: list[float] = []

    async def send(delay: float) -> bool:
        await time_.sleep(delay)  # the lag before the request reaches the server
        arrived.append(time_.now)
        await time_.sleep(0.05)  # and the answer's way back
        return True

    requests = [limiter.process_request(send, (2.0 if n < 20 else 0.0,), {}, "sendMessage",
                                        {"chat_id": -100, "reply_markup": "{}"}, None)
                for n in range(45)]
    work = asyncio.gather(*requests)
    await time_.run(work)
    assert all(await work)
    arrived.sort()
    assert len(arrived) == 45
    closest = min(arrived[i + 20] - arrived[i] for i in range(len(arrived) - 20))
    assert closest >= 60.0, f"21 messages within {closest:.2f} s at the server"
