"""The bot's handlers, registered by :func:`register` (python-telegram-bot
example style: short async functions, one central error handler)."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.edge.handlers import (
    board,
    buttons,
    chat,
    clock,
    computer,
    errors,
    inline,
    menu,
    tournament,
)
from bot.edge.handlers.common import note_language
from bot.present.painter import PAINTER
from bot.vocab.callbacks import OTHER, pattern
from bot.vocab.clock import now

STARTUP_JOB: dict[str, Any] = {"misfire_grace_time": None, "coalesce": True}
"""APScheduler options of a job due at start-up: run it when the scheduler
starts, however long after its time (its default, one second of grace, skipped
most start-ups' jobs), and once."""


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    # An update delivered twice (a retried webhook, a restart mid-batch) is
    # skipped before any handler: bot.edge.ops.handle_once, for all workers.
    # first of all (before the input limit's group -1): the user's language, for
    # the messages addressed to them later (common.addressee_translator)
    app.add_handler(TypeHandler(Update, note_language), group=-2)
    for command in menu.COMMANDS:
        app.add_handler(CommandHandler(command.name, command.handler))
    # every button's data starts with its Kind, which routes it (menu.BUTTONS)
    for callback, kinds in menu.BUTTONS:
        app.add_handler(CallbackQueryHandler(callback, pattern=pattern(*kinds)))
    app.add_handler(CallbackQueryHandler(buttons.on_other, pattern=OTHER))
    # inline mode (@BotFather /setinline; /setinlinefeedback for the chosen results)
    app.add_handler(InlineQueryHandler(inline.on_inline_query))
    app.add_handler(ChosenInlineResultHandler(inline.on_chosen))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chat.migrated))
    app.add_handler(ChatMemberHandler(chat.membership, ChatMemberHandler.MY_CHAT_MEMBER))
    # a later group: whatever else handles it, a private message means the
    # user started the bot there (reminders may go to them privately)
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE, clock.note_private), group=1)
    if app.job_queue is not None:  # clocks: every process wakes the due games
        # Start-up jobs are added now, before the scheduler starts (after getMe,
        # its retries, Redis and setMyCommands in every language): they must
        # run however late that is, never be skipped as "missed" (STARTUP_JOB).
        # stored games of an older schema move to the current one (bot/store/schema.py)
        app.job_queue.run_once(chat.upgrade_job, when=0.5, name=chat.UPGRADE_JOB,
                               job_kwargs=STARTUP_JOB)
        app.job_queue.run_repeating(clock.tick_job, interval=clock.interval(),
                                    first=clock.interval(), name=clock.JOB_NAME)
        # tournaments: rounds to post, deadlines, start times (bot/edge/handlers/tournament.py)
        app.job_queue.run_repeating(tournament.tick_job, interval=tournament.interval(),
                                    first=tournament.interval(), name=tournament.JOB_NAME)
        # the computer's turns a crash or a restart left waiting (first: at start-up)
        app.job_queue.run_repeating(computer.sweep_job, interval=computer.sweep_interval(),
                                    first=1.0, name=computer.SWEEP_JOB, job_kwargs=STARTUP_JOB)
        # boards a failed redraw left behind before a restart (nobody may tap them soon)
        app.job_queue.run_once(board.startup_redraw_job, when=1.0, data=now(),
                               name=board.STARTUP_REDRAW_JOB, job_kwargs=STARTUP_JOB)
    app.add_error_handler(errors.on_error)
    PAINTER.start()  # the painter process warms up before the first game needs it
