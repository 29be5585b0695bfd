"""What a change shows: post, edit, re-post the board or lobby message (a
chat's, the players' private views, an inline game's message), the turn
notification, the dice's commitment notices (:func:`announce`,
:func:`keep_inline`); :func:`show` is all of it after a change.  Not a
handler: every handler may use it (tests/bot/edge/handlers/test_imports.py).

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
(:meth:`bot.store.games.Games.mark_shown`) once it is posted or redrawn.  A redraw
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
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Message, Update
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
from bot.present.board import PICTURE, TEXT, BoardMessage, board_message, notification, painted
from bot.present.dice import commitment_notice, fresh_commitment
from bot.present.keyboards import kept_keyboard, stacked, timeout_offer
from bot.present.lobby import lobby_message
from bot.present.painter import PAINTER
from bot.present.webapp import with_app_button
from bot.rules.chatsettings import with_board_language
from bot.rules.clock import time_is_up
from bot.rules.lobby import awaits_start
from bot.rules.seats import seat_of, waiting_side, waiting_user
from bot.store import VersionConflict
from bot.vocab import clock
from bot.vocab.i18n import Translator, pick_language, translator
from bot.vocab.records import (
    BoardViewRef,
    ChatSettings,
    DiceState,
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


def people_lobby(record: GameRecord) -> bool:
    """A chat's open lobby whose seats are still free: the tap that fills them
    is mixed into its dice, so its message is the one keeping the whole
    commitment (:func:`announce`)."""
    return (record.status is Status.LOBBY and not awaits_start(record)
            and not record.is_inline and not record.is_private)


def render(tr: Translator, record: GameRecord, settings: ChatSettings, *,
           style: str | None = None, picture: bool = True, **ui: object) -> BoardMessage:
    """The board (or lobby) message in the chat's board style (or ``style``);
    ``ui`` may also name the ``player`` whose own board it is, or be ``live``
    (a group's board of a game both players play in the Mini App says so);
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
               view: BoardViewRef | None = None, live: bool = False, **ui: object) -> None:
    """Redraw every board of the record: its chat's board message and each
    view; a board deleted or of the other style is posted again.  ``ui`` (a
    keyboard-only tap) redraws only the board tapped (``view``, else the
    chat's): the picture stays, only the caption and keyboard change.
    ``live``: the chat's board says the game is played in the Mini App (the
    players' own views do not: they are the players')."""
    if ui:
        if view is None:
            await _edit_main(context, tr, record, ui)
        else:
            await _edit_view(context, tr, record, view, ui)
        return
    if await _edit_main(context, tr, record, {}, live=live):
        return  # posted again: repost redrew the views
    for each in record.views:
        if await _edit_view(context, tr, record, each, {}):
            return  # posted again: post_views redrew the rest


async def _edit_main(context: Context, tr: Translator, record: GameRecord,
                     ui: dict[str, object], *, keyboard_only: bool = False,
                     live: bool = False) -> bool:
    """Redraw the chat's board message (an inline game's: its inline message);
    True if it had to be posted again."""
    if record.is_inline:
        await edit_board(context, tr, record, ui, keyboard_only=keyboard_only)
        return False
    if record.is_private:
        return False
    if record.board_message_id is None:
        await repost(context, tr, record, live=live)
        return True
    settings = await chat_settings(context, record.chat_id)
    tr = await board_translator(context, settings, tr)
    if (settings.board_style == "png" and not is_lobby(record)) != record.board_photo:
        # a lobby that became a game, or the style changed: it is replaced, not kept
        await repost(context, tr, record, settings=settings, delete_old=True, live=live)
        return True
    same_picture = bool(ui) or keyboard_only
    board = await draw(tr, record, settings, style=settings.board_style,
                       picture=not same_picture, live=live, **ui)
    if board.photo is None and record.board_photo:  # not painted: the text board replaces it
        await repost(context, tr, record, settings=settings, delete_old=True, live=live)
        return True
    if not await _edit_shown(context, record, (record.chat_id, record.board_message_id), board,
                             same_picture, ui):
        return False
    log.info("board message %s in chat %s is gone; re-posting", record.board_message_id,
             record.chat_id)
    await repost(context, tr, record, strip_old=False, settings=settings, live=live)
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
        await get_store(context).prefs.forget_started(view.chat_id)
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
        await get_store(context).games.mark_shown(record, board)


