"""The flood limiter is shared: two workers (two limiters on one Redis) draw
from the same per-chat and per-bot buckets, and a 429 seen by one holds back
the other."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from telegram.error import RetryAfter

from bot.edge.limits import SharedRateLimiter
from bot.store.flood import FloodBuckets


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


async def test_two_workers_share_a_chats_bucket(clients: Callable[[], aioredis.Redis]) -> None:
    clock = Clock()
    a, b = pair(clients, clock, group_rate=5, group_burst=2, bot_rate=1000)
    waits = [await (a if i % 2 else b).acquire(-100) for i in range(6)]
    # a burst of two, then one every 1/5 s: queued across both workers
    assert waits == pytest.approx([0, 0, 0.2, 0.4, 0.6, 0.8])
    assert await a.acquire(-200) == 0  # another chat has its own bucket
    clock.now += 1.0  # five tokens refill; four were owed
    assert await b.acquire(-100) == pytest.approx(0)
    assert await a.acquire(-100) == pytest.approx(0.2)


async def test_the_bots_overall_bucket_spans_chats(clients: Callable[[], aioredis.Redis]) -> None:
    a, b = pair(clients, Clock(), group_rate=100, group_burst=100, bot_rate=10)
    waits = [await (a if i % 2 else b).acquire(-i) for i in range(12)]  # 12 chats
    assert waits[:10] == [0] * 10 and waits[10:] == pytest.approx([0.1, 0.2])


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_flood_wait_holds_back_the_other_worker(
        clients: Callable[[], aioredis.Redis]) -> None:
    clock = Clock()
    a, b = pair(clients, clock, group_rate=1, group_burst=20, bot_rate=1000)
    calls: list[str] = []

    async def send(text: str) -> bool:
        calls.append(text)
        if len(calls) == 1:
            raise RetryAfter(datetime.timedelta(seconds=1))
        return True

    sending = asyncio.create_task(a.process_request(send, ("hi",), {}, "sendMessage",
                                                    {"chat_id": -100}, None))
    await asyncio.sleep(0.05)  # a got the 429 and waits it out
    assert await b.acquire(-100) == pytest.approx(2.0)  # 1 s penalty + its own token
    assert await b.acquire(-300) == 0
    assert await sending is True and calls == ["hi", "hi"]


async def test_answers_to_taps_are_never_throttled(clients: Callable[[], aioredis.Redis]) -> None:
    a, _ = pair(clients, Clock(), group_rate=0.001, group_burst=1, bot_rate=1000)
    assert await a.acquire(-100) == 0
    assert await a.acquire(-100) > 100  # the chat's bucket is empty for a long time

    async def answer() -> bool:
        return True

    result = await asyncio.wait_for(a.process_request(
        answer, (), {}, "answerCallbackQuery", {"callback_query_id": "1"}, None), 1)
    assert result is True


async def test_without_redis_it_does_not_throttle() -> None:
    limiter = SharedRateLimiter(chat_rate=0.001, chat_burst=1)
    assert [await limiter.acquire(-1) for _ in range(3)] == [0, 0, 0]


async def test_telegrams_budget_a_group_and_a_private_chat(
        clients: Callable[[], aioredis.Redis]) -> None:
    """About 20 messages a minute in a group (edits count), one a second in a private chat."""
    clock = Clock()
    a, _ = pair(clients, clock, bot_rate=1000)  # the defaults of the chat buckets
    group = [await a.acquire(-100) for _ in range(30)]
    assert group[:10] == [0] * 10  # a quick turn's few edits go at once
    assert group[10:12] == pytest.approx([3.0, 6.0])  # then one every 3 s: 20 a minute
    private = [await a.acquire(42) for _ in range(7)]
    assert private[:5] == [0] * 5 and private[5:] == pytest.approx([1.0, 2.0])


async def test_an_inline_message_has_a_bucket_of_its_own(
        clients: Callable[[], aioredis.Redis]) -> None:
    """Edits of an inline game's message are throttled at a group's rate on a bucket
    named by its inline_message_id; its 429 holds back that message only."""
    clock = Clock()
    a, b = pair(clients, clock, group_rate=1, group_burst=1, bot_rate=1000)
    calls: list[str] = []

    async def edit() -> bool:
        calls.append("edit")
        if len(calls) == 1:
            raise RetryAfter(datetime.timedelta(seconds=1))
        return True

    editing = asyncio.create_task(a.process_request(
        edit, (), {}, "editMessageText", {"inline_message_id": "AgAAAx1"}, None))
    await asyncio.sleep(0.05)  # a got the 429 and waits it out
    assert await b.acquire("AgAAAx1") == pytest.approx(2.0)  # 1 s penalty + its own token
    assert await b.acquire("AgAAAx2") == 0  # another inline message
    assert await b.acquire(-100) == 0  # and the chats go on
    assert await editing is True and calls == ["edit", "edit"]
