"""The group board of a game both players play in the Mini App: it follows at a pace.

A group allows the bot about 20 messages a minute, edits included.  When both
players of a game have the app open, neither looks at the group's board to play:
it is for the watchers.  So while both are in the app (:class:`Presence`: each
made an app request for the game within :data:`PRESENT` seconds) a move made in
the app does not edit the group board at once: :class:`BoardPace` draws it at
most once every :data:`EVERY` seconds per game, and then the newest state only
(older ones are never drawn); a roll that leaves the move to the roller waits
for the turn (its draw shows both).  A game's end, a cube decision and a resignation
are drawn at once (and take any waiting draw with them), as is every move while
a player plays in the chat.  The app itself never waits for any of it: it has
its answer before the board is drawn.

Per worker (process memory): an app whose polls go to another worker counts as
not present here, which only draws more often (as before issue 34).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from bot.rules.matchstate import table_of
from bot.vocab.records import GameRecord, GameRef, Status
from engine.game import Phase

log = logging.getLogger(__name__)

EVERY = 20.0
"""Seconds between two draws of a game's group board while both play in the app: at
most one every 10 s was asked (issue 34), and at a turn every ~8 s, 20 s keeps the
group at under half a message a turn (10 s cost 0.8: benchmarks.md)."""
SHARE = 20.0
"""Group-board draws a second all paced games of a worker may make together: of the
~30 messages a second Telegram allows one bot in all chats, the rest is left to the
chats' own taps and commands.  With more games than ``SHARE * EVERY`` played in the
app at once, each one's pace lengthens to ``games / SHARE`` seconds."""
PRESENT = 40.0
"""Seconds an app request keeps its user present (the long poll asks every 25 s)."""
AT_ONCE = frozenset({Phase.DOUBLE, Phase.RESIGNATION, Phase.OVER})
"""Phases drawn at once when a game enters or leaves them: cube decisions,
resignations, the end."""

Draw = Callable[[GameRecord, GameRecord], Coroutine[Any, Any, None]]
"""Draws the boards for a change from the first record to the second."""


class Presence:
    """Who has the app open for which game (this worker's requests)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 present: float = PRESENT) -> None:
        self.clock, self.present = clock, present
        self._seen: dict[tuple[GameRef, int], float] = {}

    def seen(self, ref: GameRef, user_id: int) -> None:
        now = self.clock()
        self._seen[ref, user_id] = now
        if len(self._seen) > 50_000:  # forget the ones gone
            self._seen = {k: t for k, t in self._seen.items() if now - t <= self.present}

    def here(self, ref: GameRef, user_id: int) -> bool:
        seen = self._seen.get((ref, user_id))
        return seen is not None and self.clock() - seen <= self.present

    def all_here(self, record: GameRecord) -> bool:
        """Every player of ``record`` has the app open."""
        return bool(record.players) and all(self.here(record.ref, p.user_id)
                                            for p in record.players)


def at_once(old: GameRecord, new: GameRecord) -> bool:
    """A change the group sees at once: the game's end (or its next game), a cube
    decision, a resignation (offered or answered)."""
    if old.game_id != new.game_id or new.status is not Status.ACTIVE:
        return True
    phases = {table_of(record).game.phase for record in (old, new) if record.engine}
    return bool(phases & AT_ONCE)


@dataclass
class _Waiting:
    old: GameRecord
    """The state the board showed before the first change not drawn yet."""
    task: asyncio.Task[None]


class BoardPace:
    """One game's group board drawn at most every ``every`` seconds (see the module
    doc); ``clock`` and ``sleep`` are injected by tests."""

    def __init__(self, every: float = EVERY, *, share: float = SHARE,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.every, self.share, self.clock, self.sleep = every, share, clock, sleep
        self._counted: tuple[float, int] = (float("-inf"), 0)
        self._last: dict[GameRef, float] = {}
        self._waiting: dict[GameRef, _Waiting] = {}
        self.drawn = 0
        """Draws made (for tests and figures)."""
        self.skipped = 0
        """Changes drawn only by a later draw (coalesced)."""

    def waiting(self, ref: GameRef) -> bool:
        return ref in self._waiting

    def interval(self) -> float:
        """Seconds between two draws of one game now: :attr:`every`, longer when more
        games are paced than :attr:`share` draws a second allow (counted at most
        once a second: the games drawn within the last interval)."""
        now = self.clock()
        since, games = self._counted
        if now - since >= 1.0:
            window = max(self.every, games / self.share)
            games = sum(1 for t in self._last.values() if now - t <= window)
            self._counted = (now, games)
        return max(self.every, games / self.share)

    async def change(self, old: GameRecord, new: GameRecord, draw: Draw,
                     load: Callable[[], Awaitable[GameRecord | None]], *, paced: bool,
                     hold: float = 0.0) -> None:
        """Draw the change from ``old`` to ``new``: now, or (``paced``) within
        :attr:`every` of the game's last draw, the newest state ``load`` finds then;
        ``hold``: wait at least that long (a roll whose turn is still to come: the
        turn's draw shows both, bot/edge/webapp.py ``ROLL_HOLD``)."""
        ref = old.ref
        waiting = self._waiting.get(ref)
        if waiting is not None:
            old = waiting.old
            if paced:
                self.skipped += 1
                return  # the waiting draw will show this change too
            del self._waiting[ref]
            waiting.task.cancel()
            self.skipped += 1
        last = self._last.get(ref)
        now, every = self.clock(), self.interval()
        wait = max(hold, 0.0 if last is None else last + every - now)
        if not paced or wait <= 0:
            await self._draw(ref, old, new, draw)
            return
        task = asyncio.create_task(self._later(ref, old, new, draw, load, wait),
                                   name=f"board-pace-{ref}")
        task.add_done_callback(_logged)
        self._waiting[ref] = _Waiting(old, task)

    async def _later(self, ref: GameRef, old: GameRecord, new: GameRecord, draw: Draw,
                     load: Callable[[], Awaitable[GameRecord | None]], wait: float) -> None:
        await self.sleep(wait)
        self._waiting.pop(ref, None)
        newest = await load()
        await self._draw(ref, old, newest if newest is not None else new, draw)

    async def _draw(self, ref: GameRef, old: GameRecord, new: GameRecord, draw: Draw) -> None:
        self._last[ref] = self.clock()
        if len(self._last) > 50_000:
            cutoff = self.clock() - self.interval()
            self._last = {k: t for k, t in self._last.items() if t >= cutoff}
        self.drawn += 1
        await draw(old, new)


def _logged(task: asyncio.Task[None]) -> None:
    """A paced draw that failed leaves its board behind (the next tap repairs it)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a paced redraw of a group board failed", exc_info=task.exception())
