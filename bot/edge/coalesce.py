"""Edits of one board, coalesced: only the newest state wanted is sent.

When a chat's flood budget is spent, every tap's redraw of its board would
queue and then replay stale states one by one, seconds apart.  Instead each
board (chat id, message id) has one sender and a queue of wanted states;
when the sender's turn comes (after the flood limiter's wait) it sends the
newest state that includes everything the older ones would have changed,
and the older ones are done without a request of their own (their callers
get ``True``, as for an edit Telegram made without returning the message).

What an edit changes decides what may replace it: a new picture
(``editMessageMedia``) includes a caption and a keyboard, a caption edit a
keyboard; a text edit and a caption edit never replace each other, nor does
a caption edit replace a new picture, so a picture is never lost.

One process coalesces its own edits (the shared token buckets in Redis keep
the workers within Telegram's budget together).  Each board's sender waits for
its turn in the chat's outbox (bot/edge/outbox.py: the chat's boards are
served round robin); while it waits for a spent bucket, the handlers whose
states it carries give their update slots back (their ``park``).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from telegram.error import RetryAfter

Board = tuple[object, int]
"""A board message: chat id and message id."""

CHANGES: dict[str, frozenset[str]] = {
    "editMessageMedia": frozenset({"media", "caption", "markup"}),
    "editMessageCaption": frozenset({"caption", "markup"}),
    "editMessageText": frozenset({"text", "markup"}),
    "editMessageReplyMarkup": frozenset({"markup"}),
}
"""What each edit endpoint changes of a message."""


def board_of(endpoint: str, data: dict[str, Any]) -> Board | None:
    """The board an edit request is for; ``None`` for anything else.

    >>> board_of("editMessageCaption", {"chat_id": -5, "message_id": 9})
    (-5, 9)
    >>> board_of("sendMessage", {"chat_id": -5}) is None
    True
    >>> board_of("editMessageText", {"inline_message_id": "AgAAAx"})  # an inline game's
    ('AgAAAx', 0)
    """
    inline = data.get("inline_message_id")
    if endpoint in CHANGES and isinstance(inline, str):
        return inline, 0
    chat_id, message_id = data.get("chat_id"), data.get("message_id")
    if endpoint not in CHANGES or chat_id is None or not isinstance(message_id, int):
        return None
    return chat_id, message_id


Park = Callable[[], None]
Throttle = Callable[[Park], AbstractAsyncContextManager[None]]
"""Waits for a message token (calling its ``park`` if it must wait for a spent
bucket) and holds it while the edit is sent (bot/edge/outbox.py)."""


@dataclass
class _Wanted:
    changes: frozenset[str]
    send: Callable[[], Awaitable[Any]]
    done: asyncio.Future[Any]
    attempts: int = 0
    park: Park | None = None
    """Gives the update slot of the handler that wants this state back."""


@dataclass
class _Queue:
    wanted: list[_Wanted] = field(default_factory=list)
    sender: asyncio.Task[None] | None = None
    parked: bool = False
    """The sender waits for a spent bucket: newcomers park at once."""

    def park(self) -> None:
        self.parked = True
        for wanted in self.wanted:
            if wanted.park is not None:
                wanted.park()


class BoardCoalescer:
    """One sender per board; see the module doc."""

    def __init__(self) -> None:
        self._queues: dict[Board, _Queue] = {}
        self.sent = 0
        """Edits sent (for tests and figures)."""
        self.dropped = 0
        """Edits replaced by a newer state before their turn."""
        self._ids = itertools.count()

    def pending(self, board: Board) -> int:
        queue = self._queues.get(board)
        return len(queue.wanted) if queue else 0

    async def submit(self, board: Board, endpoint: str, send: Callable[[], Awaitable[Any]], *,
                     throttle: Throttle,
                     flooded: Callable[[RetryAfter], Awaitable[None]], retries: int,
                     park: Park | None = None) -> Any:
        """Queue this state of ``board``; returns when it (or a newer state that
        replaces it) has been sent.  ``throttle(park)`` waits for a message
        token and holds it while the edit goes (:data:`Throttle`), ``flooded``
        waits out a 429 (after which a newer state may go instead); ``park``:
        the caller's, called whenever its state waits for a spent bucket."""
        queue = self._queues.setdefault(board, _Queue())
        wanted = _Wanted(CHANGES[endpoint], send, asyncio.get_running_loop().create_future(),
                         park=park)
        queue.wanted.append(wanted)
        if queue.parked and park is not None:
            park()
        if queue.sender is None:
            queue.sender = asyncio.create_task(self._send(board, queue, throttle, flooded,
                                                          retries),
                                               name=f"board-sender-{next(self._ids)}")
        return await asyncio.shield(wanted.done)

    async def _send(self, board: Board, queue: _Queue, throttle: Throttle,
                    flooded: Callable[[RetryAfter], Awaitable[None]], retries: int) -> None:
        try:
            while queue.wanted:
                flood: RetryAfter | None = None
                entered = False
                try:
                    async with throttle(queue.park):
                        entered = True
                        queue.parked = False
                        newest = _newest(queue.wanted)
                        for older in queue.wanted[:newest]:
                            self.dropped += 1
                            _finish(older, True)
                        del queue.wanted[:newest]
                        wanted = queue.wanted[0]
                        try:
                            result = await wanted.send()
                        except RetryAfter as error:
                            flood = error
                        except Exception as error:  # the caller gets it, as without coalescing
                            queue.wanted.pop(0)
                            _fail(wanted, error)
                            continue
                finally:
                    if not entered:
                        queue.parked = False
                if flood is not None:
                    wanted.attempts += 1
                    if wanted.attempts > retries:
                        queue.wanted.pop(0)
                        _fail(wanted, flood)
                    else:
                        queue.park()  # a 429 is waited out off the update slots too
                        try:
                            await flooded(flood)  # then a newer state may replace it
                        finally:
                            queue.parked = False
                    continue
                self.sent += 1
                queue.wanted.pop(0)
                _finish(wanted, result)
        except BaseException as error:  # cancelled at shutdown: nobody waits for ever
            for wanted in queue.wanted:
                _fail(wanted, error if isinstance(error, Exception) else RuntimeError("stopped"))
            queue.wanted.clear()
            raise
        finally:
            if self._queues.get(board) is queue:
                del self._queues[board]


def _newest(wanted: list[_Wanted]) -> int:
    """The index of the newest state that includes every older one's changes."""
    best, seen = 0, frozenset[str]()
    for index, item in enumerate(wanted):
        if seen <= item.changes:
            best = index
        seen |= item.changes
    return best


def _finish(wanted: _Wanted, result: Any) -> None:
    if not wanted.done.done():
        wanted.done.set_result(result)


def _fail(wanted: _Wanted, error: BaseException) -> None:
    if not wanted.done.done():
        wanted.done.set_exception(error)
