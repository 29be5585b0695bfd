"""Reaching the Bot API at start-up: a passing failure is waited out, a final one is one line.

A deploy during a network blip should not need a human: the start-up calls
(``getMe``, and ``setWebhook`` in webhook mode) are retried with a doubling
pause while they fail in a way that may pass (no connection, a time-out, a
5xx answer, a flood wait), for at most ``STARTUP_RETRY_SECONDS``.  Each retry
is one warning line; no traceback.  A refusal that cannot pass (Telegram
rejected the token, a bad request) ends the start-up at once.  What
:func:`bot.edge.app.main` then prints is :func:`unreachable`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

from bot.edge.limits import flood_wait

log = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_PAUSE = 0.5
LONGEST_PAUSE = 10.0


def passing(error: BaseException) -> bool:
    """Whether a failed Bot API call may succeed if tried again.

    >>> from telegram.error import InvalidToken, TimedOut
    >>> [passing(e) for e in (NetworkError("Bad Gateway"), TimedOut(), RetryAfter(3),
    ...                       InvalidToken(), BadRequest("chat not found"))]
    [True, True, True, False, False]
    """
    return isinstance(error, RetryAfter) or (
        isinstance(error, NetworkError) and not isinstance(error, BadRequest))


async def retrying(action: Callable[[], Awaitable[T]], *, what: str, budget: float,
                   clock: Callable[[], float] = time.monotonic,
                   sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> T:
    """``await action()``, tried again after a passing failure until ``budget``
    seconds have gone by; then (or on any other failure) its error is raised."""
    deadline = clock() + budget
    pause = FIRST_PAUSE
    while True:
        try:
            return await action()
        except TelegramError as error:
            left = deadline - clock()
            if not passing(error) or left <= 0:
                raise
            wait = min(max(pause, flood_wait(error)) if isinstance(error, RetryAfter)
                       else pause, left)
            log.warning("%s failed (%s); trying again in %.1f s (for %.0f s more)",
                        what, error, wait, left)
            await sleep(wait)
            pause = min(pause * 2, LONGEST_PAUSE)


def unreachable(api_url: str, error: BaseException, budget: float) -> str:
    """The one line a start-up that could not reach the Bot API ends with.

    >>> unreachable("https://api.telegram.org", NetworkError("Timed out"), 60)
    'nardy: cannot reach the Telegram Bot API at https://api.telegram.org/bot: Timed out \
(tried for 60 s; STARTUP_RETRY_SECONDS)'
    """
    return (f"nardy: cannot reach the Telegram Bot API at {api_url}/bot: {error} "
            f"(tried for {budget:g} s; STARTUP_RETRY_SECONDS)")
