"""The keys every save writes are sharded by chat (bot/store/keys.py SHARDS), and
the unsharded keys of before are moved into the shards (bot/store/shards.py)."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio.client
import redis.asyncio.cluster
from redis.crc import key_slot

from bot.store import Store
from bot.store.keys import SHARDS, shard_of
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from engine.position import Side, Variant
from tests.bot.store.booked import end


def one_chat_per_shard() -> list[int]:
    chats: dict[int, int] = {}
    chat = -1001000000000
    while len(chats) < SHARDS:
        chats.setdefault(shard_of(chat), chat)
        chat -= 1
    return list(chats.values())


def timed_game(chat: int, status: Status = Status.ACTIVE) -> GameRecord:
    user = -2 * chat  # players of their own: only the chat's shard is in common
    return GameRecord(chat_id=chat, status=status, variant=Variant.LONG,
                      players=(Player(user_id=user, name="A", side=Side.WHITE),
                               Player(user_id=user + 1, name="B", side=Side.BLACK)),
                      options=TableOptions(time_control=3600), deadline=1e9)


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[set[int]]:
    """The hash slots of the keys each command names, as sent (pipelines too)."""
    slots: list[set[int]] = []

    def spy(cls: Any) -> None:
        original = cls.execute_command

        def execute_command(self: Any, *args: Any, **kwargs: Any) -> Any:
            names = [a if isinstance(a, bytes) else a.encode() for a in args[1:]
                     if isinstance(a, str | bytes) and bytes(a[:6], *(("ascii",) if
                                                                  isinstance(a, str) else ()))
                     == b"nardy:"]
            slots[-1].update(key_slot(name) for name in names)
            return original(self, *args, **kwargs)
        monkeypatch.setattr(cls, "execute_command", execute_command)

    for cls in (redis.asyncio.client.Redis, redis.asyncio.client.Pipeline,
                redis.asyncio.cluster.RedisCluster, redis.asyncio.cluster.ClusterPipeline):
        spy(cls)
    return slots


async def test_saves_in_chats_of_different_shards_touch_no_common_slot(
        store: Store, written: list[set[int]]) -> None:
    for chat in one_chat_per_shard():
        written.append(set())
        saved = await store.games.save(timed_game(chat), 0)
        await end(store, saved, saved.version, Status.FINISHED)
        shard = {key_slot(store.keys.open_shard(saved.ref).encode()),
                 key_slot(store.keys.deadline_shard(saved.ref)[0].encode())}
        assert shard <= written[-1]  # the spy sees the index upkeep's pipeline
    for i, one in enumerate(written):
        for other in written[i + 1:]:
            assert not one & other, "two saves in different chats wrote to one hash slot"
    assert await store.games.open_game_count() == 0


async def test_the_readers_find_every_shard(store: Store) -> None:
    chats = one_chat_per_shard()
    games = [await store.games.save(timed_game(chat), 0) for chat in chats]
    assert await store.games.open_game_count() == SHARDS
    assert {g.ref for g in await store.board.behind(100)} == {g.ref for g in games}
    claims = await store.clock.claim_due(now=2e9, lease=60, limit=5)
    claims += await store.clock.claim_due(now=2e9, lease=60)
    assert sorted(str(c.ref) for c in claims) == sorted(str(g.ref) for g in games)
    for claim in claims:
        await store.clock.ack(claim.ref)
    assert await store.clock.claim_due(now=3e9) == []


async def test_the_unsharded_keys_of_before_are_moved_into_the_shards(store: Store) -> None:
    chats = one_chat_per_shard()[:4]
    old = [timed_game(chat) for chat in chats]
    redis, keys = store.redis, store.keys
    await redis.sadd(keys.open_games, *(str(g.ref) for g in old))  # as the code before wrote
    await redis.zadd(keys.deadlines[0], {str(old[0].ref): 100.0, str(old[1].ref): 5e9})
    await redis.zadd(keys.deadlines[1], {str(old[2].ref): 150.0})  # claimed, its lease ends
    await store.clock.schedule(old[1].ref, 200.0)  # a save since then: its time stays
    assert await store.games.open_game_count() == 4
    assert not await redis.exists(keys.open_games)
    assert {str(c.ref): c.due for c in await store.clock.claim_due(now=1000.0)} == {
        str(old[0].ref): 100.0, str(old[1].ref): 200.0, str(old[2].ref): 1000.0}
    assert not await redis.exists(*keys.deadlines)
    await redis.zadd(keys.deadlines[0], {str(old[3].ref): 300.0})  # an old worker, still
    [late] = await store.clock.claim_due(now=1000.0)
    assert late.ref == old[3].ref


async def test_turn_pings_of_chats_in_different_shards_touch_no_common_slot(
        store: Store, written: list[set[int]]) -> None:
    """Every turn queues a delayed ping (bot/edge/handlers/board.py): one key for all
    of them would send every turn of every chat to one cluster node."""
    games = [timed_game(chat) for chat in one_chat_per_shard()]
    for game in games:
        written.append(set())
        await store.clock.ping_later(game.ref, 3, due=100.0)
        assert key_slot(store.keys.ping_shard(game.ref)[0].encode()) in written[-1]
    for i, one in enumerate(written):
        for other in written[i + 1:]:
            assert not one & other, "two chats' pings were queued in one hash slot"
    first = await store.clock.claim_pings(now=200.0, lease=60, limit=5)
    rest = await store.clock.claim_pings(now=200.0, lease=60)
    assert sorted(str(r) for r, _ in first + rest) == sorted(str(g.ref) for g in games)
    assert {v for _, v in first + rest} == {3}
    for ref, version in first + rest:
        await store.clock.ack_ping(ref, version)
    assert await store.clock.claim_pings(now=1e9, lease=60) == []  # acked: never handed out again


async def test_a_ping_an_older_worker_queued_unsharded_is_still_sent(store: Store) -> None:
    game = timed_game(one_chat_per_shard()[0])
    await store.redis.zadd(store.keys.pings[0], {f"7@{game.ref}": 100.0})  # as before
    assert await store.clock.claim_pings(now=50.0, lease=60) == []  # not due yet
    [(ref, version)] = await store.clock.claim_pings(now=150.0, lease=60)
    assert (ref, version) == (game.ref, 7)
    assert await store.clock.claim_pings(now=150.0, lease=60) == []  # leased
    await store.clock.ack_ping(ref, version)
    assert not await store.redis.exists(*store.keys.pings)
    assert await store.clock.claim_pings(now=1e9, lease=60) == []