async def redraw_stale(context: Context, tr: Translator, record: GameRecord) -> None:
    """Redraw those boards of the record that do not show its version (their
    redraw failed), or post its chat's board if it has none; the others are
    left alone, so this may run any number of times."""
    shown = await get_store(context).games.shown(record)
    main = 0 if record.is_inline else record.board_message_id  # see store.games.boards_of
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
    their record before the restart (:meth:`bot.store.board.Board.behind`),
    one game after another; every edit goes through the flood limiter like
    any other, so a big backlog is spread over its budget, never sent at once.

    Only games last changed before this process started (less
    :data:`STARTUP_GRACE`, the job's data) are touched: a later change is
    being shown by the handler that made it."""
    store = context.bot_data.get("store")
    if store is None:  # Redis not open yet: the next start tries again
        return
    started = context.job.data if context.job is not None else clock.now()
    assert isinstance(started, float)
    behind = [record for record in await store.board.behind(STARTUP_REDRAWS)
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
            await store.prefs.forget_started(viewer.chat_id)
            continue
        # before the save: a tap on the new board must find its game at once
        await store.board.remember(viewer.chat_id, message.message_id, record.ref)
        posted.append(BoardViewRef(chat_id=viewer.chat_id, message_id=message.message_id,
                                   viewer=viewer.side, photo=board.photo is not None,
                                   language=viewer.language))
    if not posted:
        return record
    chats = {view.chat_id for view in posted}
    kept = tuple(view for view in record.views if view.chat_id not in chats)
    try:
        saved = await store.games.save(drawn.model_copy(update={"views": kept + tuple(posted)}),
                                       record.version)
    except VersionConflict:
        for view in posted:  # someone acted meanwhile: their edit shows the boards
            await _retire(context, view.chat_id, view.message_id, delete=True)
            await store.board.forget(view.chat_id, view.message_id)
        return await store.games.load(record.key) or record
    for view in posted:
        await store.games.mark_shown(saved, (view.chat_id, view.message_id))
    for view in record.views:
        if view.chat_id in chats:
            await _retire(context, view.chat_id, view.message_id, delete=False)
            await store.board.forget(view.chat_id, view.message_id)
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
                 settings: ChatSettings | None = None, live: bool = False) -> GameRecord:
    """Post the board (or lobby) at the bottom of the chat and make it the
    active one; the old message loses its buttons (and any left answer
    stale), or is deleted with ``delete_old``; ``live`` as for :func:`render`."""
    store = get_store(context)
    if settings is None:
        settings = await chat_settings(context, record.chat_id)
    if not record.is_private:
        tr = await board_translator(context, settings, tr)
    drawn = record.model_copy(update={"version": record.version + 1})
    board = await draw(tr, drawn, settings, live=live)
    message = await send_board(context, record.chat_id, record.thread_id, board)
    posted = {"board_message_id": message.message_id, "board_photo": board.photo is not None}
    try:
        saved = await store.games.save(drawn.model_copy(update=posted), record.version)
    except VersionConflict:
        # someone acted meanwhile: their edit shows the board; this copy is dead
        await _retire(context, record.chat_id, message.message_id, delete=True)
        current = await store.games.load(record.key)
        return current or record
    await store.games.mark_shown(saved, (record.chat_id, message.message_id))
    # a reply to this board names its game, also once a newer board replaced it
    await store.board.remember(record.chat_id, message.message_id, record.ref)
    old = record.board_message_id
    if (strip_old or delete_old) and old and old != message.message_id:
        await _retire(context, record.chat_id, old, delete=delete_old)
    await _refresh(context, tr, saved, [(record.chat_id, message.message_id)])
    if old and old != message.message_id:
        await _relink(context, saved)
    return saved


async def _relink(context: Context, record: GameRecord) -> None:
    """Messages whose button links to the game's board (a tournament player's
    private notice, ``store.board.link``) now link to its new message: the old
    one is gone or stale."""
    link = game_link(record)
    if link is None:
        return
    for chat_id, message_id, label in await get_store(context).board.links(record.ref):
        with contextlib.suppress(BadRequest, Forbidden):   # deleted, or the bot blocked
            await context.bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id,
                reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton(label, url=link)]]))


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
    old = await get_store(context).games.take_notification(record.chat_id, record.game_id)
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
    (queued in the store, :meth:`bot.store.clock.Clock.ping_tick` sends it)."""
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
    current = await store.games.load_game(record.chat_id, record.game_id)
    if current is None or current.version < record.version \
            or waiting_user(current) != waiting_user(record):
        current = record
    await store.clock.ping_later(record.ref, current.version, at)


