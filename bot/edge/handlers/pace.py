"""The per-user input limit: a member's flood of commands or taps is ignored.

Before any handler (group -1, :func:`register`), each command (a message
starting with ``/``) and each button tap takes a token from its sender's
bucket in Redis (``nardy:{user:<uid>}:pace:cmd|tap``, shared by every worker,
:meth:`bot.store.flood.FloodBuckets.admit`).  Beyond the rate the update is
not handled: the first one is answered with a translated "slow down" (a
reply to the command, an alert on the tap), the later ones get nothing but,
for a tap, the empty answer Telegram waits for (answering a tap costs no
flood budget, and an unanswered tap spins on the tapper's screen).  One
warning per :data:`WARN_EVERY` seconds at most: a flood of commands gets one
reply, not one per command.  If Redis fails, input goes through.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from telegram import Update
from telegram.ext import ApplicationHandlerStop, TypeHandler

from bot.edge import metrics
from bot.edge.handlers.common import Context, get_store, reply, translator_for
from bot.vocab.i18n import N_

log = logging.getLogger(__name__)

COMMAND_RATE = 1 / 6
"""Commands a second one user may send, sustained (ten a minute)."""
COMMAND_BURST = 8
"""Commands one user may send at once (a few in a row to start a game and look around)."""
TAP_RATE = 2.0
"""Button taps a second one user may make, sustained (a quick turn is a few taps)."""
TAP_BURST = 15
"""Taps one user may make at once."""
WARN_EVERY = 30.0
"""Seconds between two "slow down" answers to one user (of one kind)."""
SLOW_DOWN = N_("Slow down, please: too many commands. The bot ignores yours for a little "
               "while.")
SLOW_DOWN_TAPS = N_("Slow down, please: too many taps. Wait a moment, then tap again.")
LIMITS = {"cmd": (COMMAND_RATE, COMMAND_BURST), "tap": (TAP_RATE, TAP_BURST)}
clock: Callable[[], float] = time.time
"""The buckets' clock (a test stops it)."""


def input_kind(update: Update) -> str | None:
    """``cmd``, ``tap`` or ``None`` (input the limit does not count).

    >>> user = {"id": 2, "is_bot": False, "first_name": "A"}
    >>> input_kind(Update.de_json({"update_id": 1, "message": {"message_id": 1, "date": 0,
    ...     "chat": {"id": -5, "type": "group"}, "text": "/rules", "from": user}}, None))
    'cmd'
    >>> input_kind(Update.de_json({"update_id": 1, "callback_query": {"id": "1",
    ...     "chat_instance": "3", "from": user, "data": "g:x:1:r"}}, None))
    'tap'
    """
    if update.callback_query is not None:
        return "tap"
    message = update.message
    if message is not None and message.text is not None and message.text.startswith("/"):
        return "cmd"
    return None


async def pace(update: object, context: Context) -> None:
    """Stop the update here when its sender is beyond the input limit."""
    if not isinstance(update, Update) or update.effective_user is None:
        return
    kind = input_kind(update)
    if kind is None:
        return
    rate, burst = LIMITS[kind]
    store = get_store(context)
    try:
        verdict = await store.flood.admit(store.keys.pace(update.effective_user.id, kind),
                                          rate, burst, clock(), WARN_EVERY)
    except Exception as error:  # Redis trouble: better handled than ignored
        log.warning("input limit unavailable (%r)", error)
        return
    if verdict == "ok":
        return
    metrics.INPUT_LIMITED.labels(kind).inc()
    warn = verdict == "warn"
    query = update.callback_query
    if query is not None:
        tr = await translator_for(update, context) if warn else None
        await query.answer(tr.gettext(SLOW_DOWN_TAPS) if tr is not None else None,
                           show_alert=warn)
    elif warn:
        await reply(update, (await translator_for(update, context)).gettext(SLOW_DOWN))
    raise ApplicationHandlerStop


def register(app: Any) -> None:
    """Before every other handler group."""
    app.add_handler(TypeHandler(Update, pace), group=-1)
