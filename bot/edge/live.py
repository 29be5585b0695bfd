"""Live games for the Mini App's open apps: one Redis subscription per worker,
fanned out in memory to the waiting long polls.

Every save of a game tells its new version on one channel, in the saving
script itself (``PLACE`` in bot/store/layout.py, :attr:`bot.store.games.Games.changes`),
so no save can happen untold.  A worker subscribes once (:class:`LiveGames`) and
wakes the polls waiting for that game in its memory: an open app holds no Redis
connection and reads nothing while it waits (issue 34: 900 apps reading their
game every 0.25 s each exhausted the bot's Redis pool).

Never a missed change:

* a poll registers first and then reads the stored version once
  (:meth:`LiveGames.listen`'s caller, bot/edge/webapp.py): a change saved before
  it registered is in that read, one after it wakes it;
* a subscription that is lost (Redis restarted, a cluster node failed over) is
  made again, and as soon as it is confirmed the versions of every game waited
  for are read again (one pipelined read): what was told while nobody listened
  wakes its polls then;
* and a poll answers after its :data:`bot.edge.webapp.LONG_POLL` anyway; the
  app's next poll starts with a read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot.store import Store

log = logging.getLogger(__name__)

RETRY = 1.0
"""Seconds between attempts to subscribe again after the subscription was lost."""
LINGER = 30.0
"""Seconds the subscription is kept with no poll waiting (then given up until the next)."""


def parse(data: Any) -> tuple[str, int] | None:
    """A change as told on the channel: the record's key and its version.

    >>> parse(b"nardy:{chat:-5}:g:abc 12")
    ('nardy:{chat:-5}:g:abc', 12)
    >>> parse("junk") is None
    True
    """
    text = data.decode() if isinstance(data, bytes) else str(data)
    name, _, version = text.rpartition(" ")
    return (name, int(version)) if name and version.isdigit() else None


class LiveGames:
    """The worker's subscription and its waiting polls (see the module doc).

    ``store``: the worker's store (read when the subscription starts);
    ``sleep`` and ``clock`` are injected by tests."""

    def __init__(self, store: Callable[[], Store], *, retry: float = RETRY,
                 linger: float = LINGER,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self.retry, self.linger, self._sleep, self._clock = retry, linger, sleep, clock
        self._waiting: dict[str, dict[asyncio.Future[int], int]] = {}
        self._task: asyncio.Task[None] | None = None
        self.subscriptions = 0
        """Subscriptions made (the first and every one after a loss)."""
        self.lost = 0
        """Subscriptions lost."""
        self.subscribed = False
        """A subscription is confirmed now."""

    def waiting(self) -> int:
        """Polls waiting now."""
        return sum(len(futures) for futures in self._waiting.values())

    @contextlib.asynccontextmanager
    async def listen(self, name: str, after: int) -> AsyncIterator[asyncio.Future[int]]:
        """Wait for game record ``name`` to move past version ``after``: the future
        gets the version told (0: the record was deleted).  The caller reads the
        stored version once after entering (the version check on subscribe)."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(name, {})[future] = after
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="live-games")
        try:
            yield future
        finally:
            futures = self._waiting.get(name, {})
            futures.pop(future, None)
            if not futures:
                self._waiting.pop(name, None)
            future.cancel()

    def wake(self, name: str, version: int) -> int:
        """Wake the polls waiting for ``name`` that ``version`` moves on; how many."""
        woken = 0
        for future, after in list(self._waiting.get(name, {}).items()):
            if (version > after or version == 0) and not future.done():
                future.set_result(version)
                woken += 1
        return woken

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        idle_since: float | None = None
        while True:
            try:
                store = self._store()
                pubsub = store.games.subscription()
                try:
                    await pubsub.subscribe(store.games.changes)
                    while True:  # told only once the server has it: then read again
                        message = await pubsub.get_message(timeout=self.retry)
                        if message is not None and message["type"] == "subscribe":
                            break
                    self.subscriptions += 1
                    self.subscribed = True
                    await self._reread(store)
                    while True:
                        message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                           timeout=1.0)
                        if message is not None and message["type"] == "message":
                            change = parse(message["data"])
                            if change is not None:
                                self.wake(*change)
                        if self._waiting:
                            idle_since = None
                        elif idle_since is None:
                            idle_since = self._clock()
                        elif self._clock() - idle_since >= self.linger:
                            # nobody waits: the next poll subscribes again (a task of
                            # its own: this one is no longer asked while it closes)
                            self._task = None
                            return
                finally:
                    self.subscribed = False
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            except asyncio.CancelledError:
                raise
            except Exception:
                self.lost += 1
                log.warning("the live games' subscription was lost; subscribing again",
                            exc_info=True)
                await self._sleep(self.retry)

    async def _reread(self, store: Store) -> None:
        """Wake every poll whose game moved on while nothing was heard."""
        names = list(self._waiting)
        for name, version in zip(names, await store.games.versions(names), strict=True):
            self.wake(name, version)
