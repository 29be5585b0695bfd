"""Start-up jobs (the schema pass, the redraw of boards a restart left stale,
the computer's sweep) run however long the start took.

They are added when the handlers are registered, before getMe (and its
retries), Redis and setMyCommands in every language; the scheduler starts
only after all that.  With APScheduler's default grace of one second, most
starts skipped them as "missed", so the schema pass never completed.  A slow
start is made here by moving the jobs' run time a minute into the past, no
waiting; the real process is started slowly in tests/bot/edge/test_startup.py."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest

from bot.edge.app import build_application
from bot.edge.handlers import board, chat, computer
from bot.store import Store, schema
from tests.bot.store.test_schema import restore

STARTUP_JOBS = (chat.UPGRADE_JOB, board.STARTUP_REDRAW_JOB, computer.SWEEP_JOB)


async def test_start_up_jobs_run_after_a_slow_start(store: Store,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    await restore(store)  # schema 1 games, as the release before schema 2 left them
    ran: list[str] = []

    async def behind(_limit: int) -> list[Any]:
        ran.append(board.STARTUP_REDRAW_JOB)
        return []

    async def sweep(_context: Any) -> None:
        ran.append(computer.SWEEP_JOB)

    monkeypatch.setattr(store.board, "behind", behind)
    monkeypatch.setattr(computer, "sweep_job", sweep)
    app = build_application("123:abc", store)
    assert app.job_queue is not None
    late = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=1)
    for name in STARTUP_JOBS:
        [job] = app.job_queue.get_jobs_by_name(name)
        job.job.modify(next_run_time=late)  # the start took a minute longer than planned
    await app.job_queue.start()
    try:
        for _ in range(600):  # a bound for a loaded machine, not a speed limit
            if len(ran) >= 2 and await schema.is_current(store.redis, store.keys):
                break
            await asyncio.sleep(0.05)
    finally:
        await app.job_queue.stop(wait=False)
    assert await schema.is_current(store.redis, store.keys)  # the schema pass completed
    assert sorted(set(ran)) == sorted([board.STARTUP_REDRAW_JOB, computer.SWEEP_JOB])
