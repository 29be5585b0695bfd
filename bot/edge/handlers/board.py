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

Besides its chat's board a game may have **views**: board messages in
players' private chats (``record.views``; a private game has only those).
Each is drawn from its player's side in its chat's style and language,
with the buttons only while the game waits for that player; every change
redraws them all.  Posting a board saves its message id, which moves the
record's version on, so whoever posts one (:func:`repost`,
:func:`post_views`) then redraws the others' keyboards for the new version.

The version each board message shows is noted beside the record
(:meth:`bot.store.Store.mark_shown`) once it is posted or redrawn.  A redraw
that failed (the Bot API answered 502) leaves its board behind the record;
:func:`redraw_stale` redraws exactly the boards that are behind, so repeating
it (a retried update, a refused tap on the old board) never edits a board
twice.  After a restart, :func:`startup_redraw_job` does it for the open
games whose boards were left behind (nobody may tap them for a while).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from bot.edge import effects
from bot.edge.handlers.common import (
    Context,
    addressee_translator,
    chat_language,
    chat_settings,
    get_store,
    update_settings,
)
from bot.present.board import TEXT, BoardMessage, board_message, notification, painted
from bot.present.keyboards import kept_keyboard
from bot.present.lobby import lobby_message
from bot.present.painter import PAINTER
from bot.present.webapp import with_app_button
from bot.rules.chatsettings import with_board_language
from bot.rules.seats import waiting_side, waiting_user
from bot.store import VersionConflict, prefs, private_boards, stale_boards
from bot.store.prefs import forget_started
from bot.vocab import clock
from bot.vocab.i18n import Translator, translator
from bot.vocab.records import (
    BoardViewRef,
    ChatSettings,
    GameRecord,
    Status,
    computer_level,
)
from engine.position import Side

log = logging.getLogger(__name__)

STARTUP_REDRAWS = 50
"""At most this many games' boards are redrawn at start-up, the most recently
changed first (each redraw is an edit that the flood limiter paces)."""
STARTUP_REDRAW_JOB = "redraw-stale"
STARTUP_GRACE = 1.0
"""Seconds before the start within which a change may still be drawn by the
handler of another process (a rolling restart): left to it."""


def is_lobby(record: GameRecord) -> bool:
    return record.status is Status.LOBBY or (record.status is Status.CANCELLED
                                             and not record.engine)


def render(tr: Translator, record: GameRecord, settings: ChatSettings, *,
           style: str | None = None, picture: bool = True, **ui: object) -> BoardMessage:
    """The board (or lobby) message in the chat's board style (or ``style``);
    ``ui`` may also name the ``player`` whose own board it is;
    ``picture=False`` leaves a picture board's picture out (a keyboard-only
    redraw keeps the one posted)."""
    if is_lobby(record):
        return BoardMessage(*lobby_message(tr, record))
    board = board_message(tr, record, style=style or settings.board_style, picture=picture,
                          orientation=settings.orientation, **ui)  # type: ignore[arg-type]
    if record.status is not Status.ACTIVE or record.is_inline:
        return board
    # the Mini App's button (none without WEBAPP_URL): web_app works only in private chats
    private = record.chat_id > 0 or ui.get("player") is not None
    return dataclasses.replace(board, markup=with_app_button(
        tr, board.markup, record.chat_id, record.game_id, private=private))


async def draw(tr: Translator, record: GameRecord, settings: ChatSettings, *,
               style: str | None = None, picture: bool = True, **ui: object) -> BoardMessage:
    """:func:`render`, with the picture painted by :data:`bot.present.painter.PAINTER`
    (in its own process: the loop goes on answering taps meanwhile)."""
    board = render(tr, record, settings, style=style, picture=picture, **ui)
    if board.picture is None:
        return board
    try:
        return painted(board, await PAINTER.png(board.picture))
    except Exception:  # a board is always shown: this once as text (the next edit retries)
        log.exception("cannot paint the board of game %s; showing it as text", record.game_id)
        return render(tr, record, settings, style=TEXT, picture=False, **ui)


class Viewer(NamedTuple):
    """Whom a view is posted for: a private chat, the player's side, their language."""

    chat_id: int
    side: Side | None
    language: str | None = None


Board = tuple[int, int]
"""A posted board message: (chat id, message id)."""


async def board_translator(context: Context, settings: ChatSettings, tr: Translator
                           ) -> Translator:
    """The language of a chat's boards: the one fixed with /lang, else the one
    the chat's first game was drawn in (noted now, when this is it), so a
    group's board does not switch language with whoever taps."""
    if settings.language:
        return translator(settings.language)
    if settings.board_language:
        return translator(settings.board_language)
    chat_id = settings.chat_id

    noted = await update_settings(
        context, chat_id, lambda current: with_board_language(current, chat_id, tr.lang))
    return translator(noted.language or noted.board_language)


