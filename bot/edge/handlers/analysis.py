"""📊 Analysis and /analyze: a finished game's analysis, posted in the chat.

Anyone in the chat may ask, by the button on a result board or by
``/analyze`` (the chat's last finished game, or the game whose board the
command replies to): the analysis only reads the game.  A private game's
analysis is its players' only.

One analysis of a game is in flight at a time over all workers
(:meth:`bot.store.analysis.Analysis.claim`); a tap meanwhile is told so.  The
analysis runs in the computer's thinking pool (another process:
:func:`bot.edge.handlers.computer.in_pool`), the picture is painted in the
painter's process (:data:`bot.present.painter.PAINTER`), so the event loop
goes on answering every other tap.  What was posted is remembered per
language and board style (bot/store/analysis.py): a later tap posts it again
by Telegram's file id (nothing computed or painted again), or, when it was
posted in this chat a moment ago, points at it.

Each game is analysed once, in a pool of its own, within bounds per chat
and per user (:func:`bot.edge.handlers.computer.analysed`, which ``/export``
shares; beyond the bounds the asker is told to ask again later:
:func:`bot.edge.handlers.computer.refusal`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from dataclasses import dataclass

from telegram import CallbackQuery, Chat, Message, Update
from telegram.error import BadRequest, Forbidden

from ai.analysis import Analysis
from bot.edge.handlers.board import board_translator
from bot.edge.handlers.common import (
    UNKNOWN_BUTTON,
    Context,
    get_store,
    reply,
    tapped_chat,
    thread_of,
    translator_for,
)
from bot.edge.handlers.computer import TooManyAnalyses, analysed, refusal
from bot.edge.memo import Memo
from bot.present.analysis import analysis_picture, analysis_text, caption
from bot.present.board import PICTURE, TEXT
from bot.present.painter import PAINTER
from bot.present.render.analysis import render_analysis
from bot.rules.analysis import analysable
from bot.rules.seats import seat_of
from bot.store import Store
from bot.store.inline import inline_chat_id
from bot.vocab.callbacks import AnalyseGame, CallbackDataError
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord
from bot.vocab.usertext import ALERT_LIMIT, clean

log = logging.getLogger(__name__)

REPOST_AFTER = 300.0
"""Seconds after posting an analysis in a chat during which a new request
there is pointed at it instead of posting it again."""
KEPT_PICTURES = 8
"""Analysis pictures this process keeps (about 100 KB each)."""

NO_GAME = N_("There is no finished game here to analyse yet.")
NOT_OVER = N_("This game is not over yet: it can be analysed after its end.")
NOT_A_BOARD = N_("Reply to a game's board with /analyze, or send /analyze alone for the "
                 "last finished game here.")
BUSY = N_("This game is being analysed; the analysis comes in a moment.")
ABOVE = N_("The analysis of this game was just posted here.")
ANALYSING = N_("📊 Analysing the game…")
FAILED = N_("The game could not be analysed; please try again later.")
SENT_PRIVATELY = N_("📊 The analysis comes in your private chat with the bot.")
PRIVATE_ABOVE = N_("The analysis of this game was just sent to your private chat with the bot.")
START_PREFIX = "an"
"""``/start an<chat>g<game id>``: the analysis of an inline game, asked on its
board by someone who had not started the bot (:func:`start_payload`)."""
_START = re.compile(r"an([0-9]{1,20})g([A-Za-z0-9_-]{4,32})")

_PICTURES: Memo[tuple[str, str], bytes] = Memo(KEPT_PICTURES)


@dataclass(frozen=True)
class Place:
    """Where the analysis goes: a chat, its topic, the message it answers."""

    chat_id: int
    thread_id: int | None
    reply_to: int | None
    group: bool


@dataclass(frozen=True)
class Asker:
    """Who asked: a tap (answered once, a short notice) or a command (replies).
    ``elsewhere``: a tap on an inline board, whose analysis goes to the
    tapper's private chat (the bot cannot post in the inline message's chat)."""

    update: Update
    query: CallbackQuery | None = None
    elsewhere: bool = False

    async def tell(self, text: str) -> None:
        if self.query is not None:
            await self.query.answer(clean(text, ALERT_LIMIT))
        else:
            await reply(self.update, text)

    async def working(self, text: str) -> Message | None:
        """Say the analysis has started; a message to delete once it is posted."""
        if self.query is not None:
            await self.query.answer(clean(text, ALERT_LIMIT))
            return None
        return await reply(self.update, text)

    async def done(self, text: str | None = None) -> None:
        if self.query is not None:
            await self.query.answer(None if text is None else clean(text, ALERT_LIMIT))


# ---------------------------------------------------------------- which game


def _shows(store: Store, record: GameRecord, chat_id: int, message_id: int) -> bool:
    """Whether the message is one of the record's boards (its chat's, or a view)."""
    return (chat_id, message_id) in store.games.boards_of(record)


async def game_by_id(store: Store, chat_id: int, thread_id: int | None,
                     game_id: str) -> GameRecord | None:
    """The chat's game ``game_id``: its record, or the one kept after its end."""
    record = await store.games.load_game(chat_id, game_id)
    if record is not None:
        return record
    return await store.analysis.load(chat_id, game_id)


