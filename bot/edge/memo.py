"""What the thinking pools worked out, kept: each question computed once.

A :class:`Memo` keeps the newest answers (by a key that names the game state
asked about) and the computations in flight: a second request for the same
key while the first is computed waits for that one computation (shielded: a
caller that is cancelled does not cancel the others' answer); a failure is
not kept, so the next request tries again.  Used for analyses
(bot/edge/handlers/analysis.py), their pictures, hints
(bot/edge/handlers/hints.py) and the computer's moves
(bot/edge/handlers/computer.py).  Per process: another worker computes its own.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """Up to ``size`` answers and the computations in flight; see the module doc."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._pending: dict[K, asyncio.Future[V]] = {}
        self.computed = 0
        """Computations started (for tests and figures)."""

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def cached(self, key: K) -> V | None:
        """The answer kept for ``key``, if any."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def in_flight(self, key: K) -> bool:
        return key in self._pending

    def clear(self) -> None:
        """Forget every answer kept (a test starts from none)."""
        self._kept.clear()

    async def get(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        """The answer for ``key``: kept, shared with the computation in flight,
        or computed now by ``compute()``."""
        found = self.cached(key)
        if found is not None:
            return found
        pending = self._pending.get(key)
        if pending is None:
            self.computed += 1
            pending = self._pending[key] = asyncio.ensure_future(self._compute(key, compute))
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        return await asyncio.shield(pending)

    async def _compute(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        found = await compute()
        self._kept[key] = found
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return found
