"""The bot's handlers, registered by :func:`register` (python-telegram-bot
example style: short async functions, one central error handler)."""

from __future__ import annotations

from typing import Any

from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from bot.handlers import buttons, chat, commands, errors, ledger, settings
from bot.render.png import warm_up


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    # An update delivered twice (a retried webhook, a restart mid-batch) is
    # skipped before any handler: bot.ops.handle_once, for all workers.
    for name, callback in (
        ("new", commands.new), ("board", commands.board), ("cancel", commands.cancel),
        ("export", commands.export), ("help", commands.help_command),
        ("start", commands.help_command), ("rules", commands.rules), ("lang", commands.lang),
    ):
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CommandHandler("settings", settings.settings_command))
    app.add_handler(CallbackQueryHandler(settings.on_settings_button,
                                         pattern=f"^{settings.PREFIX}"))
    app.add_handler(CallbackQueryHandler(commands.on_lang_button,
                                         pattern=f"^{commands.LANG_PREFIX}"))
    for name, callback in ledger.COMMANDS.items():
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(ledger.on_settle_button, pattern=ledger.PATTERN))
    app.add_handler(CallbackQueryHandler(buttons.on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chat.migrated))
    app.add_handler(ChatMemberHandler(chat.membership, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(errors.on_error)
    warm_up()  # the board picture's cached layers, before the first game needs them