async def game_of_message(store: Store, chat: Chat, thread_id: int | None,
                          message_id: int) -> GameRecord | None:
    """The game a board message in ``chat`` shows (or showed when it ended)."""
    chat_id = chat.id
    if chat.type == Chat.PRIVATE:
        ref = await store.board.game_of(chat.id, message_id)
        if ref is not None:  # a view of a game that lives elsewhere
            chat_id, thread_id = ref.chat_id, ref.thread_id
    for game in await store.games.chat_games(chat_id, thread_id):
        if _shows(store, game, chat.id, message_id):
            return game
    for kept in await store.analysis.recent(chat_id, any_topic=True):
        if _shows(store, kept, chat.id, message_id):
            return kept
    return None


async def last_game(store: Store, chat: Chat, thread_id: int | None,
                    user_id: int) -> GameRecord | None:
    """The last finished game of the chat (or topic): the user's, if they
    played one of its games kept, else anyone's; in a private chat, the user's
    last finished game anywhere, or the one played in this chat."""
    kept = [game for game in await store.games.chat_games(chat.id, thread_id) if analysable(game)]
    mine = [game for game in kept if seat_of(game, user_id) is not None]
    candidates = (mine or kept)[:1]
    if chat.type == Chat.PRIVATE:
        last = await store.analysis.last_of_user(user_id)
        candidates += [last] if last is not None else []
    elif not candidates:
        last = await store.analysis.last(chat.id, thread_id)
        candidates += [last] if last is not None else []
    return max(candidates, key=lambda record: record.updated_at, default=None)


# ---------------------------------------------------------------- the handlers