def view_translator(settings: ChatSettings, language: str | None) -> Translator:
    """A private chat's fixed language, else its user's."""
    return translator(settings.language or language)


def is_not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def is_gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


async def edit(context: Context, tr: Translator, record: GameRecord, *,
               view: BoardViewRef | None = None, **ui: object) -> None:
    """Redraw every board of the record: its chat's board message and each
    view; a board deleted or of the other style is posted again.  ``ui`` (a
    keyboard-only tap) redraws only the board tapped (``view``, else the
    chat's): the picture stays, only the caption and keyboard change."""
    if ui:
        if view is None:
            await _edit_main(context, tr, record, ui)
        else:
            await _edit_view(context, tr, record, view, ui)
        return
    if await _edit_main(context, tr, record, {}):
        return  # posted again: repost redrew the views
    for each in record.views:
        if await _edit_view(context, tr, record, each, {}):
            return  # posted again: post_views redrew the rest


async def _edit_main(context: Context, tr: Translator, record: GameRecord,
                     ui: dict[str, object], *, keyboard_only: bool = False) -> bool:
    """Redraw the chat's board message (an inline game's: its inline message);
    True if it had to be posted again."""
    if record.is_inline:
        from bot.edge.handlers import inline  # it draws with this module's helpers

        await inline.edit_board(context, tr, record, ui, keyboard_only=keyboard_only)
        return False
    if record.is_private:
        return False
    if record.board_message_id is None:
        await repost(context, tr, record)
        return True
    settings = await chat_settings(context, record.chat_id)
    tr = await board_translator(context, settings, tr)
    if (settings.board_style == "png" and not is_lobby(record)) != record.board_photo:
        # a lobby that became a game, or the style changed: it is replaced, not kept
        await repost(context, tr, record, settings=settings, delete_old=True)
        return True
    same_picture = bool(ui) or keyboard_only
    board = await draw(tr, record, settings, style=settings.board_style,
                       picture=not same_picture, **ui)
    if board.photo is None and record.board_photo:  # not painted: the text board replaces it
        await repost(context, tr, record, settings=settings, delete_old=True)
        return True
    if not await _edit_shown(context, record, (record.chat_id, record.board_message_id), board,
                             same_picture, ui):
        return False
    log.info("board message %s in chat %s is gone; re-posting", record.board_message_id,
             record.chat_id)
    await repost(context, tr, record, strip_old=False, settings=settings)
    return True


async def _edit_shown(context: Context, record: GameRecord, shown: Board, board: BoardMessage,
                      same_picture: bool, ui: dict[str, object]) -> bool:
    """Edit one board message to ``board`` and note what it shows; True when
    the message is gone (the caller posts it again)."""
    try:
        await _edit_message(context, shown, board, same_picture)
    except BadRequest as error:
        if not is_not_modified(error):
            if not is_gone(error):
                raise
            return True
    await _mark(context, record, shown, ui)
    return False


async def _edit_view(context: Context, tr: Translator, record: GameRecord, view: BoardViewRef,
                     ui: dict[str, object], *, keyboard_only: bool = False) -> bool:
    """Redraw one view; True if it had to be posted again."""
    settings = await chat_settings(context, view.chat_id)
    again = [Viewer(view.chat_id, view.viewer, view.language)]
    if (settings.board_style == "png" and not is_lobby(record)) != view.photo:
        await post_views(context, tr, record, again)
        return True
    same_picture = bool(ui) or keyboard_only
    message = await draw(view_translator(settings, view.language), record, settings,
                         style=settings.board_style, picture=not same_picture,
                         player=view.viewer, **ui)
    if message.photo is None and view.photo:  # not painted: the text board replaces it
        await post_views(context, tr, record, again)
        return True
    try:
        gone = await _edit_shown(context, record, (view.chat_id, view.message_id), message,
                                 same_picture, ui)
    except Forbidden:  # the player blocked the bot: their board waits for /games
        log.info("view in chat %s unreachable", view.chat_id)
        await forget_started(get_store(context), view.chat_id)
        return False
    if not gone:
        return False
    log.info("view %s in chat %s is gone; re-posting", view.message_id, view.chat_id)
    await post_views(context, tr, record, again)
    return True


