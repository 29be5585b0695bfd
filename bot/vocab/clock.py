"""Correspondence clocks: time controls, deadlines, reminders, and what time it is.

Pure arithmetic on Unix times (seconds), no Redis and no Telegram.  A game
with a time control gives the player it waits for ``limit`` seconds per move:
the *deadline* starts again whenever the game starts waiting for the other
player (a confirmed turn, a double, a resignation offer), and stops while the
game is paused.  Before the deadline the player is reminded; when it passes,
the opponent is offered the win.  Stages of one deadline, in order:

``REMINDED`` (1)
    The first reminder: half the limit after the deadline started, but not
    before one hour has passed; skipped when that is not before the last one.
``LAST_CALL`` (2)
    Shortly before the deadline: a quarter of the limit before it, at most
    three hours before.
``TIMED_OUT`` (3)
    The deadline itself: the opponent gets "Claim win" / "Give more time".

>>> day = parse_time_control("1d")
>>> day, format_time_control(day)
(86400, '1d')
>>> [(stage, (at - 1000) / 3600) for at, stage in events(1000 + day, day)]
[(1, 12.0), (2, 21.0), (3, 24.0)]
>>> [(stage, (at - 1000) / 60) for at, stage in events(1000 + 3600, 3600)]
[(2, 45.0), (3, 60.0)]

A scheduler that wakes late sends only the latest due reminder, and nothing
but the timeout offer once the deadline has passed:

>>> due_stage(1000 + day, day, done=0, now=1000 + 22 * 3600)
2
>>> due_stage(1000 + day, day, done=0, now=1000 + 30 * 3600)
3
>>> due_stage(1000 + day, day, done=3, now=1000 + 30 * 3600) is None
True
>>> (next_wake(1000 + day, day, done=1) - 1000) / 3600
21.0
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

HOUR = 3600
DAY = 24 * HOUR
MIN_LIMIT = HOUR
MAX_LIMIT = 14 * DAY
PRESETS = (HOUR, 12 * HOUR, DAY, 3 * DAY, 7 * DAY)
"""The time controls offered by buttons and suggested in error messages."""

REMINDED, LAST_CALL, TIMED_OUT = 1, 2, 3
FIRST_AFTER = HOUR
"""The first reminder never comes sooner than this after the deadline started."""
LAST_CALL_LEAD = 3 * HOUR
"""The last reminder comes at most this long before the deadline."""

TEST_CLOCK_ENV = "NARDY_TEST_CLOCK"


class TimeControlError(ValueError):
    """A time control that does not parse or is out of range."""


_UNITS = {"h": HOUR, "d": DAY}
_NONE = frozenset({"none", "off", "no", "0"})


def parse_time_control(text: str) -> int | None:
    """Seconds per move from ``12h``, ``1d``, ``3d`` ...; ``None`` for ``none``/``off``.

    Whole hours or days from one hour to 14 days.

    >>> parse_time_control("12h"), parse_time_control("7D"), parse_time_control("none")
    (43200, 604800, None)
    >>> parse_time_control("30m")
    Traceback (most recent call last):
    ...
    bot.vocab.clock.TimeControlError: not a time control: '30m' (use e.g. 12h, 1d, 3d or none)
    >>> parse_time_control("15d")
    Traceback (most recent call last):
    ...
    bot.vocab.clock.TimeControlError: a time control is 1h to 14d, not '15d'
    """
    word = text.strip().lower()
    if word in _NONE:
        return None
    found = re.fullmatch(r"([0-9]{1,4})([hd])", word)  # ASCII digits: not "١٢h"
    if found is None:
        raise TimeControlError(f"not a time control: {text!r} (use e.g. 12h, 1d, 3d or none)")
    seconds = int(found[1]) * _UNITS[found[2]]
    if not MIN_LIMIT <= seconds <= MAX_LIMIT:
        raise TimeControlError(f"a time control is 1h to 14d, not {text!r}")
    return seconds


def format_time_control(seconds: int | None) -> str:
    """The short form :func:`parse_time_control` reads back.

    >>> [format_time_control(s) for s in (None, 3600, 36 * 3600, 3 * 86400)]
    ['none', '1h', '36h', '3d']
    """
    if seconds is None:
        return "none"
    if seconds % DAY == 0:
        return f"{seconds // DAY}d"
    return f"{seconds // HOUR}h"


def split_duration(seconds: float) -> tuple[int, int, int]:
    """Whole (days, hours, minutes) of a duration, rounded up to the minute
    (never shows "0 minutes" for time that is left).

    >>> split_duration(3 * 86400 + 5 * 3600 + 61), split_duration(1), split_duration(-5)
    ((3, 5, 2), (0, 0, 1), (0, 0, 0))
    """
    minutes = max(0, -int(-seconds // 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    return days, hours, minutes


# ---------------------------------------------------------------- deadlines


def events(deadline: float, limit: int) -> list[tuple[float, int]]:
    """``(time, stage)`` of everything that happens for one deadline, in order."""
    start = deadline - limit
    last_call = deadline - min(limit / 4, LAST_CALL_LEAD)
    first = start + max(limit / 2, FIRST_AFTER)
    out = [(first, REMINDED)] if first < last_call else []
    return [*out, (last_call, LAST_CALL), (deadline, TIMED_OUT)]


def due_stage(deadline: float, limit: int, done: int, now: float) -> int | None:
    """The stage to act on now, given the stages ``done`` already (0: none):
    the latest due one, so a late wake-up does not send stale reminders."""
    due = [stage for at, stage in events(deadline, limit) if at <= now and stage > done]
    return due[-1] if due else None


def next_wake(deadline: float, limit: int, done: int) -> float | None:
    """When the next stage after ``done`` is due (None: nothing left)."""
    return next((at for at, stage in events(deadline, limit) if stage > done), None)


def first_wake(deadline: float | None, limit: int | None) -> float | None:
    """When a game with this deadline must first be looked at (what the store
    schedules on every save).

    >>> first_wake(None, 3600), first_wake(7200.0, None), first_wake(7200.0, 3600)
    (None, 7200.0, 6300.0)
    """
    if deadline is None:
        return None
    if limit is None:  # a deadline without a time control: only the deadline itself
        return deadline
    return next_wake(deadline, limit, 0)


def new_deadline(current: float | None, limit: int | None, now: float, *, running: bool,
                 restart: bool) -> float | None:
    """The deadline after a change of the game: none without a running clock
    (no time control, a paused or finished game); a fresh period when the
    game starts waiting for someone else (``restart``) or had none; else
    the current one.

    >>> new_deadline(500.0, 3600, 100.0, running=True, restart=False)
    500.0
    >>> new_deadline(500.0, 3600, 100.0, running=True, restart=True)
    3700.0
    >>> new_deadline(500.0, 3600, 100.0, running=False, restart=True) is None
    True
    """
    if limit is None or not running:
        return None
    if restart or current is None:
        return now + limit
    return current


# ---------------------------------------------------------------- what time it is


def now() -> float:
    """The time every clock decision uses: the system time, plus (tests only)
    the offset in seconds written in the file named by ``NARDY_TEST_CLOCK``.

    The file is read on every call, so a test moves the clock of a running
    bot process by rewriting it (:func:`set_test_offset`).  Without the
    variable this is ``time.time()``.
    """
    path = os.environ.get(TEST_CLOCK_ENV)
    if not path:
        return time.time()
    try:
        text = Path(path).read_text().strip()
    except FileNotFoundError:
        return time.time()
    return time.time() + (float(text) if text else 0.0)


def set_test_offset(path: Path, seconds: float) -> None:
    """Move the test clock of everything reading ``path`` to ``seconds`` ahead.

    Written to a new file and renamed over the old one, so a reader never
    sees half a number.
    """
    temporary = path.with_suffix(".tmp")
    temporary.write_text(repr(float(seconds)))
    temporary.replace(path)
