"""The bot's worker processes end with it (issue 37): a picture painter
(bot/present/painter.py) and the computer's and analyses' workers
(bot/edge/handlers/computer.py) are started with ``spawn`` and would outlive a
bot killed by SIGKILL, an OOM kill or a crash.  Kept here, below every layer,
and light: a spawned worker imports this module to run it."""

from __future__ import annotations

import os
import threading
import time

WATCH_EVERY = 0.5
"""Seconds between two looks of a worker process at whether the bot still runs."""


def die_with_parent(parent: int) -> None:
    """In a worker process the bot started (an initializer): end this process
    as soon as the bot process ``parent`` is gone, however it died (issue 37: after
    a ``kill -9`` of the bot its painter, ~90 MB, which ignores SIGTERM, and the
    multiprocessing resource tracker, which ends when its last user does, lived
    on for ever, as they did after every killed worker of the tests).

    A daemon thread looks every :data:`WATCH_EVERY` s whether the process was
    re-parented (the bot died: ``getppid`` is no longer ``parent``) and then
    exits at once; no ``prctl(PR_SET_PDEATHSIG)``, which fires when the *thread*
    that started the child ends, not the bot."""
    if os.getppid() != parent:  # the bot died while this one started
        os._exit(0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_EVERY)
        os._exit(0)

    threading.Thread(target=watch, name="nardy-watch-parent", daemon=True).start()