async def ping_in_chat(context: Context, record: GameRecord) -> None:
    """The "your turn" ping as a message in the game's chat, in the language of
    the player it names (:func:`addressee_translator`)."""
    user_id = waiting_user(record)
    if user_id is None:
        return
    text = notification(await addressee_translator(context, user_id, record.chat_id), record)
    if text is not None:
        message = await send(context, record, text)
        await get_store(context).games.remember_notification(record.chat_id, record.game_id,
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
    if not await store.prefs.has_started(user_id):
        return False
    tr = await addressee_translator(context, user_id, user_id)  # their private chat's
    text = notification(tr, record)
    if text is None:
        return True
    # the board as posted now: a redraw before this ping may have posted it anew
    link = game_link(await store.games.load(record.key) or record)
    label = tr.gettext("Open the game")
    markup = (None if link is None else InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, url=link)]]))
    try:
        message = await context.bot.send_message(user_id, text, reply_markup=markup)
    except (Forbidden, BadRequest) as error:  # blocked the bot since: the group, later
        if not unreachable(error):
            raise
        await store.prefs.forget_started(user_id)
        return False
    if link is not None:   # the link follows the board if it is posted anew (_relink)
        await store.board.link(record.ref, user_id, message.message_id, label)
    await store.games.remember_notification(record.chat_id, record.game_id,
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
        await store.prefs.forget_started(view.chat_id)
        return
    await store.games.remember_notification(record.chat_id, record.game_id,
                                            f"{view.chat_id}:{message.message_id}")


async def announce(context: Context, tr: Translator, old: GameRecord | None,
                   new: GameRecord, *, to: Sequence[tuple[int, Translator]] = ()) -> None:
    """Post the whole commitment of a seed ``new`` commits to (and ``old`` did
    not) in a message never edited afterwards: in its chat (in the language of
    its boards), or each player's private chat for a private game (``to``:
    those chats and their languages; else each person's chat in ``tr``); an
    inline game has no chat of its own (its message shows the whole
    commitment until the game starts): only the private chats ``to`` (its
    first player's, if they started the bot).  A group's game whose entropy
    will be a seated person's tap (▶ Start against the computer, the Accept of
    a rematch offer) keeps it in those persons' private chats instead when they
    all started the bot (:func:`_kept_privately`): the group gets one message.
    A chat's lobby between people is itself the kept message (it shows the
    whole commitment, and the tap that seats its second player posts the game
    as a new message, :func:`bot.rules.lobby.start_game`): nothing more."""
    state = fresh_commitment(old, new)
    if state is None or (new.is_inline and not to) or people_lobby(new):
        return
    if not new.is_private:
        if await _kept_privately(context, new, state):
            return
        shown = await board_translator(context, await chat_settings(context, new.chat_id), tr)
        await context.bot.send_message(new.chat_id, commitment_notice(shown, state),
                                       message_thread_id=new.thread_id)
        return
    people = to or [(p.user_id, tr) for p in new.players if computer_level(p.user_id) is None]
    for chat_id, language in people:
        try:
            await context.bot.send_message(chat_id, commitment_notice(language, state))
        except (Forbidden, BadRequest) as error:  # blocked: the view shows it too
            if not unreachable(error):
                raise


async def _kept_privately(context: Context, new: GameRecord, state: DiceState) -> bool:
    """A group's game whose entropy can only be the tap of a person seated in
    it now (a game waiting for their ▶ Start, a rematch offer its other player
    accepts): the commitment goes to each such person's private chat, before
    that tap, if every one of them started the bot.  False (nothing, or not
    everybody, reached): the group gets the message."""
    if not (awaits_start(new) or new.next_dice is state):
        return False
    store = get_store(context)
    people = [p.user_id for p in new.players if computer_level(p.user_id) is None]
    if not people or not all([await store.prefs.has_started(p) for p in people]):
        return False
    for person in people:
        language = await addressee_translator(context, person, new.chat_id)
        try:
            await context.bot.send_message(person, commitment_notice(language, state))
        except (Forbidden, BadRequest) as error:  # blocked since: the group gets it
            if not unreachable(error):
                raise
            await store.prefs.forget_started(person)
            return False
    return True


async def keep_inline(context: Context, tr: Translator, old: GameRecord | None,
                      new: GameRecord, user_id: int) -> None:
    """An inline game has no chat of the bot's: the whole commitment is kept
    in the private chats of its players who ever started the bot, sent
    before the message is redrawn, so before the tap it awaits exists
    (docs/fair-dice.md): ``user_id`` just joined the lobby (its ▶ Start
    comes next), or the other player's Accept of a rematch offered by
    ``user_id`` (both are known then)."""
    if not new.is_inline:
        return
    joined = seat_of(new, user_id) is not None and (old is None or seat_of(old, user_id) is None)
    if new.status is Status.LOBBY and joined:
        people, since = [user_id], None  # the lobby's seed: shown on it, not kept yet for them
    elif fresh_commitment(old, new) is not None:
        people, since = [p.user_id for p in new.players], old  # a rematch offered
    else:
        return
    store = get_store(context)
    to = [(person, tr if person == user_id else translator(await store.prefs.language(person)))
          for person in people if await store.prefs.has_started(person)]
    if to:
        await announce(context, tr, since, new, to=to)


async def show(context: Context, tr: Translator, old: GameRecord, new: GameRecord,
                user_id: int, *, repair: bool = False, live: bool = False) -> None:
    """Redraw the board and ping whoever the game waits for now; ``repair``: only
    the boards that do not show ``new`` yet (a retry); ``live``: both players play
    in the Mini App (the group board says so, :func:`render`)."""
    if new.is_inline and old.status is Status.LOBBY and new.status is Status.ACTIVE:
        await get_store(context).keep_chat(new.chat_id, None)  # its game started (issue 21)
    if repair:
        await redraw_stale(context, tr, new)
    elif old.game_id != new.game_id and old.status is not Status.ACTIVE:
        await start_from_finished(context, tr, old, new)
    else:
        await keep_inline(context, tr, old, new, user_id)  # before its Start or Accept
        await edit(context, tr, new, live=live)
        if new.is_private and old.status is Status.LOBBY:  # its text views were posted again
            # posted again as pictures: ping under those
            new = await get_store(context).games.load(new.key) or new
    if not repair:  # a new seed's whole commitment kept (the board shows it already)
        await announce(context, tr, old, new)
    before, after = waiting_user(old) if old.game_id == new.game_id else None, waiting_user(new)
    if after is not None and after != before:
        await notify(context, new)
    elif before == user_id or new.status is not Status.ACTIVE:
        await clear_notification(context, new)


MEDIA_CHAT = "media_chat"
"""``bot_data`` key: the chat board pictures of inline games are uploaded to
(``MEDIA_CHAT_ID``), or None."""


_OTHER_KIND = ("no caption in the message", "no text in the message",
               "no media in the message")
"""Telegram's refusals of an edit for a message of the other kind: a text
board's edit of a picture, a caption's of a text, a picture for a text (a
Bot API that does not let media be added to a text message)."""


def media_chat(context: Context) -> int | str | None:
    chat: int | str | None = context.bot_data.get(MEDIA_CHAT)
    return chat


async def edit_board(context: Context, tr: Translator, record: GameRecord,
                     ui: dict[str, object], *, keyboard_only: bool = False) -> None:
    """Redraw an inline game's message (see the module doc); ``ui`` and
    ``keyboard_only`` as for a chat's board (the picture stays)."""
    settings = await chat_settings(context, record.chat_id)
    tr = await board_translator(context, settings, tr)
    picture = record.board_photo and not is_lobby(record) and media_chat(context) is not None
    styles = (PICTURE, TEXT) if picture else (TEXT, PICTURE)
    for attempt, style in enumerate(styles):
        try:
            await _edit_as(context, tr, record, settings, style,
                           same_picture=bool(ui) or keyboard_only, ui=ui)
        except BadRequest as error:
            reason = error.message.lower()
            if is_not_modified(error):
                break
            if attempt == 0 and any(kind in reason for kind in _OTHER_KIND):
                continue  # the message is of the other kind (the lobby's text, a picture)
            if "message_id_invalid" in reason:
                log.info("inline message of game %s is gone", record.game_id)
                return
            raise
        break
    if not ui:
        await get_store(context).games.mark_shown(record, (record.chat_id, 0))


async def _edit_as(context: Context, tr: Translator, record: GameRecord,
                   settings: ChatSettings, style: str, *, same_picture: bool,
                   ui: dict[str, object]) -> None:
    """One edit of the message as a text board or (``style``) as a picture board."""
    inline_id = record.inline_message_id
    if style == TEXT:
        board = render(tr, record, settings, style=TEXT, picture=False, **ui)
        await context.bot.edit_message_text(board.text, inline_message_id=inline_id,
                                            reply_markup=_with_clock(tr, record, board.markup))
        return
    board = await draw(tr, record, settings, style=PICTURE, picture=not same_picture, **ui)
    if board.photo is None:  # not painted (draw fell back to text): the picture stays
        board = render(tr, record, settings, style=PICTURE, picture=False, **ui)
    markup = _with_clock(tr, record, board.markup)
    file_id = await _upload(context, board.photo) if board.photo else None
    if file_id is not None:
        media = InputMediaPhoto(file_id, caption=board.text, parse_mode=ParseMode.HTML)
        await context.bot.edit_message_media(media, inline_message_id=inline_id,
                                             reply_markup=markup)
    else:
        await context.bot.edit_message_caption(caption=board.text, inline_message_id=inline_id,
                                               reply_markup=markup)


async def _upload(context: Context, photo: bytes) -> str | None:
    """Send a board picture to the media chat; its file id, None if it cannot."""
    chat = media_chat(context)
    if chat is None:
        return None
    try:
        sent = await context.bot.send_photo(chat, photo, disable_notification=True)
    except (BadRequest, Forbidden) as error:
        log.warning("cannot send a board picture to the media chat %s: %s", chat, error)
        return None
    return sent.photo[-1].file_id if sent.photo else None


def _with_clock(tr: Translator, record: GameRecord, markup: InlineKeyboardMarkup | None
                ) -> InlineKeyboardMarkup | None:
    """Once the player to move ran out of time, the inline board carries the
    opponent's Claim win / Give more time (there is no chat to offer them in)."""
    if not time_is_up(record, clock.now()):
        return markup
    return stacked(markup, timeout_offer(tr, record))


async def show_view(update: Update, context: Context, tr: Translator,
                    record: GameRecord) -> None:
    """Post ``record``'s board in this private chat, from the user's side
    (they must be playing it)."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    side = seat_of(record, user.id)
    assert side is not None
    language = pick_language(user.language_code)
    await post_views(context, tr, record, [Viewer(chat.id, side, language)])
