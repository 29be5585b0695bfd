"""The Mini App's live updates (bot/edge/live.py): one Redis subscription per worker,
fanned out in memory to every waiting long poll; every poll is woken with the new
version, and none misses a change told while the subscription was lost (the
re-read when it is made again).  The reconnect's pause is injected: order, not time."""

from __future__ import annotations

import asyncio
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError

from bot.edge.live import LiveGames
from bot.store import Store
from tests.bot.store.test_store import CHAT, new_game

POLLS = 300


class _Cuttable:
    """A pub/sub whose connection the test cuts (its next read fails, as a lost one)."""

    def __init__(self, inner: Any, owner: _Games) -> None:
        self.inner, self.owner, self.cut = inner, owner, False

    async def subscribe(self, *channels: str) -> None:
        await self.inner.subscribe(*channels)

    async def get_message(self, **kwargs: Any) -> Any:
        if self.cut:
            raise RedisConnectionError("connection lost")
        return await self.inner.get_message(**kwargs)

    async def aclose(self) -> None:
        self.owner.open -= 1
        await self.inner.aclose()


class _Games:
    """The store's games part, counting its subscriptions and version reads."""

    def __init__(self, games: Any) -> None:
        self.games, self.made, self.open, self.reads = games, [], 0, 0
        self.changes = games.changes
        self.most_open = 0

    def subscription(self) -> _Cuttable:
        self.made.append(_Cuttable(self.games.subscription(), self))
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        return self.made[-1]

    async def versions(self, names: list[str]) -> list[int]:
        self.reads += 1
        result: list[int] = await self.games.versions(names)
        return result


class _Store:
    def __init__(self, store: Store) -> None:
        self.games = _Games(store.games)


class _Gate:
    """The pause before subscribing again: it returns when the test opens it."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.waiting = 0

    async def __call__(self, _seconds: float) -> None:
        self.waiting += 1
        await self.open.wait()


async def _until(condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached")


async def _polls(live: LiveGames, name: str, after: int, count: int
                 ) -> tuple[list[asyncio.Task[int]], asyncio.Event]:
    """``count`` polls waiting on ``name`` past ``after``; each gives the version it got."""
    entered = asyncio.Event()
    inside = [0]

    async def poll() -> int:
        async with live.listen(name, after) as moved:
            inside[0] += 1
            if inside[0] == count:
                entered.set()
            return await moved

    return [asyncio.create_task(poll()) for _ in range(count)], entered


async def test_many_polls_one_subscription_every_one_woken_none_missed_across_a_reconnect(
        store: Store) -> None:
    watched = _Store(store)
    gate = _Gate()
    live = LiveGames(lambda: watched, sleep=gate)  # type: ignore[arg-type,return-value]
    saved = await store.games.save(new_game(), 0)
    other = await store.games.save(new_game(), 0)
    name = store.games.name_of(CHAT, saved.game_id)
    try:
        polls, entered = await _polls(live, name, 1, POLLS)
        bystanders, _ = await _polls(live, store.games.name_of(CHAT, other.game_id), 1, 5)
        await entered.wait()
        await _until(lambda: live.subscribed)
        assert live.waiting() == POLLS + 5
        reads = watched.games.reads
        await store.games.save(saved.model_copy(update={"engine": {"n": 1}}), 1)
        assert await asyncio.wait_for(asyncio.gather(*polls), 5) == [2] * POLLS
        assert watched.games.reads == reads  # woken from memory: no read per poll
        assert not any(task.done() for task in bystanders)  # another game's polls wait on
        assert len(watched.games.made) == 1 and live.subscriptions == 1

        # the subscription is lost; a save while nobody listens is told to nobody...
        polls, entered = await _polls(live, name, 2, POLLS)
        await entered.wait()
        watched.games.made[-1].cut = True
        await _until(lambda: gate.waiting == 1)
        assert not live.subscribed and watched.games.open == 0
        await store.games.save(saved.model_copy(update={"engine": {"n": 2}}, ), 2)
        await asyncio.sleep(0.05)
        assert not any(task.done() for task in polls)
        # ...and read again as soon as the subscription is made again
        gate.open.set()
        assert await asyncio.wait_for(asyncio.gather(*polls), 5) == [3] * POLLS
        assert live.subscriptions == 2 and live.lost == 1 and watched.games.most_open == 1
        assert not any(task.done() for task in bystanders)  # their game did not move
    finally:
        await live.stop()
        for task in bystanders:
            task.cancel()


async def test_a_poll_for_a_version_already_passed_is_not_woken_by_an_older_one(
        store: Store) -> None:
    live = LiveGames(lambda: store)
    try:
        async with live.listen("k", 5) as moved:
            assert live.wake("k", 4) == 0 and not moved.done()  # a late, older message
            assert live.wake("k", 6) == 1 and moved.result() == 6
        async with live.listen("k", 5) as moved:
            assert live.wake("k", 0) == 1  # the record was deleted
        assert live.waiting() == 0
    finally:
        await live.stop()


async def test_with_nobody_waiting_the_subscription_is_given_up_and_made_again(
        store: Store) -> None:
    now = [0.0]
    watched = _Store(store)
    live = LiveGames(lambda: watched, linger=10, clock=lambda: now[0])  # type: ignore
    saved = await store.games.save(new_game(), 0)
    name = store.games.name_of(CHAT, saved.game_id)
    try:
        async with live.listen(name, 1):
            await _until(lambda: live.subscribed)
        now[0] = 5
        await asyncio.sleep(1.1)
        assert live.subscribed  # lingers
        now[0] = 20
        await _until(lambda: not live.subscribed)
        async with live.listen(name, 1) as moved:
            await _until(lambda: live.subscribed)
            await store.games.save(saved.model_copy(update={"engine": {"n": 1}}), 1)
            assert await asyncio.wait_for(moved, 5) == 2
        assert live.subscriptions == 2 and watched.games.open == 1
    finally:
        await live.stop()
