"""What a player is told was booked survives the loss of the master that took it.

Redis replicates asynchronously: a write acknowledged by a master that dies
before its replica has it is lost in the failover (issue 37: a "Yes, resign"
confirmed to the player vanished with it).  So the writes a player is told
about as done for good (a game's end and its booking, a settle, a
tournament's prizes) wait for a replica before the store returns, and the
handler answers after that: ``WAIT 1 <ms>`` on the master of the write's slot.

``WAIT`` waits for the writes *of its own connection*, so it goes on one
connection with a small write in the same slot made right after the booking
(``<prefix>:{<tag>}:sync``, a minute's expiry): the replication stream is in
order, so a replica that has it has the booking.  With no replica (the
embedded Redis, a single server) there is nothing to wait for and nothing is
sent; whether there are replicas is asked (the master's ``INFO
replication``) once per :data:`LOOK_AGAIN` seconds.

If the master dies before it answers, the update fails (a transient error)
and its retry finds the booking or makes it again (bot/store/layout.py: a
write knows its own token).  A replica that does not acknowledge within
:data:`WAIT_MS` (lagging, or being resynchronised) is logged and the answer
goes out anyway: a replica down for good must not stop every game's end.
docs/storage.md "Told means kept"; the cost: docs/benchmarks.md.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import SSLConnection
from redis.exceptions import ResponseError, SlotNotCoveredError

from bot.store.client import RedisClient

log = logging.getLogger(__name__)

WAIT_MS = int(os.environ.get("REPLICA_WAIT_MS", "1000"))
"""How long a booking waits for a replica (``REPLICA_WAIT_MS``; 0: never waits)."""
LOOK_AGAIN = 30.0
"""Seconds between two looks at whether the deployment has replicas."""
SYNC_TTL_MS = 60_000


def sync_key(key: str) -> str:
    """The key written beside ``key`` (in its hash slot) before the ``WAIT``.

    >>> sync_key("nardy:{chat:-5}:g:ab")
    'nardy:{chat:-5}:sync'
    """
    found = re.search(r"\{[^}]*\}", key)
    tag = found.group(0) if found else key
    return f"{key.split(':', 1)[0]}:{tag}:sync"


class Replicas:
    """Wait for a replica of a told write (a part of :class:`bot.store.Store`)."""

    def __init__(self, redis: RedisClient, wait_ms: int = WAIT_MS) -> None:
        self.redis = redis
        self.wait_ms = wait_ms
        self.waits = 0  # how many WAITs were sent, and how many no replica acknowledged
        self.unacknowledged = 0
        self._known: dict[str, tuple[float, bool]] = {}
        self._nodes: dict[str, aioredis.Redis] = {}

    async def have(self, key: str = "") -> bool:
        """Whether the master of ``key``'s slot has a replica to wait for (its
        ``INFO replication``, asked at most every :data:`LOOK_AGAIN` seconds)."""
        client = self._client_of(key)
        name = self._node_name(key)
        now = time.monotonic()
        known = self._known.get(name)
        if known is not None and now - known[0] < LOOK_AGAIN:
            return known[1]
        try:
            info = await client.info("replication")
        except ResponseError:  # no INFO (fakeredis, a proxy that hides it): none known
            info = {}
        found = info.get("role") == "master" and int(info.get("connected_slaves", 0)) > 0
        self._known[name] = (now, found)
        return found

    async def confirm(self, key: str) -> None:
        """Return once a replica has every write made so far in ``key``'s slot, or
        :data:`WAIT_MS` passed; at once with no replica.  A connection lost
        meanwhile (the master died) raises: the caller's update is retried."""
        if self.wait_ms <= 0 or not await self.have(key):
            return
        pipe = self._client_of(key).pipeline(transaction=False)
        pipe.set(sync_key(key), "1", px=SYNC_TTL_MS)
        pipe.execute_command("WAIT", 1, self.wait_ms)
        _, acknowledged = await pipe.execute()
        self.waits += 1
        if int(acknowledged) < 1:
            self.unacknowledged += 1
            log.warning("no replica acknowledged the write to %s within %s ms", key,
                        self.wait_ms)

    async def confirm_each(self, *keys: str) -> None:
        """:meth:`confirm` for writes in several slots: one ``WAIT`` on each
        master they are on, at once."""
        masters = {self._node_name(key): key for key in keys}
        await asyncio.gather(*(self.confirm(key) for key in masters.values()))

    def _node_name(self, key: str) -> str:
        if not isinstance(self.redis, RedisCluster):
            return ""
        node = self.redis.get_node_from_key(key)
        return "" if node is None else str(node.name)

    def _client_of(self, key: str) -> Any:
        """A client whose pipeline runs on one connection to the master of
        ``key``'s slot: the plain client itself, or one per cluster master."""
        if not isinstance(self.redis, RedisCluster):
            return self.redis
        node = self.redis.get_node_from_key(key)
        if node is None:  # the slot map is being learnt again: an outage, tried later
            raise SlotNotCoveredError(f"no master known for {key}")
        client = self._nodes.get(node.name)
        if client is None:
            options = node.connection_kwargs
            client = aioredis.Redis(
                host=node.host, port=int(node.port), username=options.get("username"),
                password=options.get("password"),
                ssl=issubclass(node.connection_class, SSLConnection),
                socket_timeout=(self.wait_ms / 1000) + 5)
            self._nodes[node.name] = client
        return client

    async def close(self) -> None:
        for client in self._nodes.values():
            await client.aclose()
        self._nodes.clear()
