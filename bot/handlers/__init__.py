"""The bot's handlers, registered by :func:`register` (python-telegram-bot
example style: short async functions, one central error handler)."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers import buttons, chat, commands, errors
from bot.handlers.common import Context, get_store


async def drop_duplicates(update: Update, context: Context) -> None:
    """Skip an update delivered twice (a retried webhook, a restart mid-batch)."""
    if await get_store(context).seen_update(update.update_id):
        raise ApplicationHandlerStop


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(TypeHandler(Update, drop_duplicates), group=-1)
    for name, callback in (
        ("new", commands.new), ("board", commands.board), ("cancel", commands.cancel),
        ("export", commands.export), ("help", commands.help_command),
        ("start", commands.help_command), ("rules", commands.rules), ("lang", commands.lang),
    ):
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(commands.on_lang_button,
                                         pattern=f"^{commands.LANG_PREFIX}"))
    app.add_handler(CallbackQueryHandler(buttons.on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chat.migrated))
    app.add_handler(ChatMemberHandler(chat.membership, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(errors.on_error)
