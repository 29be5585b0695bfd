"""What every part of the store shares: the client type and reading its replies."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    ReadOnlyError,
    RedisClusterUnreachableError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import (
    ConnectionError as RedisConnectionError,
)
from redis.exceptions import (
    TimeoutError as RedisTimeoutError,
)

from bot.vocab.records import CorruptRecordError

T = TypeVar("T")

RedisClient: TypeAlias = aioredis.Redis | RedisCluster
"""One Redis server or a Redis Cluster (bot/store/connection.py, REDIS_CLUSTER)."""


def as_text(value: Any) -> str:
    """A Redis reply (bytes, or str from a client that decodes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


async def no_upkeep() -> None:
    """The upkeep of a save that has none (see `store.games.save_first`)."""


# KEYS: a hash.  ARGV: seconds to expire, then field, value pairs.
_HSET_EXPIRE = """
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
"""

# KEYS: a sorted set.  ARGV: member, score, members kept, seconds to expire.
_ZADD_CAPPED = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[3]) - 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
"""


async def hset_expiring(redis: RedisClient, key: str, mapping: Mapping[str, Any],
                        ttl: int) -> None:
    """HSET ``mapping`` into ``key`` and (re)set its expiry, in one step.

    A Lua script on the key's one slot, not a MULTI/EXEC pipeline: redis-py's
    async cluster client runs a transaction pipeline through ``asyncio.run``
    in a thread it joins on the caller's loop, which deadlocked a worker for
    good in a master failover (issue 22; tests/bot/store/test_failover.py)."""
    if not mapping:
        return
    pairs = [part for name, value in mapping.items() for part in (name, value)]
    await redis.register_script(_HSET_EXPIRE)(keys=[key], args=[ttl, *pairs])


async def zadd_capped(redis: RedisClient, key: str, member: str, score: float, cap: int,
                      ttl: int) -> None:
    """ZADD ``member`` at ``score``, keep the ``cap`` highest, (re)set the expiry:
    one script (see :func:`hset_expiring` for why not a transaction)."""
    await redis.register_script(_ZADD_CAPPED)(keys=[key], args=[member, score, cap, ttl])


TRANSIENT = (RedisConnectionError, RedisTimeoutError, ClusterDownError, TryAgainError,
             SlotNotCoveredError, AskError, ReadOnlyError, RedisClusterUnreachableError)
"""What Redis raises while a node is down or a cluster master fails over (connection
refused or timed out, loading, CLUSTERDOWN and MASTERDOWN, TRYAGAIN, MOVED or ASK
the client could not follow yet, READONLY from a master just demoted, a slot
without a master, no node reachable): it passes.  Several of them are
``ResponseError`` subclasses, which a store reading a key of the wrong type
takes for a corrupt record: :func:`corrupt_or_transient` tells them apart."""
TRANSIENT_CODES = ("CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "READONLY", "MASTERDOWN",
                   "LOADING")
"""The same as error codes, for a reply that arrives as a plain ``ResponseError``
(an error a Lua script passed on: "... CLUSTERDOWN The cluster is down")."""
RETRY_BUDGET = 20.0
"""Seconds :func:`idempotent` tries a step again: a master's failover (about
``cluster-node-timeout`` plus a second or two) and a little more; the update's
attempt itself is bounded by bot/edge/ops.py's HANDLE_TIMEOUT."""


def _client_race(error: BaseException) -> bool:
    """redis-py's async cluster client, right after a node failed, may use a
    connection that another task has just disconnected (``AttributeError:
    'NoneType' object has no attribute 'writelines'`` from inside redis-py, seen
    in the load test's master kills): transient too, the next try connects anew."""
    if not isinstance(error, AttributeError):
        return False
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and "/redis/" in trace.tb_frame.f_code.co_filename


class Unavailable(RedisConnectionError):
    """Redis (or the node that serves a key's slot) did not answer within
    :data:`RETRY_BUDGET`: the update fails and is retried later."""


async def idempotent(call: Callable[[], Awaitable[T]], budget: float = RETRY_BUDGET) -> T:
    """``await call()``, again after a transient failure (:data:`TRANSIENT`) until
    ``budget`` seconds passed, then :class:`Unavailable`.

    Only for a step whose repeat does what it did once: a read, a plain SET, a
    compare-and-set that knows its own write (bot/store/layout.py CURRENT), a
    booking that knows its game (bot/store/ledger.py).  So a reply lost in a
    failover is not reported as a failure of a step that landed (issue 22)."""
    deadline = time.monotonic() + budget
    pause = 0.05
    while True:
        try:
            return await call()
        except (*TRANSIENT, AttributeError, ResponseError) as error:
            if not isinstance(error, TRANSIENT) and not _client_race(error) \
                    and not _transient_reply(error):
                raise
            if time.monotonic() + pause > deadline:
                raise Unavailable(f"Redis unavailable for {budget} s: {error!r}") from error
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)


def _transient_reply(error: BaseException) -> bool:
    """A plain ``ResponseError`` whose text carries a failover's error code."""
    if not isinstance(error, ResponseError) or isinstance(error, TRANSIENT):
        return False
    words = str(error).replace(":", " ").split()
    return any(word in TRANSIENT_CODES for word in words)


def corrupt_or_transient(name: str, error: BaseException) -> Exception:
    """What to raise for ``error`` met reading or writing the record at ``name``:
    the error itself if it is an outage (:func:`is_transient`: the update is
    retried, the player never told "something went wrong" of a failover, issue
    37), else the record is corrupt (a key of another type)."""
    if is_transient(error):
        return error if isinstance(error, TRANSIENT) else Unavailable(str(error))
    return CorruptRecordError(name, f"not a hash ({error})")


def raise_transient(values: list[Any]) -> list[Any]:
    """A pipeline's replies (``execute(raise_on_error=False)``), raising the first
    that is an outage (so :func:`idempotent` tries the pipeline again) and
    leaving any other error in place for the caller to judge."""
    for value in values:
        if isinstance(value, BaseException) and is_transient(value):
            raise value if isinstance(value, TRANSIENT) else Unavailable(str(value))
    return values


def is_transient(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it) is Redis being unreachable for a
    while (:data:`TRANSIENT`): a retry of the update will pass once it is back,
    so it is neither given up (bot/edge/ops.py) nor reported to the user as a
    failure (bot/edge/handlers/errors.py).

    >>> is_transient(Unavailable("down")), is_transient(ValueError("bad"))
    (True, False)
    """
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, TRANSIENT) or _client_race(error) or _transient_reply(error):
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False
