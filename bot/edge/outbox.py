"""Each chat's messages take their turn: the chat's flood tokens, handed out fairly.

Every message the bot sends to a chat (a new message, or the edit of one
board, :mod:`bot.edge.coalesce`) first asks :meth:`ChatOutbox.turn` for a
turn.  One dispenser per chat (in this process) reserves the chat's next
time (:meth:`bot.edge.limits.SharedRateLimiter.reserve`: the Redis windows
shared by every worker), waits for it if the budget is spent, and gives it to
the next *lane* in round robin: a lane is one game's board, or the replies to
one update's game or user (:func:`bot.edge.ops.lane_of`), so several games in
one chat are served in turn and a member's flood of commands only delays its
own lane.  A time reserved for nobody (every waiter gave up or went stale
meanwhile) is given back at once, so no budget is left idle while messages
wait.  Nothing here waits for another chat.

A turn is held until its request has come back (:meth:`ChatOutbox.turn` is
a context around the request): only then does the dispenser note when it
came back (:meth:`Booking.settle`) and reserve the chat's next time.  The
Bot API counts a message when it arrives, which may be well after the time
reserved for it when the event loop lags; it arrived no later than its
answer came back.  So when the dispenser reserves, each message it let go
is logged no earlier than it arrived, and the window it reserves in holds
every message the server may count with the new one, whatever the delays
(tests/ops/test_limits.py, a request delayed beyond the margin); another
worker's message still on its way is logged at its reserved time, so
between workers the limiter's margin still covers the way.  The cost:
one chat's messages from one process go one request at a time (other
chats, and other processes, are not held).  A holder that never comes back
frees the turn after :data:`IN_FLIGHT` seconds (requests time out sooner).

When a chat's bucket is spent, every waiter is told so by its ``park``
callback (:meth:`bot.edge.ops.Slot.park`): the update that asked gives its
update slot back and goes on waiting off it, so the other chats' updates are
handled meanwhile.  A waiter that asked with ``stale_after`` and is still
waiting that many seconds later is dropped (:class:`StaleMessage`): a
"slow down" or a ``/rules`` that comes minutes late says nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol

from telegram.error import BadRequest

Park = Callable[[], None]

IN_FLIGHT = 60.0
"""Seconds a turn may be held (its request on its way) before the chat's next
turn is given anyway: longer than any request takes (bot/edge/http.py times
them out within about 30 s), so only a holder that is lost frees it so."""


class Booking(Protocol):
    """A message's reserved time: ``wait`` seconds from now."""

    @property
    def wait(self) -> float: ...

    async def release(self) -> None:
        """Give the time back: no message was sent in it."""

    async def settle(self, at: float) -> None:
        """Its request came back at ``at``: the server saw it no later."""


class StaleMessage(BadRequest):
    """A message dropped because it waited longer than its ``stale_after``
    for its chat's turn (a BadRequest: the update is settled, not retried)."""

    def __init__(self) -> None:
        super().__init__("the message waited too long for the chat's flood limit: dropped")


@dataclass
class _Turn:
    granted: asyncio.Future[None]
    park: Park | None
    stale_at: float | None
    back: asyncio.Future[float | None]
    """Set once the granted turn's request came back (the time it did; None:
    its caller gave up before sending it)."""


@dataclass
class _Chat:
    lanes: OrderedDict[Hashable, deque[_Turn]] = field(default_factory=OrderedDict)
    dispenser: asyncio.Task[None] | None = None
    waiting: bool = False
    """The dispenser is waiting for a token: newcomers park at once."""


class ChatOutbox:
    """The chats' turns; see the module doc.  ``acquire(chat_id)`` reserves
    one message's time (its :class:`Booking`); ``sleep`` and ``clock`` are
    injected by tests."""

    def __init__(self, acquire: Callable[[object], Awaitable[Booking]], *,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._acquire, self._sleep, self._clock = acquire, sleep, clock
        self._chats: dict[object, _Chat] = {}
        self.dropped = 0
        """Messages dropped as stale (for tests and figures)."""

    def waiting(self, chat_id: object) -> int:
        """Messages waiting for a turn in the chat."""
        chat = self._chats.get(chat_id)
        return sum(len(turns) for turns in chat.lanes.values()) if chat else 0

    @contextlib.asynccontextmanager
    async def turn(self, chat_id: object, lane: Hashable, *, park: Park | None = None,
                   stale_after: float | None = None) -> AsyncIterator[None]:
        """Wait for this chat's next token given to ``lane``, and hold it while
        the body sends the message (see the module doc); ``park`` is called
        if the chat's bucket is spent meanwhile.  Raises :class:`StaleMessage`
        after ``stale_after`` seconds of waiting."""
        chat = self._chats.setdefault(chat_id, _Chat())
        loop = asyncio.get_running_loop()
        turn = _Turn(loop.create_future(), park,
                     None if stale_after is None else self._clock() + stale_after,
                     loop.create_future())
        chat.lanes.setdefault(lane, deque()).append(turn)
        if chat.waiting and park is not None:
            park()
        if chat.dispenser is None:
            chat.dispenser = asyncio.create_task(self._dispense(chat_id, chat),
                                                 name=f"outbox-{chat_id}")
        try:
            await turn.granted  # cancelled: the dispenser skips it
        except asyncio.CancelledError:
            self._back(turn, None)  # granted as the caller gave up: nothing was sent
            raise
        try:
            yield
        finally:
            self._back(turn, self._clock())

    @staticmethod
    def _back(turn: _Turn, at: float | None) -> None:
        if not turn.back.done():
            turn.back.set_result(at)

    async def _dispense(self, chat_id: object, chat: _Chat) -> None:
        try:
            while chat.lanes:
                booking = await self._acquire(chat_id)
                wait = booking.wait
                if wait > 0:
                    chat.waiting = True
                    for turns in chat.lanes.values():
                        for turn in turns:
                            if turn.park is not None:
                                turn.park()
                    try:
                        await self._sleep(wait)
                    finally:
                        chat.waiting = False
                granted = self._grant(chat)
                back = None
                if granted is not None:
                    try:
                        back = await asyncio.wait_for(asyncio.shield(granted.back), IN_FLIGHT)
                    except TimeoutError:
                        continue  # lost: its reserved time stays in the log
                if back is None:  # nobody took the time, or sent nothing in it
                    await booking.release()
                else:
                    await booking.settle(back)
        except BaseException as error:  # stopped (shutdown): nobody waits for ever
            for turns in chat.lanes.values():
                for turn in turns:
                    if not turn.granted.done():
                        turn.granted.set_exception(
                            error if isinstance(error, Exception) else RuntimeError("stopped"))
            chat.lanes.clear()
            raise
        finally:
            if self._chats.get(chat_id) is chat:
                del self._chats[chat_id]

    def _grant(self, chat: _Chat) -> _Turn | None:
        """Give the time to the first live turn of the next lane (round robin);
        stale turns on the way are dropped.  None: nobody took it."""
        now = self._clock()
        while chat.lanes:
            lane, turns = next(iter(chat.lanes.items()))
            turn = turns.popleft()
            if turns:
                chat.lanes.move_to_end(lane)
            else:
                del chat.lanes[lane]
            if turn.granted.done():  # its caller gave up
                continue
            if turn.stale_at is not None and now > turn.stale_at:
                self.dropped += 1
                turn.granted.set_exception(StaleMessage())
                continue
            turn.granted.set_result(None)
            return turn
        return None
