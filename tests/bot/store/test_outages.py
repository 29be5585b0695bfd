"""An outage is never a corrupt record (issue 37 item 1): in a master failover
a cluster answers CLUSTERDOWN, TRYAGAIN, MOVED, READONLY...  — several of them
``ResponseError``s, the class a key of another type raises too.  Read as
"not a hash", the player was told "Sorry, something went wrong" of a tap
whose retry then applied it.  Such a reply is retried (and, if it lasts, is an
outage the update's retry waits out); only a real wrong-type key is corrupt."""

from __future__ import annotations

from typing import Any

import pytest
from redis.exceptions import (
    ClusterDownError,
    MovedError,
    ReadOnlyError,
    ResponseError,
    TryAgainError,
)

from bot.store import Store
from bot.store.client import Unavailable, corrupt_or_transient, idempotent, is_transient
from bot.vocab.records import CorruptRecordError
from tests.bot.store.test_store import CHAT, new_game

OUTAGES = [ClusterDownError("The cluster is down"), TryAgainError("TRYAGAIN Multiple keys"),
           MovedError("3999 127.0.0.1:6381"), ReadOnlyError("You can't write against a replica"),
           ResponseError("Error running script: @user_script:3: CLUSTERDOWN The cluster is down")]


class _FirstPipelineFails:
    """The store's client, whose first pipeline answers ``error`` for its first
    command (a cluster pipeline run with ``raise_on_error=False`` hands errors
    back as values)."""

    def __init__(self, redis: Any, error: Exception) -> None:
        self._redis, self._error, self.pipelines = redis, error, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._redis, name)

    def pipeline(self, *args: Any, **kwargs: Any) -> Any:
        pipe = self._redis.pipeline(*args, **kwargs)
        self.pipelines += 1
        if self.pipelines > 1:
            return pipe
        execute, error = pipe.execute, self._error

        async def failing(*a: Any, **k: Any) -> list[Any]:
            values = list(await execute(*a, **k))
            return [error, *values[1:]]

        pipe.execute = failing
        return pipe


@pytest.mark.parametrize("error", OUTAGES, ids=lambda e: type(e).__name__)
async def test_a_failover_reply_to_a_taps_read_is_retried_not_corrupt(store: Store,
                                                                      error: Exception) -> None:
    game = await store.games.save(new_game(), 0)
    flaky = _FirstPipelineFails(store.games.redis, error)
    store.games.redis = flaky  # type: ignore[assignment]
    record, settings, _ = await store.games.load_with_settings(CHAT, game.game_id)
    assert record == game and settings.chat_id == CHAT
    assert flaky.pipelines == 2  # read again


@pytest.mark.parametrize("error", OUTAGES, ids=lambda e: type(e).__name__)
async def test_a_failover_reply_to_a_save_is_retried(store: Store, error: Exception) -> None:
    game = await store.games.save(new_game(), 0)
    script, calls = store.games._save_game, []

    async def failing_once(**kwargs: Any) -> Any:
        calls.append(kwargs)
        if len(calls) == 1:
            raise error  # refused before it ran: a failover's reply
        return await script(**kwargs)

    store.games._save_game = failing_once  # type: ignore[method-assign]
    moved = game.model_copy(update={"engine": {"n": 1}})
    assert (await store.games.save(moved, game.version)).version == game.version + 1
    assert len(calls) == 2


@pytest.mark.parametrize("error", OUTAGES, ids=lambda e: type(e).__name__)
def test_an_outage_is_transient_and_a_wrong_type_is_corrupt(error: Exception) -> None:
    assert is_transient(error)
    assert not isinstance(corrupt_or_transient("k", error), CorruptRecordError)
    wrong = ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")
    assert not is_transient(wrong)
    assert isinstance(corrupt_or_transient("k", wrong), CorruptRecordError)


async def test_an_outage_that_lasts_is_unavailable_not_corrupt() -> None:
    async def down() -> None:
        raise ClusterDownError("The cluster is down")

    with pytest.raises(Unavailable):
        await idempotent(down, budget=0.2)


async def test_a_key_of_another_type_is_still_corrupt(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    name = store.keys.record(game.key)
    await store.redis.delete(name)
    await store.redis.set(name, "x")
    with pytest.raises(CorruptRecordError):
        await store.games.load_with_settings(CHAT, game.game_id)
