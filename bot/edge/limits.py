"""Flood limits shared by every worker: token buckets in Redis, consulted before sending.

PTB's ``AIORateLimiter`` counts in one process; with several workers each would
allow the whole budget.  :class:`SharedRateLimiter` keeps one bucket per chat
(``nardy:{chat:<id>}:flood``, in the chat's cluster slot) and one for the bot
(``nardy:{flood}:all``) in Redis.  Taking a token is one Lua call that
*reserves* it: the bucket may go negative, and the caller sleeps the returned
time before sending, so concurrent senders on any worker queue up fairly
without a second round trip.  A 429 from the Bot API empties the chat's (or the
bot's) bucket for ``retry_after`` seconds for every worker, then the request is
retried.

The budget is Telegram's: about 20 messages a minute in a group (edits
count), one a second in a private chat.  Each chat's messages take their
turns in the chat's outbox (:mod:`bot.edge.outbox`): one dispenser per chat
reserves the tokens and hands them out round robin over the chat's games
and members, and a handler whose message must wait for a spent bucket gives
its update slot back meanwhile (:meth:`bot.edge.ops.Slot.park`), so a flood
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
import datetime
import logging
import time
import warnings
from collections.abc import Callable, Coroutine
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

CHAT_RATE = 1.0
"""Messages a second in one private chat, sustained (Telegram: about one a second)."""
CHAT_BURST = 5
"""Messages one private chat may get at once before the rate applies."""
GROUP_RATE = 20 / 60
"""Messages a second in one group, sustained (Telegram: about 20 a minute,
edits included)."""
GROUP_BURST = 10
"""Messages one group may get at once before the rate applies (a quick turn
edits the board a few times in a row; half a minute's budget)."""
BOT_RATE = 30.0
"""Messages a second over all chats (Telegram's bulk limit)."""
LIMITED_PREFIXES = ("send", "edit", "copy", "forward")
STALE_AFTER = 120.0
"""Seconds a text without buttons (a command's answer, a notice) may wait for
its chat's turn before it is dropped: later it would answer nothing."""

class SharedRateLimiter(BaseRateLimiter[int]):
    """A PTB rate limiter on Redis token buckets; see the module doc.

    Until :meth:`attach` gives it the store's buckets (and when ``bot_rate`` is 0) it
    only honours 429 answers.  If Redis fails, requests go out unthrottled
    rather than not at all.
    """

    def __init__(self, *, chat_rate: float = CHAT_RATE, chat_burst: int = CHAT_BURST,
                 group_rate: float = GROUP_RATE, group_burst: int = GROUP_BURST,
                 bot_rate: float = BOT_RATE, max_retries: int = 3,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Coroutine[Any, Any, None]] = asyncio.sleep) -> None:
        self.chat_rate, self.chat_burst, self.bot_rate = chat_rate, chat_burst, bot_rate
        self.group_rate, self.group_burst = group_rate, group_burst
        self.boards = BoardCoalescer()
        self.outbox = ChatOutbox(self._reserve, sleep=sleep, clock=clock)
        self.max_retries = max_retries
        self.clock = clock
        self.buckets: FloodBuckets | None = None

    def attach(self, buckets: FloodBuckets) -> None:
        """Start limiting through the store's ``buckets`` (shared with the other workers)."""
        self.buckets = buckets

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    @property
    def enabled(self) -> bool:
        return self.buckets is not None and self.bot_rate > 0

    def bucket_keys(self, chat_id: object) -> list[tuple[str, float, float]]:
        """(key, rate, burst) of the buckets a message to ``chat_id`` takes from.

        A group's id is negative, a private chat's positive (a username, which
        only channels use here, counts as a group).

        >>> SharedRateLimiter().bucket_keys(-100)[0]
        ('nardy:{chat:-100}:flood', 0.3333333333333333, 10)
        >>> SharedRateLimiter().bucket_keys(42)
        [('nardy:{chat:42}:flood', 1.0, 5), ('nardy:{flood}:all', 30.0, 30.0)]
        """
        names = self.buckets.keys if self.buckets is not None else Keys()
        keys: list[tuple[str, float, float]] = []
        if chat_id is not None:
            private = isinstance(chat_id, int) and chat_id > 0
            keys.append((names.flood(chat_id),
                         self.chat_rate if private else self.group_rate,
                         self.chat_burst if private else self.group_burst))
        keys.append((names.flood_all, self.bot_rate, max(1.0, self.bot_rate)))
        return keys

    async def acquire(self, chat_id: object) -> float:
        """Reserve one message to ``chat_id`` in every bucket; returns the wait (s)."""
        if not self.enabled:
            return 0.0
        assert self.buckets is not None  # enabled
        now = self.clock()
        try:
            waits = [await self.buckets.take(key, rate, burst, now)
                     for key, rate, burst in self.bucket_keys(chat_id)]
        except Exception as error:  # Redis trouble must not stop the bot from talking
            log.warning("flood limiter unavailable (%r); sending unthrottled", error)
            return 0.0
        return max(waits)

    async def penalize(self, chat_id: object, seconds: float) -> None:
        """The Bot API said 429: nobody sends to this chat (or at all) for ``seconds``."""
        metrics.FLOOD_WAITS.inc()
        if not self.enabled:
            return
        assert self.buckets is not None  # enabled
        key, rate, burst = self.bucket_keys(chat_id)[0]
        try:
            await self.buckets.take(key, rate, burst, self.clock(), seconds)
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
            if limited:
                await self.throttle(chat_id, lane, park, stale if attempt == 0 else None)
            try:
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

    async def throttle(self, chat_id: object, lane: object = None, park: Park | None = None,
                       stale_after: float | None = None) -> None:
        """Wait for this chat's (and the bot's) next message token, given to
        ``lane`` in its turn (:mod:`bot.edge.outbox`); ``park`` is called if
        the bucket is spent.  :class:`bot.edge.outbox.StaleMessage` after
        ``stale_after`` seconds."""
        if self.enabled:
            await self.outbox.turn(chat_id, lane, park=park, stale_after=stale_after)

    async def _reserve(self, chat_id: object) -> float:
        wait = await self.acquire(chat_id)
        if wait > 0:
            metrics.THROTTLED_SECONDS.inc(wait)
        return wait

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
