"""The painter (bot/present/painter.py): board pictures come from a separate
process, the same bytes as painting them here, and a dead process costs
no picture."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from bot.present.painter import MAX_RESTARTS, Painter
from bot.present.render import render_png
from bot.present.render.samples import SAMPLES

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def painter() -> Iterator[Painter]:
    p = Painter(processes=1)
    p.start()
    yield p
    p.close()


async def test_pictures_are_painted_in_another_process(painter: Painter) -> None:
    for view in list(SAMPLES.values())[:4]:
        assert await painter.png(view) == render_png(view)
    pids = painter.worker_pids()
    assert len(pids) == 1 and pids[0] != os.getpid()


async def test_a_dead_painter_costs_no_picture(painter: Painter) -> None:
    view = next(iter(SAMPLES.values()))
    await painter.png(view)
    (dead,) = painter.worker_pids()
    os.kill(dead, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while dead in painter.worker_pids() and time.monotonic() < deadline:
        time.sleep(0.05)
    # this one is painted in a thread; the next one in a new process
    assert await painter.png(view) == render_png(view)
    assert painter.restarts == 1
    assert await painter.png(view) == render_png(view)
    (new,) = painter.worker_pids()
    assert new != dead


async def test_the_worker_ignores_a_group_sigterm(painter: Painter) -> None:
    # a SIGTERM to the process group is for the bot, which stops its painter itself
    view = next(iter(SAMPLES.values()))
    await painter.png(view)
    (worker,) = painter.worker_pids()
    os.kill(worker, signal.SIGTERM)
    time.sleep(0.3)
    assert painter.worker_pids() == [worker]
    assert await painter.png(view) == render_png(view)
    assert painter.restarts == 0


async def test_a_painter_that_cannot_start_paints_in_a_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a machine where no process can be started (limits, a sandbox)
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr("multiprocessing.context.SpawnProcess.start", refuse)
    painter = Painter(processes=1)
    painter.start()  # the bot starts it with the application: no error there either
    view = next(iter(SAMPLES.values()))
    try:
        for _ in range(MAX_RESTARTS + 2):
            assert await painter.png(view) == render_png(view)
        assert painter.restarts == MAX_RESTARTS and painter.processes == 0
        assert painter.worker_pids() == []
    finally:
        painter.close()
