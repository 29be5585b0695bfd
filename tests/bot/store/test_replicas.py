"""What a player is told was booked survives the loss of the master that took it
(issue 37 item 3): Redis replicates asynchronously, so a game's end confirmed
to the player vanished with a master killed right after it.  A booking now
returns only once a replica has it (bot/store/replicas.py: ``WAIT``), and with
no replica (one server, the embedded Redis, fakeredis) it waits for nothing.

The replica of the game's master is stopped (SIGSTOP) while the game ends: the
booking must not come back before it runs again; then the master is killed
and the replica that takes over has the end booked."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.exceptions import RedisClusterException, RedisError

from bot.store import Store
from bot.store.connection import client_for_url
from bot.store.ledger import FinishResult
from bot.vocab.records import GameRecord, SettleRequest, Status
from tests.bot.store.cluster import LocalCluster, _cli, available
from tests.bot.store.test_store import ALICE, BOB, CHAT, finished, new_game


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    if not available():
        pytest.skip("redis-server and redis-cli are not installed: no local Redis Cluster")
    started = LocalCluster.start(tmp_path, replicas=1, node_timeout=2000)
    try:
        yield started
    finally:
        started.stop()


def _replica_of(cluster: LocalCluster, master: int) -> int:
    info = _cli(master, "info", "replication")
    line = next(line for line in info.splitlines() if line.startswith("slave0:"))
    return int(dict(part.split("=") for part in line.split(":", 1)[1].split(","))["port"])


async def _until(check: object, hang: float = 30.0) -> None:
    """Wait until ``check()`` holds; ``hang`` only guards against a hang (the
    order of events is what the tests assert, never how fast they came)."""
    async def wait() -> None:
        while not await check():  # type: ignore[operator]
            await asyncio.sleep(0.1)
    await asyncio.wait_for(wait(), hang)


async def _booked_while_stopped(cluster: LocalCluster, store: Store, game: GameRecord,
                                master: int) -> FinishResult:
    """The game's end booked while the replica of ``master`` is stopped: it is
    not told booked before that replica runs again."""
    replica = cluster.processes[cluster.ports.index(_replica_of(cluster, master))]
    done, entry = finished(game)
    os.kill(replica.pid, signal.SIGSTOP)
    try:
        booking = asyncio.ensure_future(
            store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10}))
        await asyncio.sleep(1.0)
        assert not booking.done(), f"told booked while no replica of {master} had it"
    finally:
        os.kill(replica.pid, signal.SIGCONT)
    return await asyncio.wait_for(booking, 30)


async def test_an_end_told_is_on_a_replica_and_survives_its_master(cluster: LocalCluster
                                                                  ) -> None:
    client = client_for_url(cluster.url, cluster=True)
    store = Store(client)
    store.ledger.replicas.wait_ms = 30_000  # longer than the replica is stopped
    try:
        game = await store.games.save(new_game(), 0)
        name = store.keys.record(game.key)
        node = client.get_node_from_key(name)
        assert node is not None
        master = int(node.port)
        result = await _booked_while_stopped(cluster, store, game, master)
        masters = {client.get_node_from_key(k).name  # type: ignore[union-attr]
                   for k in (name, store.keys.ends_shard(game.ref)[0])}
        assert result.booked and store.ledger.replicas.waits == len(masters)  # one WAIT each
        cluster.kill_master(master)  # right after the answer
        await _until(lambda: asyncio.sleep(0, cluster.healthy()))
        fresh = Store(client_for_url(cluster.url, cluster=True))
        stored = await fresh.games.load_game(CHAT, game.game_id)
        assert stored is not None and stored.status is Status.FINISHED
        assert await fresh.ledger.balance(CHAT, ALICE, BOB) == 10
        await fresh.redis.aclose()
    finally:
        await store.replicas.close()
        await client.aclose()


async def test_a_settle_waits_for_a_replica(cluster: LocalCluster) -> None:
    client = client_for_url(cluster.url, cluster=True)
    store = Store(client)
    try:
        game = await store.games.save(new_game(), 0)
        done, entry = finished(game)
        await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})
        waits = store.replicas.waits
        request = SettleRequest(chat_id=CHAT, requester=ALICE, other=BOB,
                                amount=await store.ledger.balance(CHAT, ALICE, BOB))
        await store.ledger.put_settle(request)
        assert await store.ledger.settle(request) is None
        assert store.replicas.waits == waits + 1
    finally:
        await store.replicas.close()
        await client.aclose()


async def test_without_replicas_nothing_waits(store: Store) -> None:
    game = await store.games.save(new_game(), 0)
    done, entry = finished(game)
    await store.ledger.finish_game(done, game.version, entry, {(ALICE, BOB): 10})
    assert not await store.replicas.have() and store.replicas.waits == 0


async def test_the_pending_end_is_on_a_replica_of_its_own_master(cluster: LocalCluster) -> None:
    # The end goes into its shard's pending ends before the booking, so that a
    # worker dying between the booking and its follow-ups (the analysis kept, a
    # tournament's result) leaves them to the sweep (bot/store/clock.py).  That
    # shard may live on another master than the game: told ended waits for a
    # replica of each, or a failover there lost the entry with the worker.
    client = client_for_url(cluster.url, cluster=True)
    store = Store(client)
    store.ledger.replicas.wait_ms = 30_000  # longer than the replica is stopped

    def master_of(key: str) -> int:
        node = client.get_node_from_key(key)
        assert node is not None
        return int(node.port)

    try:
        await client.initialize()  # the slots' masters known
        game = next(g for g in (new_game(chat=CHAT - n) for n in range(200))
                    if master_of(store.keys.ends_shard(g.ref)[0])
                    != master_of(store.keys.record(g.key)))
        game = await store.games.save(game, 0)
        pending = store.keys.ends_shard(game.ref)[0]
        master = master_of(pending)
        result = await _booked_while_stopped(cluster, store, game, master)
        assert result.booked and store.ledger.replicas.waits == 2   # one WAIT per master
        cluster.kill_master(master)  # right after the answer
        alive = next(port for port in cluster.ports if port != master)

        async def promoted() -> bool:   # the replica serves the shard's slot now
            fresh = client_for_url(f"redis://127.0.0.1:{alive}", cluster=True)
            try:
                await fresh.initialize()
                node = fresh.get_node_from_key(pending)
                return node is not None and int(node.port) != master
            except (RedisError, RedisClusterException):
                return False
            finally:
                await fresh.aclose()

        await _until(promoted)
        fresh = client_for_url(f"redis://127.0.0.1:{alive}", cluster=True)
        try:
            assert await fresh.zscore(pending, str(game.ref)) is not None
        finally:
            await fresh.aclose()
    finally:
        await store.replicas.close()
        await client.aclose()