async def start_from_finished(context: Context, tr: Translator, old: GameRecord,
                              new: GameRecord) -> None:
    """A new game (or lobby) started from ``old``'s finished board: that board
    keeps its result visible (its final caption; of its buttons only 📊
    Analysis) and the new one
    gets a message of its own; a private game's boards are its views, and
    are redrawn in place."""
    if old.is_private or old.board_message_id is None:
        await edit(context, tr, new)
        return
    settings = await chat_settings(context, old.chat_id)
    final = old.model_copy(update={"rematch_by": None, "cancel_by": None})
    shown_in = await board_translator(context, settings, tr)
    board = await draw(shown_in, final, settings, picture=False)
    with contextlib.suppress(BadRequest):  # gone or unchanged: the new board is posted anyway
        await _edit_message(context, (old.chat_id, old.board_message_id),
                            BoardMessage(board.text, kept_keyboard(shown_in, final),
                                         board.photo), keyboard_only=True)
    posted = await repost(context, tr, new.model_copy(update={"board_message_id": None}),
                          strip_old=False, settings=settings)
    for view in posted.views:  # they showed the old game: a full redraw, not a keyboard
        await _edit_view(context, tr, posted, view, {})


async def _mark(context: Context, record: GameRecord, board: Board,
                ui: dict[str, object]) -> None:
    """Note the version ``board`` shows now (a keyboard-only tap's redraw
    leaves it where it was: the version did not move)."""
    if not ui:
        await get_store(context).mark_shown(record, board)


async def redraw_stale(context: Context, tr: Translator, record: GameRecord) -> None:
    """Redraw those boards of the record that do not show its version (their
    redraw failed), or post its chat's board if it has none; the others are
    left alone, so this may run any number of times."""
    shown = await get_store(context).shown(record)
    main = 0 if record.is_inline else record.board_message_id  # see Store.boards_of
    behind = main is None or shown.get((record.chat_id, main), -1) < record.version
    has_main = record.is_inline or not record.is_private
    if has_main and behind and await _edit_main(context, tr, record, {}):
        return  # posted again: repost redrew the views
    for view in record.views:
        if shown.get((view.chat_id, view.message_id), -1) < record.version \
                and await _edit_view(context, tr, record, view, {}):
            return  # posted again: post_views redrew the rest


async def startup_redraw_job(context: Context) -> None:
    """The start-up job: redraw the boards of open games that were left behind
    their record before the restart (:func:`bot.store.stale_boards.behind`),
    one game after another; every edit goes through the flood limiter like
    any other, so a big backlog is spread over its budget, never sent at once.

    Only games last changed before this process started (less
    :data:`STARTUP_GRACE`, the job's data) are touched: a later change is
    being shown by the handler that made it."""
    store = context.bot_data.get("store")
    if store is None:  # Redis not open yet: the next start tries again
        return
    started = context.job.data if context.job is not None else time.time()
    assert isinstance(started, float)
    behind = [record for record in await stale_boards.behind(store, STARTUP_REDRAWS)
              if record.updated_at <= started - STARTUP_GRACE]
    log.info("start-up: redrawing the boards of %s games left behind", len(behind))
    for record in behind:
        tr = translator(None if record.is_private
                        else await chat_language(context, record.chat_id))
        try:
            await redraw_stale(context, tr, record)
        except Exception:  # one board that cannot be drawn must not stop the others
            log.exception("redrawing the boards of %s at start-up failed", record.ref)


async def _refresh(context: Context, tr: Translator, record: GameRecord,
                   skip: Iterable[Board]) -> None:
    """After a board was posted (the version moved on, nothing else did):
    the other boards' keyboards for the new version, without new pictures."""
    skipped = set(skip)
    if (record.chat_id, record.board_message_id) not in skipped \
            and await _edit_main(context, tr, record, {}, keyboard_only=True):
        return
    for view in record.views:
        if (view.chat_id, view.message_id) not in skipped \
                and await _edit_view(context, tr, record, view, {}, keyboard_only=True):
            return


