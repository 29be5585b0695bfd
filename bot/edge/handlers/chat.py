"""Chat life events: a group migrated to a supergroup, the bot removed or re-added."""

from __future__ import annotations

import logging

from telegram import ChatMemberUpdated, Update

from bot.edge.handlers.common import Context, get_store

log = logging.getLogger(__name__)


async def migrated(update: Update, context: Context) -> None:
    """A group became a supergroup: its games move with it (idempotent)."""
    message = update.effective_message
    assert message is not None
    if message.migrate_to_chat_id:
        old, new = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old, new = message.migrate_from_chat_id, message.chat.id
    else:
        return
    dropped = await get_store(context).migration.migrate_chat(old, new)
    log.info("chat %s migrated to %s (dropped %s)", old, new, dropped)


async def membership(update: Update, context: Context) -> None:
    """The bot was removed or re-added.  Games stay stored either way: after
    re-adding, /board shows the game again."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None:
        return
    log.info("bot status in chat %s: %s -> %s", change.chat.id, change.old_chat_member.status,
             change.new_chat_member.status)


UPGRADE_JOB = "schema"


async def upgrade_job(context: Context) -> None:
    """At start-up: move stored games of an older schema to the current one
    (bot/store/schema.py; every worker may, each record moves once).  A chat
    looked at before this is done is moved right then."""
    store = context.bot_data.get("store")
    if store is None:  # Redis not open yet: every later look at a chat moves it
        return
    try:
        await store.upgrade_schema()
    except Exception:  # the chats move when looked at; the next start-up tries again
        log.exception("moving stored games to the current schema failed")
