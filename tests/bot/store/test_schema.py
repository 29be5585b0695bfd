"""Game records of schema 1 (one game per chat or topic) move to schema 2 (one
key per game): at start-up for every chat, or when a chat is first looked at.

``legacy_v1.json`` holds every key that the code before issue 18 wrote (main
at the commit it names) for: a group with a timed game being played (its
board shown at version 4, a turn ping), a forum with a finished game (topic
5), a lobby (topic 9) and a match between two games (topic 12), a private
game by invitation with a board in each player's chat, and a game against
the computer.  It was made by running that code's own save path (rules
and Store) on fakeredis and dumping each key by type.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.store import Store, schema
from bot.store.schema import upgrade_chat
from bot.vocab.records import CorruptRecordError, GameRecord, Status, decode
from tests.bot.store.booked import end
from tests.bot.store.cluster import every_key

FIXTURE = json.loads((Path(__file__).parent / "legacy_v1.json").read_text())
KEYS: dict[str, dict[str, Any]] = FIXTURE["keys"]
GROUP, FORUM, SOLO = -1001000000777, -1001000000888, -1001000000999
PRIVATE = -4747003376777382
ALICE, BOB = 1001, 1002


async def restore(store: Store, keys: dict[str, dict[str, Any]] = KEYS) -> None:
    """Write the fixture's keys as they were stored."""
    redis = store.redis
    for name, entry in keys.items():
        kind, value = entry["type"], entry["value"]
        if kind == "hash":
            await redis.hset(name, mapping=value)
        elif kind == "set":
            await redis.sadd(name, *value)
        elif kind == "zset":
            await redis.zadd(name, {member: score for member, score in value})
        elif kind == "list":
            await redis.rpush(name, *value)
        else:
            await redis.set(name, value)
        if "ttl" in entry:
            await redis.expire(name, entry["ttl"])


def old(chat: int, topic: int) -> GameRecord:
    """The fixture's record of a chat or topic, as the old code stored it."""
    entry = KEYS[f"nardy:{{chat:{chat}}}:game:{topic}"]["value"]
    return decode(GameRecord, "fixture", entry["d"], int(entry["v"]))


OLD = {(chat, topic): old(chat, topic) for chat, topic in
       ((GROUP, 0), (FORUM, 5), (FORUM, 9), (FORUM, 12), (PRIVATE, 0), (SOLO, 0))}


def test_the_fixture_is_schema_1_of_the_old_layout() -> None:
    assert all(json.loads(KEYS[f"nardy:{{chat:{c}}}:game:{t}"]["value"]["d"])["schema_version"]
               == 1 for c, t in OLD)
    assert OLD[(FORUM, 5)].status is Status.FINISHED and OLD[(FORUM, 9)].status is Status.LOBBY
    assert OLD[(FORUM, 12)].status is Status.FINISHED and OLD[(FORUM, 12)].is_live


async def assert_moved(store: Store) -> None:
    """Every game is at its own key, with its version, JSON and board marks."""
    assert await every_key(store.redis, "*:game:*") == []
    assert await every_key(store.redis, "*:notify:*") == []
    for (chat, _topic), before in OLD.items():
        after = await store.games.load_game(chat, before.game_id)
        assert after == before.model_copy(update={"schema_version": 2}), (chat, _topic)
        assert store.keys.record(after.key) == f"nardy:{{chat:{chat}}}:g:{before.game_id}"
    group = OLD[(GROUP, 0)]
    assert await store.games.shown(group) == {(GROUP, 41): 4}
    assert await store.games.shown(OLD[(PRIVATE, 0)]) == {(ALICE, 5): 1, (BOB, 6): 1}
    assert await store.games.take_notification(GROUP, group.game_id) == "42"
    assert await store.games.take_notification(PRIVATE, OLD[(PRIVATE, 0)].game_id) == f"{BOB}:7"
    # live: the lobby and the match between games; ended: the finished single game
    assert [g.game_id for g in await store.games.chat_games(FORUM, 9)] == [OLD[(FORUM, 9)].game_id]
    assert [g.game_id for g in await store.games.chat_games(FORUM, 12)] == [OLD[(FORUM,
                                                                                 12)].game_id]
    assert [g.game_id for g in await store.games.chat_games(FORUM, 5)] == [OLD[(FORUM, 5)].game_id]
    assert await store.games.live_count(FORUM, 9) == 1 and await store.games.live_count(FORUM,
                                                                                        5) == 0
    ended = store.keys.record(OLD[(FORUM, 5)].key)
    assert 0 < await store.redis.ttl(ended) <= 30 * 24 * 3600
    assert await store.redis.ttl(store.keys.record(group.key)) == -1
    # indexes across slots still find the games
    assert {g.game_id for g in await store.games.user_games(ALICE)} == {
        group.game_id, OLD[(PRIVATE, 0)].game_id}
    [claim] = await store.clock.claim_due(now=group.deadline + 1e9)
    assert claim.ref == group.ref
    ref = await store.board.game_of(BOB, 6)
    assert ref is not None and await store.games.load_game(ref.chat_id, ref.game_id) is not None


