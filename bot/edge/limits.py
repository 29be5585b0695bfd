"""Flood limits shared by every worker: sliding windows in Redis, consulted before sending.

Telegram lets a group receive about 20 messages a minute (edits count), a
private chat about one a second, and the bot about 30 a second over all
chats; above that it answers ``429 retry_after``.  The limiter keeps each
budget *exactly*: no 60 s holds more than 20 messages to a group, however the
messages bunch (a token bucket with a burst let 21-27 through).  Each budget
is a :class:`Window` (at most ``limit`` messages in any ``seconds``) whose log
is a sorted set in Redis, one per chat (``nardy:{chat:<id>}:sent``, in the
chat's cluster slot) and one for the bot (``nardy:{flood}:sent``), shared by
the workers (PTB's ``AIORateLimiter`` counts in one process: each worker
would spend the whole budget).  Reserving a message is one Lua call per window
(:meth:`bot.store.flood.FloodBuckets.reserve`): it books the earliest time
the window allows and the caller sleeps until then, so concurrent senders on
any worker queue up without a second round trip, and a group with work
waiting sends as soon as its window allows: the budget is used fully, with
no idle gap.  A reservation whose message is not sent after all (its caller
gave up, or it went stale) is given back.  The limiter's window is
:data:`MARGIN` longer than Telegram's: a message reserved for time *t*
reaches Telegram a little later (the sleep's overshoot, the request's way),
so the 21st must not leave exactly 60 s after the first did.  A message's
entry moves to the time its request came back (:meth:`Reservation.settle`,
one ZADD): an event loop that lags more than the margin between the
reserved time and the request (2,000 open Mini Apps did) no longer lets
the server see 21 in 60 s (bot/edge/outbox.py says why it holds).  A 429 from the
Bot API holds the chat's (or the bot's) window for ``retry_after`` seconds
for every worker, then the request is retried.

Each chat's messages take their turns in the chat's outbox
(:mod:`bot.edge.outbox`): one dispenser per chat reserves the chat's times
and hands them out round robin over the chat's games and members (several
games in one group share its budget fairly), and a handler whose message
must wait gives its update slot back meanwhile (:meth:`bot.edge.ops.Slot.park`), so a flood
in one chat never holds up another chat's updates.  Edits of one board queue
behind one sender per board that sends only the newest state wanted
(:mod:`bot.edge.coalesce`): a throttled board catches up in one edit.  A
plain text without buttons that waited :data:`STALE_AFTER` is dropped.

Only messages count (``send*``, ``edit*``, ``copy*``, ``forward*``):
answering a button tap is never delayed.  The limiter also times taps: from
the update's arrival to its ``answerCallbackQuery`` (the
``nardy_tap_answer_seconds`` histogram).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import itertools
import logging
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.edge import metrics, ops
from bot.edge.coalesce import BoardCoalescer, Park, board_of
from bot.edge.outbox import ChatOutbox
from bot.store.flood import FloodBuckets
from bot.store.keys import Keys

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class Window:
    """At most ``limit`` messages in any ``seconds``."""

    limit: int
    seconds: float


GROUP = Window(20, 60.0)
"""One group (or an inline game's message): Telegram's 20 a minute, edits included."""
PRIVATE = Window(5, 5.0)
"""One private chat: about one a second (a few at once)."""
OVERALL = Window(30, 1.0)
"""Over all chats: Telegram's bulk limit (``NARDY_RATE_LIMIT`` a second)."""
MARGIN = 1.0
"""Seconds added to every window: from the time a message is reserved for to
its arrival at Telegram (the sleep's overshoot, the request's way) the
messages of a window may drift apart by less than this."""
OVERALL_MARGIN = 0.1
"""The most margin of the bot's overall window: Telegram's bulk limit is loose
("about 30 a second"), and a whole second on a one-second window would halve
the bot's throughput."""
LIMITED_PREFIXES = ("send", "edit", "copy", "forward")
STALE_AFTER = 120.0
"""Seconds a text without buttons (a command's answer, a notice) may wait for
its chat's turn before it is dropped: later it would answer nothing."""

@dataclass
class Reservation:
    """One message's time in a chat's windows: ``wait`` seconds from now;
    :meth:`release` gives it back if the message is not sent after all."""

    wait: float
    booked: list[tuple[str, str]]
    """(window log, reservation name) for each window it holds a place in."""
    buckets: FloodBuckets | None = None
    settles: tuple[str, str] | None = None
    """(window log, name) moved to the time the message came back
    (:meth:`settle`): the chat's; the bot's overall window is left at its
    reserved time (Telegram's bulk limit is loose, and another slot of a
    Redis cluster would cost a second call)."""

    async def settle(self, at: float) -> None:
        if self.buckets is None or self.settles is None:
            return
        try:
            await self.buckets.settle(*self.settles, at)
        except Exception as error:  # it then leaves the window at its reserved time
            log.warning("flood limiter unavailable (%r)", error)

    async def release(self) -> None:
        if self.buckets is None:
            return
        try:
            for key, name in self.booked:
                await self.buckets.release(key, name)
        except Exception as error:  # the place then expires with the window
            log.warning("flood limiter unavailable (%r)", error)


class SharedRateLimiter(BaseRateLimiter[int]):
    """A PTB rate limiter on sliding windows in Redis; see the module doc.

    Until :meth:`attach` gives it the store's logs (and when ``overall`` is
    None) it only honours 429 answers.  If Redis fails, requests go out
    unthrottled rather than not at all.
    """

    def __init__(self, *, group: Window = GROUP, private: Window = PRIVATE,
                 overall: Window | None = OVERALL, margin: float = MARGIN,
                 max_retries: int = 3,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Coroutine[Any, Any, None]] = asyncio.sleep) -> None:
        self.group, self.private, self.overall, self.margin = group, private, overall, margin
        self.boards = BoardCoalescer()
        self.outbox = ChatOutbox(self._reserve, sleep=sleep, clock=clock)
        self.max_retries = max_retries
        self.clock = clock
        self.buckets: FloodBuckets | None = None
        self._names = itertools.count()
        self._process = uuid.uuid4().hex[:12]

    def attach(self, buckets: FloodBuckets) -> None:
        """Start limiting through the store's ``buckets`` (shared with the other workers)."""
        self.buckets = buckets

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    @property
    def enabled(self) -> bool:
        return self.buckets is not None and self.overall is not None

    def windows(self, chat_id: object) -> list[tuple[str, Window]]:
        """(log key, window) of the budgets a message to ``chat_id`` takes from.

        A group's id is negative, a private chat's positive (a username, which
        only channels use here, counts as a group).

        >>> SharedRateLimiter().windows(-100)[0]
        ('nardy:{chat:-100}:sent', Window(limit=20, seconds=60.0))
        >>> SharedRateLimiter().windows(42)
        [('nardy:{chat:42}:sent', Window(limit=5, seconds=5.0)), \
('nardy:{flood}:sent', Window(limit=30, seconds=1.0))]
        """
        names = self.buckets.keys if self.buckets is not None else Keys()
        keys: list[tuple[str, Window]] = []
        if chat_id is not None:
            private = isinstance(chat_id, int) and chat_id > 0
            keys.append((names.flood(chat_id), self.private if private else self.group))
        if self.overall is not None:
            keys.append((names.flood_all, self.overall))
        return keys

    def span(self, window: Window) -> float:
        """The seconds the limiter keeps ``window`` over: Telegram's and a margin."""
        margin = min(self.margin, OVERALL_MARGIN) if window is self.overall else self.margin
        return window.seconds + margin

    async def reserve(self, chat_id: object) -> Reservation:
        """Book the earliest time one more message to ``chat_id`` fits every
        window it takes from (the chat's, then the bot's; if the bot's is
        later, the chat's place moves there too: it is where the message goes)."""
        if not self.enabled:
            return Reservation(0.0, [])
        assert self.buckets is not None  # enabled
        now = self.clock()
        name = f"{self._process}:{next(self._names)}"
        booked: list[tuple[str, str]] = []
        at = first = now
        try:
            windows = self.windows(chat_id)
            for key, window in windows:
                at = now + await self.buckets.reserve(key, window.limit,
                                                      self.span(window), now, name,
                                                      not_before=at)
                booked.append((key, name))
                first = first if len(booked) > 1 else at
            if len(windows) > 1 and at > first:
                key, window = windows[0]
                await self.buckets.release(key, name)
                at = now + await self.buckets.reserve(key, window.limit,
                                                      self.span(window), now, name,
                                                      not_before=at)
        except Exception as error:  # Redis trouble must not stop the bot from talking
            log.warning("flood limiter unavailable (%r); sending unthrottled", error)
            return Reservation(0.0, [])
        settles = booked[0] if chat_id is not None and booked else None
        return Reservation(max(0.0, at - now), booked, self.buckets, settles)

    async def acquire(self, chat_id: object) -> float:
        """Reserve one message to ``chat_id`` in every window; returns the wait (s)."""
        return (await self.reserve(chat_id)).wait

    async def penalize(self, chat_id: object, seconds: float) -> None:
        """The Bot API said 429: nobody sends to this chat (or at all) for ``seconds``."""
        metrics.FLOOD_WAITS.inc()
        if not self.enabled:
            return
        assert self.buckets is not None  # enabled
        key, window = self.windows(chat_id)[0]
        try:
            await self.buckets.reserve(key, window.limit, self.span(window), self.clock(),
                                       f"{self._process}:429:{next(self._names)}",
                                       penalty=seconds)
        except Exception as error:
            log.warning("flood limiter unavailable (%r)", error)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        limited = endpoint.startswith(LIMITED_PREFIXES)
        # an inline game's message is in a chat the bot is not told of: it gets a
        # bucket of its own at a group's rate (the stricter one), so a 429 on it
        # holds back that message, not every chat
        chat_id = data.get("chat_id") or data.get("inline_message_id")
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        board = board_of(endpoint, data)
        held = ops.slot()
        park = held.park if held is not None else None
        if board is not None:
            sent: bool | dict[str, Any] | list[dict[str, Any]] = await self.boards.submit(
                board, endpoint, lambda: callback(*args, **kwargs),
                throttle=lambda parked: self.throttle(chat_id, ("board", board), parked),
                flooded=lambda error: self.flooded(error, endpoint, chat_id, limited=True),
                retries=retries, park=park)
            return sent
        lane = held.lane if held is not None else None
        stale = STALE_AFTER if endpoint == "sendMessage" and not data.get("reply_markup") \
            else None
        for attempt in range(retries + 1):
            try:
                if limited:  # the chat's turn is held until the request is back
                    async with self.throttle(chat_id, lane, park,
                                             stale if attempt == 0 else None):
                        result = await callback(*args, **kwargs)
                else:
                    result = await callback(*args, **kwargs)
            except RetryAfter as error:
                if attempt == retries:
                    raise
                if park is not None:  # a 429 is waited out off the update slot too
                    park()
                await self.flooded(error, endpoint, chat_id, limited=limited)
                continue
            if endpoint == "answerCallbackQuery":
                current = ops.handling()
                if current is not None:
                    metrics.TAP_SECONDS.observe(time.perf_counter() - current.started)
            return result
        raise AssertionError("unreachable")

    @contextlib.asynccontextmanager
    async def throttle(self, chat_id: object, lane: object = None, park: Park | None = None,
                       stale_after: float | None = None) -> AsyncIterator[None]:
        """Wait for this chat's (and the bot's) next message token, given to
        ``lane`` in its turn (:mod:`bot.edge.outbox`), and hold it while the
        body sends the message; ``park`` is called if the bucket is spent.
        :class:`bot.edge.outbox.StaleMessage` after ``stale_after`` seconds."""
        if not self.enabled:
            yield
            return
        async with self.outbox.turn(chat_id, lane, park=park, stale_after=stale_after):
            yield

    async def _reserve(self, chat_id: object) -> Reservation:
        reservation = await self.reserve(chat_id)
        if reservation.wait > 0:
            metrics.THROTTLED_SECONDS.inc(reservation.wait)
        return reservation

    async def flooded(self, error: RetryAfter, endpoint: str, chat_id: object, *,
                      limited: bool) -> None:
        """After a 429: hold back every worker, and wait it out before the retry."""
        seconds = flood_wait(error)
        log.warning("flood wait %.1f s on %s (chat %s); retrying", seconds, endpoint, chat_id)
        await self.penalize(chat_id if limited else None, seconds)
        await asyncio.sleep(seconds + 0.1)


def flood_wait(error: RetryAfter) -> float:
    """The flood wait in seconds (PTB 22 warns while ``retry_after`` may be an int)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, datetime.timedelta) else float(value)
