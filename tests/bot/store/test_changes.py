"""Every save of a game is told on the store's changes channel, in the saving script
itself (bot/store/layout.py PLACE), on every back end (fakeredis and a local Redis
Cluster: a PUBLISH on one node is heard on any): the Mini App's open apps follow
their games through one subscription per worker (bot/edge/live.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.edge.live import LiveGames, parse
from bot.store import Store
from bot.vocab.records import Status
from tests.bot.store.booked import end
from tests.bot.store.test_store import CHAT, new_game


async def _told(pubsub: Any, count: int) -> list[tuple[str, int]]:
    got: list[tuple[str, int]] = []
    for _ in range(200):
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)
        if message is not None and message["type"] == "message":
            change = parse(message["data"])
            assert change is not None
            got.append(change)
            if len(got) == count:
                return got
    return got


async def test_every_kind_of_save_tells_the_new_version(store: Store) -> None:
    pubsub = store.games.subscription()
    await pubsub.subscribe(store.games.changes)
    try:
        saved = await store.games.save(new_game(), 0)  # created
        name = store.games.name_of(CHAT, saved.game_id)
        moved = await store.games.save(saved.model_copy(update={"engine": {"n": 1}}), 1)
        rematch = new_game(engine={"n": 9})
        ended = await end(store, moved, moved.version)  # booked by the ledger's script
        assert ended.version == 3
        other = await store.games.save(rematch, 0)
        await store.games.delete(other)
        got = await _told(pubsub, 5)
        other_name = store.games.name_of(CHAT, other.game_id)
        assert got == [(name, 1), (name, 2), (name, 3), (other_name, 1), (other_name, 0)]
    finally:
        await pubsub.aclose()


async def test_a_continuation_tells_both_records(store: Store) -> None:
    pubsub = store.games.subscription()
    await pubsub.subscribe(store.games.changes)
    try:
        old = await store.games.save(new_game(status=Status.FINISHED), 0)
        nxt = new_game(engine={"n": 2})
        closing = old.model_copy(update={"status": Status.CANCELLED})
        await store.games.save_first(nxt, 0, closes=closing)
        got = await _told(pubsub, 3)
        assert (store.games.name_of(CHAT, nxt.game_id), 1) in got
        assert (store.games.name_of(CHAT, old.game_id), 2) in got
    finally:
        await pubsub.aclose()


async def test_the_live_games_wake_a_poll_on_any_back_end(store: Store) -> None:
    live = LiveGames(lambda: store)
    saved = await store.games.save(new_game(), 0)
    name = store.games.name_of(CHAT, saved.game_id)
    try:
        async with live.listen(name, 1) as moved:
            for _ in range(200):  # the subscription is confirmed
                if live.subscribed:
                    break
                await asyncio.sleep(0.01)
            await store.games.save(saved.model_copy(update={"engine": {"n": 1}}), 1)
            assert await asyncio.wait_for(moved, 5) == 2
        assert live.subscriptions == 1
    finally:
        await live.stop()