async def test_upgrade_all_moves_every_game_once(store: Store) -> None:
    await restore(store)
    assert not await schema.is_current(store.redis, store.keys)
    assert await store.upgrade_schema() == 6
    assert await schema.is_current(store.redis, store.keys)
    await assert_moved(store)
    assert await store.upgrade_schema() == 0
    for chat in (GROUP, FORUM, SOLO, PRIVATE):
        assert await upgrade_chat(store.redis, store.keys, chat) == 0


async def test_workers_upgrading_at_once_move_each_record_once(store: Store) -> None:
    await restore(store)
    counts = await asyncio.gather(*(upgrade_chat(store.redis, store.keys, chat)
                                    for chat in (FORUM, FORUM, FORUM, GROUP, GROUP)))
    assert sum(counts[:3]) == 3 and sum(counts[3:]) == 1
    assert await store.upgrade_schema() == 2  # the private game and the computer's
    await assert_moved(store)


async def test_a_chat_is_upgraded_when_it_is_first_looked_at(store: Store) -> None:
    await restore(store)
    # no start-up pass: a tap names its game by id, a command lists the chat's games
    group = OLD[(GROUP, 0)]
    assert await store.games.load_game(GROUP, group.game_id) is not None
    assert [g.game_id for g in await store.games.chat_games(FORUM, 9)] == [OLD[(FORUM, 9)].game_id]
    assert {g.game_id for g in await store.games.user_games(BOB)} == {
        group.game_id, OLD[(PRIVATE, 0)].game_id, OLD[(SOLO, 0)].game_id}
    assert await store.upgrade_schema() == 0  # everything was moved on the way
    await assert_moved(store)


async def test_a_moved_game_goes_on_at_its_version(store: Store) -> None:
    await restore(store)
    await store.upgrade_schema()
    game = await store.games.load_game(GROUP, OLD[(GROUP, 0)].game_id)
    assert game is not None and game.version == 4
    saved = await end(store, game, 4, Status.CANCELLED)
    assert saved.version == 5 and await store.games.live_count(GROUP, None) == 0


async def test_a_record_that_does_not_read_is_left_and_reported(store: Store) -> None:
    broken = dict(KEYS)
    name = f"nardy:{{chat:{FORUM}}}:game:9"
    broken[name] = {"type": "hash", "value": {"v": "2", "d": '{"schema_version": 1}'}}
    await restore(store, broken)
    with pytest.raises(CorruptRecordError) as caught:
        await upgrade_chat(store.redis, store.keys, FORUM)
    assert caught.value.key == name
    assert await store.redis.hget(name, "d") == b'{"schema_version": 1}'
    # the chat's other games moved; the scan goes on and leaves the mark unset
    assert await store.games.load_game(FORUM, OLD[(FORUM, 12)].game_id) is not None
    assert await store.upgrade_schema() == 3
    assert not await schema.is_current(store.redis, store.keys)
