"""The one central error handler: log with context, tell the user, never go silent."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError

from bot.edge.handlers.common import Context, get_store, translator_for
from bot.edge.outbox import StaleMessage
from bot.store.client import is_transient

log = logging.getLogger(__name__)


async def on_error(update: object, context: Context) -> None:
    error = context.error
    if not isinstance(update, Update):
        log.error("error outside an update: %r", error, exc_info=error)
        return
    chat = update.effective_chat
    user = update.effective_user
    where = f"update {update.update_id} chat {chat.id if chat else None} " \
            f"user {user.id if user else None}"
    if isinstance(error, ChatMigrated) and chat is not None:
        # The group became a supergroup before we saw the service message.
        await get_store(context).migration.migrate_chat(chat.id, error.new_chat_id)
        log.info("%s: chat migrated to %s; games moved", where, error.new_chat_id)
        return
    if isinstance(error, StaleMessage):  # a late answer dropped on purpose: nothing to tell
        log.info("%s: %s", where, error.message)
        return
    if isinstance(error, Forbidden):
        log.warning("%s: forbidden (%s); games stay stored", where, error.message)
        return
    if is_transient(error):  # Redis away for a while: the update is retried, said nothing
        log.warning("%s: Redis unavailable (%r); the update will be retried", where, error)
        return
    log.error("%s: %r", where, error, exc_info=error)
    if isinstance(error, NetworkError) and not isinstance(error, BadRequest):
        return  # the Bot API is unreachable; telling the user would fail too
    try:
        tr = await translator_for(update, context)
    except Exception:  # the store may be what failed
        from bot.vocab.i18n import translator

        tr = translator(user.language_code if user else None)
    text = tr.gettext("Sorry, something went wrong. Please try again, or use /board.")
    try:
        query = update.callback_query
        if query is not None:
            await query.answer(text, show_alert=True)
        elif chat is not None:
            await context.bot.send_message(
                chat.id, text, message_thread_id=update.effective_message.message_thread_id
                if update.effective_message and update.effective_message.is_topic_message
                else None)
    except Exception:  # already answered, or the chat is gone: the log has it
        log.warning("%s: could not report the error to the user", where)