async def analyze(update: Update, context: Context) -> None:
    """``/analyze``: the chat's last finished game, or (a reply to a board)
    the game that board shows."""
    tr = await translator_for(update, context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None and message is not None
    store = get_store(context)
    thread_id = thread_of(message)
    replied = message.reply_to_message
    if replied is not None and replied.message_id == message.message_thread_id:
        replied = None  # a forum topic's messages all reply to the topic's first one
    if replied is not None and replied.from_user is not None \
            and replied.from_user.id == context.bot.id:
        record = await game_of_message(store, chat, thread_id, replied.message_id)
        if record is None:
            await reply(update, tr.gettext(NOT_A_BOARD))
            return
    else:
        record = await last_game(store, chat, thread_id, user.id)
        if record is None:
            await reply(update, tr.gettext(NO_GAME))
            return
    if record.is_private and seat_of(record, user.id) is None:
        await reply(update, tr.gettext(NO_GAME))
        return
    if not analysable(record):
        await reply(update, tr.gettext(NOT_OVER if record.status.is_open else NO_GAME))
        return
    place = Place(chat.id, thread_id, message.message_id, chat.type != Chat.PRIVATE)
    await deliver(context, tr, record, place, Asker(update))


async def on_analysis_button(update: Update, context: Context) -> None:
    """📊 Analysis on a result board (a group's, or a player's in private)."""
    query, user = update.callback_query, update.effective_user
    assert query is not None and user is not None
    tr = await translator_for(update, context)
    try:
        data: AnalyseGame | None = AnalyseGame.parse(query.data)
    except CallbackDataError:
        data = None
    message = query.message
    if data is not None and query.inline_message_id is not None:
        await _on_inline_board(update, context, tr, query.inline_message_id, data)
        return
    if data is None or message is None or not isinstance(message, Message):
        await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)
        return
    store = get_store(context)
    where = await tapped_chat(store, query)
    assert where is not None  # the message is shown: a chat of its own
    record = await game_by_id(store, *where, data.game_id)
    if record is None or not analysable(record) \
            or (record.is_private and seat_of(record, user.id) is None):
        await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)
        return
    place = Place(message.chat.id, thread_of(message), message.message_id,
                  message.chat.type != Chat.PRIVATE)
    await deliver(context, tr, record, place, Asker(update, query))


async def _on_inline_board(update: Update, context: Context, tr: Translator, inline_id: str,
                           data: AnalyseGame) -> None:
    """📊 on an inline game's board: for its players, in their private chat
    with the bot; one who has not started the bot is sent there by a link
    (``/start``, :func:`start_analysis`)."""
    query, user = update.callback_query, update.effective_user
    assert query is not None and user is not None
    store = get_store(context)
    chat_id = inline_chat_id(inline_id)
    record = await game_by_id(store, chat_id, None, data.game_id)
    if record is None or record.inline_message_id != inline_id or not analysable(record) \
            or seat_of(record, user.id) is None:
        await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)
        return
    if not await store.prefs.has_started(user.id):
        await query.answer(url=f"https://t.me/{context.bot.username}?start="
                               f"{start_payload(record)}")
        return
    place = Place(user.id, None, None, group=False)
    await deliver(context, tr, record, place, Asker(update, query, elsewhere=True))


def start_payload(record: GameRecord) -> str:
    """The ``/start`` payload asking for ``record``'s analysis (at most 64
    characters of ``A-Za-z0-9_-``, as a deep link allows).

    >>> from bot.vocab.records import GameRecord, Variant
    >>> start_payload(GameRecord(chat_id=-4503599627370497, variant=Variant.LONG,
    ...                          game_id="k3Xa9_zQ"))
    'an4503599627370497gk3Xa9_zQ'
    """
    return f"{START_PREFIX}{-record.chat_id}g{record.game_id}"


async def start_analysis(update: Update, context: Context, payload: str) -> bool:
    """``/start an…`` in a private chat: the analysis of that game, for its
    players; False if ``payload`` asks for no analysis."""
    found = _START.fullmatch(payload)
    if found is None:
        return False
    tr = await translator_for(update, context)
    user, message = update.effective_user, update.effective_message
    assert user is not None and message is not None
    chat_id = -int(found[1])
    record = await game_by_id(get_store(context), chat_id, None, found[2])
    if record is None or not analysable(record) or seat_of(record, user.id) is None:
        await reply(update, tr.gettext(NO_GAME))
        return True
    await deliver(context, tr, record, Place(message.chat.id, None, message.message_id, False),
                  Asker(update))
    return True


# ---------------------------------------------------------------- posting


