"""A step that landed is reported as landed, also when its reply was lost
(issue 22 item 4): in a failover Redis runs a script and the connection drops
before the answer, the client (or the store) runs it again, and the repeat
must not read as a lost race ("Sorry, something went wrong", "out of date").
And the copy kept for /analyze of a game booked by a worker that died before
keeping it is repaired when it is asked for."""

from __future__ import annotations

from typing import Any

import pytest
from redis.exceptions import ClusterDownError
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.store import Store, VersionConflict
from bot.store.analysis import kept_copy
from bot.store.client import Unavailable, idempotent
from bot.vocab.records import ChatSettings, Status, settings_key
from tests.bot.store.test_store import ALICE, BOB, CHAT, new_game
from tests.bot.store.test_store import finished as finished_game


def _lose_first_reply(script: Any, error: Exception) -> Any:
    """``script`` that runs, then fails as if its reply was lost, the first time."""
    calls = []

    async def lossy(**kwargs: Any) -> Any:
        result = await script(**kwargs)
        calls.append(result)
        if len(calls) == 1:
            raise error
        return result

    return lossy


@pytest.mark.parametrize("error", [RedisConnectionError("reset by peer"),
                                   ClusterDownError("CLUSTERDOWN The cluster is down")])
async def test_a_save_whose_reply_was_lost_reports_its_version(store: Store,
                                                               error: Exception) -> None:
    game = await store.games.save(new_game(), 0)
    moved = game.model_copy(update={"engine": {"n": 1}})
    store.games._save_game = _lose_first_reply(store.games._save_game, error)  # type: ignore[method-assign]
    saved = await store.games.save(moved, game.version)
    assert saved.version == game.version + 1
    assert await store.games.load_game(CHAT, game.game_id) == saved


async def test_another_write_of_the_same_record_still_loses_the_race(store: Store) -> None:
    # two writers that made the very same record from one version: one of them lands
    game = await store.games.save(new_game(), 0)
    moved = game.model_copy(update={"engine": {"n": 1}})
    assert (await store.games.save(moved, game.version)).version == game.version + 1
    with pytest.raises(VersionConflict):
        await store.games.save(moved, game.version)
    settings = await store.games.update(settings_key(CHAT), lambda s: ChatSettings(chat_id=CHAT))
    with pytest.raises(VersionConflict):
        await store.games.save(settings, 0)


async def test_a_booking_whose_reply_was_lost_is_booked_once(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    done, entry = finished_game(game)
    store.ledger._finish = _lose_first_reply(  # type: ignore[method-assign]
        store.ledger._finish, RedisConnectionError("reset by peer"))
    result = await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})
    assert result.record.version == game.version + 1 and result.record.status is Status.FINISHED
    assert await store.ledger.balance(CHAT, ALICE,
                                     BOB) == 10 and await store.ledger.history(CHAT) == [entry]


async def test_a_step_that_never_gets_through_is_unavailable() -> None:
    async def down() -> None:
        raise RedisConnectionError("connection refused")

    with pytest.raises(Unavailable):
        await idempotent(down, budget=0.2)


async def test_a_finished_game_never_kept_is_kept_when_asked_for(store: Store) -> None:
    game = await store.games.save(new_game(engine={"game": {"x": 1}}), 0)
    done, entry = finished_game(game)
    booked = (await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})).record
    # the worker died after the booking, before its upkeep (bot/service/ending.py after_end)
    assert await store.redis.exists(store.keys.chat(CHAT, f"finished:{game.game_id}")) == 0
    kept = await store.analysis.recent(CHAT, any_topic=True)
    assert [record.game_id for record in kept] == [game.game_id]
    assert kept[0] == kept_copy(booked)
    await store.redis.delete(store.keys.chat(CHAT, "finished"),
                             store.keys.chat(CHAT, f"finished:{game.game_id}"))
    assert await store.analysis.load(CHAT, game.game_id) == kept_copy(booked)


async def test_a_connection_dropped_under_the_client_is_tried_again() -> None:
    # redis-py's cluster client, right after a node failed, may write to a
    # connection another task just closed: an AttributeError from inside redis-py
    import redis.asyncio.connection as inside

    calls = []

    async def racy() -> str:
        calls.append(1)
        if len(calls) == 1:
            # code that runs as redis-py's own (its file name): where the race raises
            exec(compile("None.writelines([])", inside.__file__, "exec"), {})
        return "ok"

    assert await idempotent(racy, budget=5) == "ok" and len(calls) == 2

    async def ours() -> None:
        raise AttributeError("a bug of ours is not retried")

    with pytest.raises(AttributeError):
        await idempotent(ours, budget=5)
