"""Inline games: ``@bot …`` in any chat, a lobby "via @bot", play on that message.

- :func:`on_inline_query` answers an inline query with a lobby per game it
  asks for, or a result saying why there is none (:mod:`bot.present.inline`).
- The chosen result's message carries **Join** (an ``ij:`` button, the game
  in its data).  :func:`on_join` stores the lobby under the message's
  ``inline_message_id`` (:mod:`bot.store.inline`) at the first tap and
  seats the tapper; once the second tapper is seated the game waits for a
  player's ▶ Start, whose Telegram id is the dice's entropy (docs/fair-dice.md:
  the commitment reaches the second player, in their private chat or by
  🎲 Verify, before a tap of theirs is mixed in).  With inline feedback
  on, :func:`on_chosen` stores the lobby at once (its dice committed and shown
  before anyone joins, whoever chose it may close it).
- From then on the message's buttons are the usual ``l:``/``g:`` ones, handled
  by :mod:`bot.edge.handlers.buttons` with the same rules, refusals and
  compare-and-set as a group's board; every redraw is an edit of that one
  message by its ``inline_message_id`` (:func:`bot.edge.handlers.board.edit_board`).
- Boards are text unless ``MEDIA_CHAT_ID`` names a chat the bot may post in:
  Telegram does not let a bot upload a file when it edits an inline message,
  so each picture is sent there first and the message is edited with the
  picture's ``file_id``.  A game decides this when its lobby is made
  (``board_photo``); when no picture can be sent, the message keeps its last
  picture with the new caption (or, still the lobby's text, shows the text
  board).
- An inline game has no chat: reminders and the timeout offer go to the
  players' private chats (:mod:`bot.edge.handlers.clock`, as for a private
  game), and once the time is up the board itself carries **Claim win** /
  **Give more time**.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import CallbackQuery, Update

from bot.edge.handlers.board import (
    edit,
    keep_inline,
    media_chat,
    redraw_stale,
)
from bot.edge.handlers.common import (
    UNKNOWN_BUTTON,
    Context,
    alert_text,
    display_name,
    get_dealer,
    get_store,
    translator_for,
    update_settings,
)
from bot.present.inline import InlineJoin, inline_results
from bot.rules.chatsettings import with_board_language
from bot.rules.inline import inline_lobby, join_inline
from bot.rules.taps import settling
from bot.service.saving import save_first
from bot.store import VersionConflict
from bot.store.commit import commit
from bot.store.inline import inline_chat_id, lobby_id
from bot.store.layout import ENDED_TTL
from bot.vocab import clock
from bot.vocab.callbacks import CallbackDataError
from bot.vocab.i18n import Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import STALE, Refusal

log = logging.getLogger(__name__)

CACHE_SECONDS = 60
"""How long Telegram may show the same answer to the same query of a user."""


async def on_inline_query(update: Update, context: Context) -> None:
    query = update.inline_query
    assert query is not None
    tr = await translator_for(update, context)
    await query.answer(inline_results(tr, query.query.split()), cache_time=CACHE_SECONDS,
                       is_personal=True)


async def on_chosen(update: Update, context: Context) -> None:
    """Inline feedback: a lobby result was posted; store its lobby now."""
    chosen = update.chosen_inline_result
    assert chosen is not None
    if chosen.inline_message_id is None:
        return  # an explanation: nothing to play on
    try:
        join = InlineJoin.parse(chosen.result_id)
    except CallbackDataError:
        return
    inline_id = chosen.inline_message_id
    lobby = inline_lobby(inline_id, inline_chat_id(inline_id), join.variant, join.options,
                         chosen.from_user.id, get_dealer(context),
                         pictures=media_chat(context) is not None, game_id=lobby_id(inline_id))
    try:
        saved = await get_store(context).games.save(lobby, 0)
    except VersionConflict:
        return  # someone tapped Join first: that lobby stands
    await _board_language(context, saved, join.language)
    await edit(context, await translator_for(update, context), saved)


async def on_join(update: Update, context: Context) -> None:
    """Join on an inline lobby (``ij:`` data): the first tap makes the lobby."""
    query = update.callback_query
    assert query is not None
    tr = await translator_for(update, context)
    inline_id = query.inline_message_id
    try:
        join = InlineJoin.parse(query.data)
    except CallbackDataError:
        join = None
    if join is None or inline_id is None:
        await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)
        return
    try:
        saved, upkeep = await _join(context, query, inline_id, join)
    except (Refusal, VersionConflict) as refused:
        await _refused(context, tr, query, inline_id,
                       refused if isinstance(refused, Refusal) else Refusal(STALE))
        return
    await _board_language(context, saved, join.language)
    try:
        await query.answer()
    finally:
        await upkeep()  # the indexes after the answer, as for a lobby's Join
    # the whole commitment kept in the joiner's private chat, if the bot may write,
    # before the message shows it changed (and, for the second player, ▶ Start)
    await keep_inline(context, tr, None, saved, query.from_user.id)
    await edit(context, tr, saved)


async def _join(context: Context, query: CallbackQuery, inline_id: str, join: InlineJoin
                ) -> tuple[GameRecord, Callable[[], Awaitable[None]]]:
    """The tapper joins the message's lobby (made now if it is not stored
    yet): the lobby or game saved, and the index upkeep left for after the answer."""
    store, user = get_store(context), query.from_user
    dealer = get_dealer(context).tapped(query.id)
    upkeep = []

    async def load() -> GameRecord:
        found = await store.inline.game(inline_id)
        return found if found is not None else inline_lobby(
            inline_id, inline_chat_id(inline_id), join.variant, join.options, user.id, dealer,
            pictures=media_chat(context) is not None, game_id=lobby_id(inline_id))

    async def write(old: GameRecord, new: GameRecord) -> GameRecord:
        saved, after_answer = await save_first(store, old, new)
        upkeep.append(after_answer)
        return saved

    _, saved = await commit(
        load, lambda record: join_inline(record, user.id, display_name(user), dealer),
        write, retries=2)
    return saved, upkeep[-1]


async def _refused(context: Context, tr: Translator, query: CallbackQuery, inline_id: str,
                   refusal: Refusal) -> None:
    """A refused Join: the alert, and the message redrawn if it is behind its game."""
    await query.answer(alert_text(tr, refusal), show_alert=True)
    current = await get_store(context).inline.game(inline_id)
    if current is not None and not settling(current, clock.now()):
        await redraw_stale(context, tr, current)


async def _board_language(context: Context, saved: GameRecord, language: str) -> None:
    """The boards of an inline game speak the language its result was shown in
    (noted once, as a group's first board notes its language; nobody can fix
    an inline game's language with /lang).  Noted once the lobby or game is
    saved; while the message holds only a lobby, which anyone can make with a
    made-up message id, the note expires with it (issue 21)."""
    chat_id = saved.chat_id
    await update_settings(context, chat_id,
                          lambda current: with_board_language(current, chat_id, language))
    await get_store(context).keep_chat(
        chat_id, ENDED_TTL if saved.status is Status.LOBBY else None)


# ---------------------------------------------------------------- the inline message