async def deliver(context: Context, tr: Translator, record: GameRecord, place: Place,
                  asker: Asker) -> None:
    """Post the analysis of ``record`` at ``place``: again what was posted
    before, or pointed at when it was posted there a moment ago; else
    analysed (one at a time per game) and posted."""
    store = get_store(context)
    settings = await store.games.chat_settings(place.chat_id)
    shown = await board_translator(context, settings, tr) if place.group else tr
    tr = shown  # one exchange, one language: what is said about it too is in the analysis's
    user = asker.update.effective_user
    user_id = user.id if user is not None else 0
    at = await store.analysis.posted_at(record.chat_id, record.game_id, place.chat_id)
    if at is not None and 0 <= time.time() - at < REPOST_AFTER:
        await asker.tell(tr.gettext(PRIVATE_ABOVE if asker.elsewhere else ABOVE))
        return
    style = settings.board_style
    form = f"{shown.lang}:{style}"
    before = await store.analysis.posted(record.chat_id, record.game_id, form)
    if before is not None:  # posted before in this language and style: again, as it was
        await asker.done(tr.gettext(SENT_PRIVATELY) if asker.elsewhere else None)
        await _send(context, place, json.loads(before))
        await store.analysis.note_posted(record.chat_id, record.game_id, form, before,
                                         place.chat_id)
        return
    too_many = refusal(record, place.chat_id, user_id)
    if too_many is not None:
        await asker.tell(tr.gettext(too_many))
        return
    if not await store.analysis.claim(record.chat_id, record.game_id):
        await asker.tell(tr.gettext(BUSY))
        return
    said = None
    try:
        said = await asker.working(tr.gettext(SENT_PRIVATELY if asker.elsewhere else ANALYSING))
        try:
            analysis = await analysed(record, place.chat_id, user_id)
        except TooManyAnalyses as refused:  # another started since the check above:
            # said where the analysis would have come (the tap is answered already)
            await _send(context, place, {"text": tr.gettext(refused.message)})
            return
        except Exception:
            log.exception("cannot analyse game %s", record.game_id)
            await _send(context, place, {"text": tr.gettext(FAILED)})
            return
        form, posted = await _post(context, shown, record, analysis, place, style)
        await store.analysis.note_posted(record.chat_id, record.game_id, form, posted,
                                         place.chat_id)
        await store.analysis.keep(record)  # a game that ended before games were kept
    finally:
        await store.analysis.release(record.chat_id, record.game_id)
        if said is not None:
            with contextlib.suppress(BadRequest, Forbidden):
                await said.delete()


async def _post(context: Context, tr: Translator, record: GameRecord, analysis: Analysis,
                place: Place, style: str) -> tuple[str, str]:
    """Post the picture (or the text) and return the form posted and what
    :func:`_send` needs to post it again."""
    if style == PICTURE:
        try:
            png = await _PICTURES.get((str(record.ref), tr.lang), lambda: PAINTER.paint(
                render_analysis, analysis_picture(tr, record, analysis)))
        except Exception:  # the analysis is always shown: this once as text
            log.exception("cannot paint the analysis of game %s; posting it as text",
                          record.game_id)
        else:
            text = caption(tr, record, analysis)
            message = await _send(context, place, {"photo": png, "caption": text})
            file_id = message.photo[-1].file_id if message.photo else None
            return f"{tr.lang}:{PICTURE}", json.dumps({"photo": file_id, "caption": text})
    text = analysis_text(tr, record, analysis)
    await _send(context, place, {"text": text})
    return f"{tr.lang}:{TEXT}", json.dumps({"text": text})


async def _send(context: Context, place: Place, what: dict[str, object]) -> Message:
    """Send a picture (bytes or a file id) with its caption, or a text."""
    where: dict[str, object] = {"message_thread_id": place.thread_id}
    if place.reply_to is not None:
        where |= {"reply_to_message_id": place.reply_to, "allow_sending_without_reply": True}
    if what.get("photo"):
        return await context.bot.send_photo(place.chat_id, what["photo"],  # type: ignore[arg-type]
                                            caption=str(what["caption"]), **where)  # type: ignore[arg-type]
    return await context.bot.send_message(place.chat_id, str(what["text"]), **where)  # type: ignore[arg-type]