async def post_views(context: Context, tr: Translator, record: GameRecord,
                     viewers: Sequence[Viewer]) -> GameRecord:
    """Post the record's board in each viewer's private chat, replacing the
    board of this game there (which loses its buttons), and save them as
    views with one compare-and-set (``record.version`` 0: a game not stored
    yet); then redraw the game's other boards for the new version.  A chat
    that cannot be reached is left out."""
    store = get_store(context)
    drawn = record.model_copy(update={"version": record.version + 1})
    posted: list[BoardViewRef] = []
    for viewer in viewers:
        settings = await chat_settings(context, viewer.chat_id)
        board = await draw(view_translator(settings, viewer.language), drawn, settings,
                           player=viewer.side)
        try:
            message = await send_board(context, viewer.chat_id, None, board)
        except Forbidden:
            log.info("cannot post a view in chat %s", viewer.chat_id)
            await forget_started(store, viewer.chat_id)
            continue
        # before the save: a tap on the new board must find its game at once
        await private_boards.remember(store, viewer.chat_id, message.message_id, record.ref)
        posted.append(BoardViewRef(chat_id=viewer.chat_id, message_id=message.message_id,
                                   viewer=viewer.side, photo=board.photo is not None,
                                   language=viewer.language))
    if not posted:
        return record
    chats = {view.chat_id for view in posted}
    kept = tuple(view for view in record.views if view.chat_id not in chats)
    try:
        saved = await store.save(drawn.model_copy(update={"views": kept + tuple(posted)}),
                                 record.version)
    except VersionConflict:
        for view in posted:  # someone acted meanwhile: their edit shows the boards
            await _retire(context, view.chat_id, view.message_id, delete=True)
            await private_boards.forget(store, view.chat_id, view.message_id)
        return await store.load(record.key) or record
    for view in posted:
        await store.mark_shown(saved, (view.chat_id, view.message_id))
    for view in record.views:
        if view.chat_id in chats:
            await _retire(context, view.chat_id, view.message_id, delete=False)
            await private_boards.forget(store, view.chat_id, view.message_id)
    await _refresh(context, tr, saved, [(view.chat_id, view.message_id) for view in posted])
    return saved


async def _edit_message(context: Context, board: Board, message: BoardMessage,
                        keyboard_only: bool) -> None:
    ids = {"chat_id": board[0], "message_id": board[1], "reply_markup": message.markup}
    if message.photo is None:
        await context.bot.edit_message_text(message.text, **ids)  # type: ignore[arg-type]
    elif keyboard_only:  # the picture did not change: no upload (none was drawn)
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
        settings = await chat_settings(context, record.chat_id)
    if not record.is_private:
        tr = await board_translator(context, settings, tr)
    drawn = record.model_copy(update={"version": record.version + 1})
    board = await draw(tr, drawn, settings)
    message = await send_board(context, record.chat_id, record.thread_id, board)
    posted = {"board_message_id": message.message_id, "board_photo": board.photo is not None}
    try:
        saved = await store.save(drawn.model_copy(update=posted), record.version)
    except VersionConflict:
        # someone acted meanwhile: their edit shows the board; this copy is dead
        await _retire(context, record.chat_id, message.message_id, delete=True)
        current = await store.load(record.key)
        return current or record
    await store.mark_shown(saved, (record.chat_id, message.message_id))
    # a reply to this board names its game, also once a newer board replaced it
    await private_boards.remember(store, record.chat_id, message.message_id, record.ref)
    old = record.board_message_id
    if (strip_old or delete_old) and old and old != message.message_id:
        await _retire(context, record.chat_id, old, delete=delete_old)
    await _refresh(context, tr, saved, [(record.chat_id, message.message_id)])
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


async def send_board(context: Context, chat_id: int, thread_id: int | None,
                     board: BoardMessage) -> Message:
    if board.photo is None:
        return await context.bot.send_message(chat_id, board.text, reply_markup=board.markup,
                                              message_thread_id=thread_id)
    return await context.bot.send_photo(chat_id, board.photo, caption=board.text,
                                        reply_markup=board.markup, message_thread_id=thread_id)


async def send(context: Context, record: GameRecord, text: str,
               markup: InlineKeyboardMarkup | None = None) -> Message:
    """A message about the game in its chat, as a reply to its board: in a
    chat with several games, a tap on the quote shows which one."""
    return await context.bot.send_message(record.chat_id, text, reply_markup=markup,
                                          message_thread_id=record.thread_id,
                                          reply_to_message_id=record.board_message_id,
                                          allow_sending_without_reply=True)


async def clear_notification(context: Context, record: GameRecord) -> None:
    """Delete the "your turn" ping once its player acted.

    The ping's message id is kept beside the record, not in it: saving it
    would bump the version and make the board's buttons stale.  A private
    game's ping is in a player's chat: kept as ``<chat id>:<message id>``.
    """
    old = await get_store(context).take_notification(record.chat_id, record.game_id)
    if old is not None:
        chat, _, message = old.rpartition(":")
        with contextlib.suppress(BadRequest, Forbidden):  # deleted by someone already
            await context.bot.delete_message(int(chat) if chat else record.chat_id, int(message))


PING_DELAY = "ping_delay"
"""bot_data: seconds before a player who has not acted is pinged in the group
(``TURN_PING_DELAY``; 0: at once)."""
DEFAULT_PING_DELAY = 60.0


