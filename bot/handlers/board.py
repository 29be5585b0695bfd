"""Showing a record in its chat: post, edit, re-post the board or lobby
message, and the turn notification.

A message's keyboard is drawn for a record version; when the message id
must be saved into the record, the keyboard is drawn for the version that
save will create, so the posted buttons are live as soon as the save lands.

The board is a photo (the chat's board style "png", the status in the
caption) or a text message.  A photo is redrawn with ``editMessageMedia``
(picture, caption and keyboard in one call), a text board with
``editMessageText``; a message cannot change between the two, so a board
whose style no longer matches the chat's setting (the lobby turning into a
game, a /settings change) is posted anew.  ``record.board_photo`` says what
the posted message is.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import InlineKeyboardMarkup, InputMediaPhoto, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from bot.handlers.common import Context, get_store
from bot.i18n import Translator
from bot.messages import BoardMessage, board_message, lobby_message, notification
from bot.records import ChatSettings, GameRecord, Status
from bot.service import table_of
from bot.store import VersionConflict

log = logging.getLogger(__name__)


def is_lobby(record: GameRecord) -> bool:
    return record.status is Status.LOBBY or (record.status is Status.CANCELLED
                                             and not record.engine)


def render(tr: Translator, record: GameRecord, settings: ChatSettings, **ui: object
           ) -> BoardMessage:
    if is_lobby(record):
        return BoardMessage(*lobby_message(tr, record))
    return board_message(tr, record, style=settings.board_style,
                         orientation=settings.orientation, **ui)  # type: ignore[arg-type]


def is_not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def is_gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


async def edit(context: Context, tr: Translator, record: GameRecord, **ui: object) -> None:
    """Redraw the record's board message; re-post it if it was deleted or
    is of the other style.  ``ui`` (a keyboard-only tap) leaves the picture
    as it is and changes only the caption and keyboard."""
    if record.board_message_id is None:
        await repost(context, tr, record)
        return
    settings = await get_store(context).chat_settings(record.chat_id)
    if (settings.board_style == "png" and not is_lobby(record)) != record.board_photo:
        # a lobby that became a game, or the style changed: it is replaced, not kept
        await repost(context, tr, record, settings=settings, delete_old=True)
        return
    try:
        await _edit_message(context, record, render(tr, record, settings, **ui), bool(ui))
    except BadRequest as error:
        if is_not_modified(error):
            return
        if not is_gone(error):
            raise
        log.info("board message %s in chat %s is gone; re-posting", record.board_message_id,
                 record.chat_id)
        await repost(context, tr, record, strip_old=False, settings=settings)


async def _edit_message(context: Context, record: GameRecord, message: BoardMessage,
                        keyboard_only: bool) -> None:
    ids = {"chat_id": record.chat_id, "message_id": record.board_message_id,
           "reply_markup": message.markup}
    if message.photo is None:
        await context.bot.edit_message_text(message.text, **ids)  # type: ignore[arg-type]
    elif keyboard_only:  # the picture did not change: no upload
        await context.bot.edit_message_caption(caption=message.text, **ids)  # type: ignore[arg-type]
    else:
        media = InputMediaPhoto(message.photo, caption=message.text, parse_mode=ParseMode.HTML)
        await context.bot.edit_message_media(media, **ids)  # type: ignore[arg-type]


async def repost(context: Context, tr: Translator, record: GameRecord, *,
                 strip_old: bool = True, delete_old: bool = False,
                 settings: ChatSettings | None = None) -> GameRecord:
    """Post the board (or lobby) at the bottom of the chat and make it the
    active one; the old message loses its buttons (and any left answer
    stale), or is deleted with ``delete_old``."""
    store = get_store(context)
    if settings is None:
        settings = await store.chat_settings(record.chat_id)
    drawn = record.model_copy(update={"version": record.version + 1})
    board = render(tr, drawn, settings)
    message = await send_board(context, record, board)
    posted = {"board_message_id": message.message_id, "board_photo": board.photo is not None}
    try:
        saved = await store.save(drawn.model_copy(update=posted), record.version)
    except VersionConflict:
        # someone acted meanwhile: their edit shows the board; this copy is dead
        await _retire(context, record.chat_id, message.message_id, delete=True)
        current = await store.load(record.key)
        return current or record
    old = record.board_message_id
    if (strip_old or delete_old) and old and old != message.message_id:
        await _retire(context, record.chat_id, old, delete=delete_old)
    return saved


async def _retire(context: Context, chat_id: int, message_id: int, *, delete: bool) -> None:
    """Delete an old board message, or take its buttons away (also when it
    cannot be deleted any more)."""
    if delete:
        with contextlib.suppress(BadRequest, Forbidden):
            await context.bot.delete_message(chat_id, message_id)
            return
    with contextlib.suppress(BadRequest):  # gone, or already without buttons
        await context.bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id,
                                                    reply_markup=None)


async def send_board(context: Context, record: GameRecord, board: BoardMessage) -> Message:
    if board.photo is None:
        return await send(context, record, board.text, board.markup)
    return await context.bot.send_photo(record.chat_id, board.photo, caption=board.text,
                                        reply_markup=board.markup,
                                        message_thread_id=record.thread_id)


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
