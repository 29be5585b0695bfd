"""The one load -> change -> compare-and-set loop, retried on a lost race.

Every change to a stored record is a pure function of the record as loaded;
the save is one compare-and-set on the version that was loaded, so two
writers at once never both land.  The loser loads again and applies its
change to the winner's record.  :meth:`bot.store.games.Games.update` (chat
settings and other plain records) and :func:`bot.service.saving.commit_game`
(a game: its end booked, its clock kept) are this loop with their own load
and save; no handler writes a retry loop of its own.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.vocab.records import VersionConflict

T = TypeVar("T")


async def commit(load: Callable[[], Awaitable[T]], change: Callable[[T], T],
                 save: Callable[[T, T], Awaitable[T]], *, retries: int) -> tuple[T, T]:
    """``(before, after)``: ``load()``, ``change(before)``, ``save(before, after)``.

    ``T`` is the record type, with None where nothing may be stored yet.
    ``change`` returning ``before`` itself saves nothing; whatever it raises
    (a refusal) goes to the caller, nothing saved.  ``save`` raises
    :class:`VersionConflict` when the record changed since ``load``: then
    all again, after a short random pause that spreads a crowd of writers;
    after ``retries`` lost races the last conflict is raised.

    >>> box = {"n": 1}
    >>> async def load() -> int: return box["n"]
    >>> async def save(old: int, new: int) -> int:
    ...     box["n"] = new
    ...     return new
    >>> asyncio.run(commit(load, lambda n: n + 1, save, retries=0))
    (1, 2)
    """
    for attempt in range(retries + 1):
        before = await load()
        after = change(before)
        if after is before:
            return before, before
        try:
            return before, await save(before, after)
        except VersionConflict:
            if attempt == retries:
                raise
        await asyncio.sleep(random.uniform(0, min(0.05, 0.0005 * 2**attempt)))
    raise AssertionError("unreachable")