def game_link(record: GameRecord) -> str | None:
    """A t.me link to the board message (supergroups only have such links)."""
    chat = str(record.chat_id)
    if not chat.startswith("-100") or record.board_message_id is None:
        return None
    return f"https://t.me/c/{chat[4:]}/{record.board_message_id}"


async def notify(context: Context, record: GameRecord) -> None:
    """Ping the player the game now waits for (editing the board notifies nobody);
    in a private game, in their own chat under their board; in their language
    (:func:`addressee_translator`), whoever tapped.  Once per version
    of the game and update: a retried update does not ping (and so delete the
    ping it sent) again.

    A group's message budget is small (about 20 a minute, edits included), so
    a group ping is not sent at once: a player who started the bot gets it
    in the private chat now, anyone else in the group only after the
    ``TURN_PING_DELAY`` (:data:`PING_DELAY`) if they have not acted by then
    (queued in the store, :func:`bot.store.wakeups.ping_tick` sends it)."""
    step = f"notify:{record.ref}:{record.version}"
    user_id = waiting_user(record)
    if effects.done(step) or computer_level(user_id or 0) is not None:
        return  # nobody pings the computer
    await clear_notification(context, record)
    delay = float(context.bot_data.get(PING_DELAY, DEFAULT_PING_DELAY))
    if record.is_private:
        await _notify_privately(context, record)
    elif user_id is not None and await _ping_started(context, record, user_id):
        pass
    elif delay > 0:
        await _ping_later(context, record, clock.now() + delay)
    else:
        await ping_in_chat(context, record)
    effects.note(step)


async def _ping_later(context: Context, record: GameRecord, at: float) -> None:
    """Queue the group ping for the version the game has once its boards are
    posted (posting a board saves its message id, a version of its own that
    is no action of the player's)."""
    store = get_store(context)
    current = await store.load_game(record.chat_id, record.game_id)
    if current is None or current.version < record.version \
            or waiting_user(current) != waiting_user(record):
        current = record
    await store.ping_later(record.ref, current.version, at)


async def ping_in_chat(context: Context, record: GameRecord) -> None:
    """The "your turn" ping as a message in the game's chat, in the language of
    the player it names (:func:`addressee_translator`)."""
    user_id = waiting_user(record)
    if user_id is None:
        return
    text = notification(await addressee_translator(context, user_id, record.chat_id), record)
    if text is not None:
        message = await send(context, record, text)
        await get_store(context).remember_notification(record.chat_id, record.game_id,
                                                       str(message.message_id))


def unreachable(error: Exception) -> bool:
    """Whether a message to a user's private chat failed because the bot may
    not write there: blocked (403), or never started, which Telegram answers
    with 403 "can't initiate conversation" or, for a user the bot has never
    met, 400 "chat not found" (an inline game's player may be one)."""
    return isinstance(error, Forbidden) or "chat not found" in str(error).lower()


async def _ping_started(context: Context, record: GameRecord, user_id: int) -> bool:
    """Ping ``user_id`` in their private chat with the bot if they started it
    there (it costs the group nothing); False when they have not, or it failed."""
    store = get_store(context)
    if not await prefs.has_started(store, user_id):
        return False
    tr = await addressee_translator(context, user_id, user_id)  # their private chat's
    text = notification(tr, record)
    if text is None:
        return True
    link = game_link(record)
    markup = (None if link is None else InlineKeyboardMarkup(
        [[InlineKeyboardButton(tr.gettext("Open the game"), url=link)]]))
    try:
        message = await context.bot.send_message(user_id, text, reply_markup=markup)
    except (Forbidden, BadRequest) as error:  # blocked the bot since: the group, later
        if not unreachable(error):
            raise
        await forget_started(store, user_id)
        return False
    await store.remember_notification(record.chat_id, record.game_id,
                                      f"{user_id}:{message.message_id}")
    return True


async def _notify_privately(context: Context, record: GameRecord) -> None:
    side = waiting_side(record)  # the player to act, or to answer an offer of the next game
    view = next((v for v in record.views if side is not None and v.viewer is side), None)
    if view is None:
        return
    store = get_store(context)
    settings = await chat_settings(context, view.chat_id)
    text = notification(view_translator(settings, view.language), record)
    if text is None:
        return
    try:
        message = await context.bot.send_message(view.chat_id, text,
                                                 reply_to_message_id=view.message_id,
                                                 allow_sending_without_reply=True)
    except Forbidden:
        await forget_started(store, view.chat_id)
        return
    await store.remember_notification(record.chat_id, record.game_id,
                                      f"{view.chat_id}:{message.message_id}")
