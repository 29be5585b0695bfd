"""Board pictures painted in a process of their own.

A PNG board costs the bot more CPU than anything else a tap does (~4-8 ms:
composing, mapping onto the palette, compressing), and much of it holds
the GIL (FreeType text, Pillow's Python glue).  Painted in a thread, that
time is taken from the event loop, which must meanwhile answer other
players' taps; painted in a separate process it runs on another core
and the loop only waits for the bytes.  :class:`Painter` owns that
process (a one-worker :class:`~concurrent.futures.ProcessPoolExecutor`,
started with ``spawn``: forking a process that runs an event loop and
threads is unsafe) and falls back to painting in a thread of the bot's
own process when the worker cannot start or dies, so a board is always
drawn.  A worker that died is replaced on the next picture, up to
:data:`MAX_RESTARTS` times.

>>> from engine import Position, Side, Variant
>>> from bot.present.render import BoardView
>>> painter = Painter(processes=0)  # in a thread: what a failed worker falls back to
>>> png = asyncio.run(painter.png(BoardView(Position.initial(Variant.LONG), Side.WHITE)))
>>> png[:4]
b'\\x89PNG'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from bot.present.render import BoardView, render_png
from bot.present.render.png import warm_up
from bot.vocab.processes import die_with_parent

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_RESTARTS = 5
"""After this many failed worker processes, boards are painted in a thread
(a machine that cannot start one would otherwise try again for every board)."""


def _start_worker(parent: int) -> None:
    # The bot stops its painter itself; a Ctrl-C or SIGTERM sent to the whole
    # process group must not kill a picture the bot still waits for.  So the
    # painter ends with the bot by itself (a SIGKILL of the bot ends nothing).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(parent)
    warm_up()


class Painter:
    """Paints board pictures off the event loop: in ``processes`` worker
    processes (0: in one thread of this process)."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = processes
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._thread = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="nardy-paint")
        self._lock = threading.Lock()
        self.restarts = 0
        """How many times a dead worker process was replaced."""

    def start(self) -> None:
        """Start the worker process now (it takes ~1 s to import and warm up)
        rather than on the first picture; idempotent."""
        if self.processes and (pool := self._worker_pool()) is not None:
            try:
                pool.submit(int)  # a pool starts its processes with the first job
            except OSError:
                log.warning("cannot start the painter process", exc_info=True)
                self._drop(pool)

    def _worker_pool(self) -> concurrent.futures.ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None:
                try:
                    self._pool = concurrent.futures.ProcessPoolExecutor(
                        max_workers=self.processes, initializer=_start_worker,
                        initargs=(os.getpid(),), mp_context=multiprocessing.get_context("spawn"))
                except OSError:
                    log.exception("cannot start the painter process; painting in a thread")
                    self.processes = 0
            return self._pool

    def _drop(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
                self.restarts += 1
                if self.restarts >= MAX_RESTARTS:
                    log.error("the painter process failed %s times; painting in a thread "
                              "from now on", self.restarts)
                    self.processes = 0
        broken.shutdown(wait=False, cancel_futures=True)

    async def png(self, view: BoardView) -> bytes:
        """``render_png(view)``, painted in the worker process."""
        return await self.paint(render_png, view)

    async def paint(self, draw: Callable[[T], bytes], what: T) -> bytes:
        """``draw(what)`` (a picture: a board, an analysis) in the worker process."""
        loop = asyncio.get_running_loop()
        pool = self._worker_pool() if self.processes else None
        if pool is not None:
            try:
                return await loop.run_in_executor(pool, draw, what)
            except (BrokenProcessPool, OSError):  # it died, or could not be started
                log.warning("the painter process failed; painting this picture in a thread",
                            exc_info=True)
                self._drop(pool)
        return await loop.run_in_executor(self._thread, draw, what)

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for tests and the log)."""
        pool = self._pool
        processes = getattr(pool, "_processes", None) or {}
        return [p.pid for p in processes.values() if p.pid is not None and p.is_alive()]

    def close(self) -> None:
        """Stop the worker process (waiting for the pictures it is painting)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        self._thread.shutdown(wait=True)


PAINTER = Painter()
"""The bot process's painter.  One per process: every application in it (a
test runs several) shares the worker, which is stopped at interpreter exit."""
