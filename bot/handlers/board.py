"""Showing a record in its chat: post, edit, re-post the board or lobby
message, and the turn notification.

A message's keyboard is drawn for a record version; when the message id
must be saved into the record, the keyboard is drawn for the version that
save will create, so the posted buttons are live as soon as the save lands.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import InlineKeyboardMarkup, Message
from telegram.error import BadRequest, Forbidden

from bot.handlers.common import Context, get_store
from bot.i18n import Translator
from bot.messages import board_message, lobby_message, notification
from bot.records import GameRecord, Status
from bot.service import table_of
from bot.store import VersionConflict

log = logging.getLogger(__name__)


def render(tr: Translator, record: GameRecord, **ui: object
           ) -> tuple[str, InlineKeyboardMarkup | None]:
    if record.status is Status.LOBBY or (record.status is Status.CANCELLED and not record.engine):
        return lobby_message(tr, record)
    return board_message(tr, record, **ui)  # type: ignore[arg-type]


def is_not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def is_gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


async def edit(context: Context, tr: Translator, record: GameRecord, **ui: object) -> None:
    """Redraw the record's board message; re-post it if it was deleted."""
    if record.board_message_id is None:
        await repost(context, tr, record)
        return
    text, markup = render(tr, record, **ui)
    try:
        await context.bot.edit_message_text(text, chat_id=record.chat_id,
                                            message_id=record.board_message_id,
                                            reply_markup=markup)
    except BadRequest as error:
        if is_not_modified(error):
            return
        if not is_gone(error):
            raise
        log.info("board message %s in chat %s is gone; re-posting", record.board_message_id,
                 record.chat_id)
        await repost(context, tr, record, strip_old=False)


async def repost(context: Context, tr: Translator, record: GameRecord, *,
                 strip_old: bool = True) -> GameRecord:
    """Post the board (or lobby) at the bottom of the chat and make it the
    active one; the old message loses its buttons (and any left answer stale)."""
    store = get_store(context)
    drawn = record.model_copy(update={"version": record.version + 1})
    text, markup = render(tr, drawn)
    message = await send(context, record, text, markup)
    try:
        saved = await store.save(drawn.model_copy(update={"board_message_id": message.message_id}),
                                 record.version)
    except VersionConflict:
        # someone acted meanwhile: their edit shows the board; this copy is dead
        await _strip(context, record.chat_id, message.message_id)
        current = await store.load(record.key)
        return current or record
    if strip_old and record.board_message_id and record.board_message_id != message.message_id:
        await _strip(context, record.chat_id, record.board_message_id)
    return saved


async def _strip(context: Context, chat_id: int, message_id: int) -> None:
    with contextlib.suppress(BadRequest):  # gone, or already without buttons
        await context.bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id,
                                                    reply_markup=None)


async def send(context: Context, record: GameRecord, text: str,
               markup: InlineKeyboardMarkup | None = None) -> Message:
    return await context.bot.send_message(record.chat_id, text, reply_markup=markup,
                                          message_thread_id=record.thread_id)


def _notify_key(context: Context, record: GameRecord) -> str:
    return get_store(context).chat_key(record.chat_id, f"notify:{record.thread_id or 0}")


async def clear_notification(context: Context, record: GameRecord) -> None:
    """Delete the "your turn" ping once its player acted.

    The ping's message id is kept beside the record, not in it: saving it
    would bump the version and make the board's buttons stale.
    """
    redis = get_store(context).redis
    old = await redis.getdel(_notify_key(context, record))
    if old is not None:
        with contextlib.suppress(BadRequest, Forbidden):  # deleted by someone already
            await context.bot.delete_message(record.chat_id, int(old))


async def notify(context: Context, tr: Translator, record: GameRecord) -> None:
    """Ping the player the game now waits for (editing the board notifies nobody)."""
    await clear_notification(context, record)
    text = notification(tr, record)
    if text is None:
        return
    message = await send(context, record, text)
    await get_store(context).redis.set(_notify_key(context, record), message.message_id,
                                       ex=7 * 24 * 3600)


def waits_for(record: GameRecord) -> int | None:
    """The user id the record waits for (None in a lobby or after the end)."""
    if record.status is not Status.ACTIVE:
        return None
    side = table_of(record).game.to_act
    if side is None:
        return None
    return next(p.user_id for p in record.players if p.side is side)
