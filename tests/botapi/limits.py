"""Telegram's flood limits, always; and Telegram in trouble, on demand: floods
(429 with ``retry_after``), faults (502...), rate limits.

Telegram's own limits (../shared/TELEGRAM.md) are kept as strictly as the
real Bot API answers them: a message (``send*``, ``edit*``, ``copy*``,
``forward*``; not a chat action) to a chat that has had its window's limit
in the last window seconds answers 429 with the ``retry_after`` after which
it would fit (:data:`TELEGRAM_WINDOWS`: a group 20 in any 60 s, a private
chat 5 in any 5 s, an inline message like a group; the bot 30 in any
second).  So every test and benchmark whose bot overspends a budget sees it
fail.  Only for a bot run without its flood limiter (or on a test's clock)
are they off (``telegram_limits=False``: ``tests/bot/conftest.py``
``running_world`` and ``BotProcess.for_server`` with ``NARDY_RATE_LIMIT=0``
do it); ``limits_speed`` runs the windows that many times faster (a
sped-up benchmark).  ``breaches`` counts the 429s they gave.

``flood`` and ``rate_limit`` apply to the sending methods unless told
otherwise, ``fail`` to every method; each may be limited to one chat.  They
are checked before a call does anything.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.botapi.core import ServerCore, _chat_id
from tests.botapi.model import JSON, ApiError, Chat

# Methods a flood rule or rate limit applies to unless told otherwise.
SENDING_METHODS = frozenset({
    "sendmessage", "sendphoto", "senddocument", "editmessagetext", "editmessagecaption",
    "editmessagemedia", "editmessagereplymarkup", "deletemessage", "answercallbackquery",
    "sendchataction", "pinchatmessage",
})


TELEGRAM_WINDOWS: dict[str, tuple[int, float]] = {
    "group": (20, 60.0),
    "private": (5, 5.0),
    "bot": (30, 1.0),
}
"""Telegram's flood limits: at most so many messages in any so many seconds
to a group (or one inline message), to a private chat, and over all chats."""
MESSAGE_PREFIXES = ("send", "edit", "copy", "forward")
"""The methods Telegram's flood limits count (a sendChatAction is no message)."""


def _window_of(params: JSON) -> tuple[str, object] | None:
    """Which of :data:`TELEGRAM_WINDOWS` a message counts in besides the bot's, and whose."""
    chat_id = params.get("chat_id")
    if chat_id is None:
        inline = params.get("inline_message_id")
        return None if inline is None else ("group", ("inline", inline))
    if isinstance(chat_id, str) and chat_id.lstrip("-").isdigit():
        chat_id = int(chat_id)
    private = isinstance(chat_id, int) and chat_id > 0
    return ("private" if private else "group"), chat_id


@dataclass
class _FloodRule:
    retry_after: int
    times: int | None
    methods: frozenset[str]
    chat_id: int | None


@dataclass
class _Fault:
    status: int
    description: str
    times: int | None
    methods: frozenset[str]
    chat_id: int | None


@dataclass
class _RateLimit:
    max_calls: int
    period: float
    per_chat: bool
    methods: frozenset[str]
    calls: dict[Any, deque[float]] = field(default_factory=dict)


class LimitsMixin(ServerCore):
    """flood, fail, rate_limit, and the check every call passes first."""

    def _init_limits(self, telegram_limits: bool = True, limits_speed: float = 1.0) -> None:
        self.telegram_limits = telegram_limits
        self.limits_speed = limits_speed
        self.limits_clock: Callable[[], float] = time.monotonic
        self._sent: dict[tuple[str, object], deque[float]] = {}
        self.breaches = 0
        """Messages answered 429 for Telegram's own limits (a limiter's failure)."""
        self._floods: list[_FloodRule] = []
        self._faults: list[_Fault] = []
        self._rate_limits: list[_RateLimit] = []

    def flood(self, retry_after: int = 1, *, times: int | None = 1,
              methods: Iterable[str] | None = None, chat: Chat | int | None = None) -> None:
        """The next ``times`` matching calls (None: all, until ``clear_floods``) answer 429."""
        with self._cond:
            names = frozenset(m.lower() for m in methods) if methods else SENDING_METHODS
            self._floods.append(_FloodRule(retry_after, times, names,
                                           None if chat is None else _chat_id(chat)))

    def fail(self, status: int = 502, description: str = "Bad Gateway", *, times: int | None = 1,
             methods: Iterable[str] | None = None, chat: Chat | int | None = None) -> None:
        """The next ``times`` matching calls (None: all, until ``clear_floods``) fail with
        ``status`` before doing anything, as Telegram's front end does when it is in
        trouble (502/500/504).  ``methods``: those Bot API methods (any case) only;
        default every method."""
        with self._cond:
            names = frozenset(m.lower() for m in methods) if methods else frozenset()
            self._faults.append(_Fault(status, description, times, names,
                                       None if chat is None else _chat_id(chat)))

    def rate_limit(self, max_calls: int, period: float, *, per_chat: bool = True,
                   methods: Iterable[str] | None = None) -> None:
        """At most ``max_calls`` matching calls per ``period`` seconds (per chat or overall);
        the excess answers 429 with the retry_after that would have made it fit."""
        with self._cond:
            names = frozenset(m.lower() for m in methods) if methods else SENDING_METHODS
            self._rate_limits.append(_RateLimit(max_calls, period, per_chat, names))

    def clear_floods(self) -> None:
        with self._cond:
            self._floods.clear()
            self._faults.clear()
            self._rate_limits.clear()

    def _check_flood(self, method: str, params: JSON) -> None:
        chat_id = params.get("chat_id")
        for fault in list(self._faults):
            if (not fault.methods or method in fault.methods) \
                    and (fault.chat_id is None or fault.chat_id == chat_id):
                if fault.times is not None:
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                raise ApiError(fault.status, fault.description)
        for rule in list(self._floods):
            if method in rule.methods and (rule.chat_id is None or rule.chat_id == chat_id):
                if rule.times is not None:
                    rule.times -= 1
                    if rule.times <= 0:
                        self._floods.remove(rule)
                raise _too_many(rule.retry_after)
        now = self.limits_clock()
        for limit in self._rate_limits:
            if method not in limit.methods:
                continue
            calls = limit.calls.setdefault(chat_id if limit.per_chat else None, deque())
            while calls and calls[0] <= now - limit.period:
                calls.popleft()
            if len(calls) >= limit.max_calls:
                raise _too_many(max(1, math.ceil(calls[0] + limit.period - now)))
            calls.append(now)
        if self.telegram_limits and method.startswith(MESSAGE_PREFIXES) \
                and method != "sendchataction":
            self._check_telegram_limits(params, now)

    def _check_telegram_limits(self, params: JSON, now: float) -> None:
        """429 if this message would be one too many in any of its windows; else count it."""
        chat = _window_of(params)
        logs = [("bot", None)] + ([chat] if chat is not None else [])
        for kind, owner in logs:
            limit, seconds = TELEGRAM_WINDOWS[kind]
            seconds /= self.limits_speed
            sent = self._sent.setdefault((kind, owner), deque())
            while sent and sent[0] <= now - seconds:
                sent.popleft()
            if len(sent) >= limit:
                self.breaches += 1
                raise _too_many(max(1, math.ceil(sent[0] + seconds - now)))
        for kind, owner in logs:
            self._sent[(kind, owner)].append(now)


def _too_many(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}",
                    {"retry_after": retry_after})
