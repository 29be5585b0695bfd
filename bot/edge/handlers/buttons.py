"""Inline button taps: one handler for every lobby and game button.

Each tap is answered exactly once: with an alert when nothing changes (not
your turn, an old keyboard, a forged payload), silently otherwise, and the
answer goes out before the board is redrawn so the tapper's spinner stops
at once.

A tap on an older drawing of a board's own message (its redraw is still on
its way, paced by the group's budget) acts on the current record when its
button means the same and is still legal, else is told the board is catching
up (:func:`bot.rules.taps.caught_up`); only a tap on another, older message
is "out of date".

A tap whose step was saved but whose update then failed (the redraw got a
502) is delivered again; its retry finds the step in the update's journal
(:mod:`bot.edge.effects`) and finishes the work: the boards that do not show the
step yet and the turn ping, without a second answer.  And a tap refused on a
board that is behind its game (such a redraw failed for good) redraws it.
"""

from __future__ import annotations

import contextlib
import json
import logging

from telegram import CallbackQuery, Chat, Message, Update

from bot.edge import effects
from bot.edge.handlers import computer as computer_turns
from bot.edge.handlers import hints as hint_answers
from bot.edge.handlers.board import (
    board_translator,
    edit,
    notify,
    redraw_stale,
    show,
)
from bot.edge.handlers.common import (
    UNKNOWN_BUTTON,
    Context,
    alert_text,
    chat_settings,
    display_name,
    game_and_settings,
    get_dealer,
    get_store,
    keys_translator,
    parse_tap,
    translator_for,
)
from bot.rules import computer, hints
from bot.rules.dice import entropy_tap
from bot.rules.play import confirms_turns
from bot.rules.seats import waiting_user
from bot.rules.taps import caught_up, off_the_lobby, settling, tap, tapped_view
from bot.service.ending import after_end
from bot.service.saving import load_current, save_first
from bot.store import VersionConflict
from bot.store.inline import inline_chat_id
from bot.store.layout import BotLimit, GameLimit
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback, CallbackDataError, Kind
from bot.vocab.i18n import Translator
from bot.vocab.records import (
    BoardViewRef,
    GameRecord,
    Status,
    decode,
    encode,
    retrying,
)
from bot.vocab.refusals import (
    CATCHING_UP,
    GAME_LIMIT,
    LOBBY_WAITS,
    NOT_PLAYING,
    STALE,
    Refusal,
)

log = logging.getLogger(__name__)

TAPPED = "tap"
"""Journal entry of a tap whose step was saved: the record before it, the version saved."""


async def on_other(update: Update, context: Context) -> None:
    """A button whose data is of no kind this bot makes (forged, or from an
    older bot): only answered, so the tapper's spinner stops."""
    query = update.callback_query
    assert query is not None
    tr = await translator_for(update, context)
    await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)


async def on_button(update: Update, context: Context) -> None:
    """A game or lobby button (data of kind ``g`` or ``l``)."""
    query = update.callback_query
    assert query is not None
    message = query.message
    # a group's board: the game and the chat's settings (its language) in one read
    loaded, own = await _game_and_settings(context, query)
    tr = await translator_for(update, context)
    data = await parse_tap(query, tr)
    if data is None:
        return
    ref = None
    if query.inline_message_id is not None:  # an inline game's message: no chat
        chat_id = inline_chat_id(query.inline_message_id)
    elif message is None or not message.is_accessible:
        await query.answer(tr.gettext(STALE), show_alert=True)
        return
    else:
        chat_id = message.chat.id
        # a board in a private chat may be a view of a game that lives elsewhere
        ref = (await get_store(context).board.game_of(chat_id, message.message_id)
               if message.chat.type == Chat.PRIVATE else None)
        if ref is not None and ref.chat_id == chat_id:
            ref = None  # the chat's own board (a game against the computer here)
        if ref is not None:
            chat_id = ref.chat_id
    tapped = effects.recall(TAPPED)
    if tapped is not None:  # a retry of this tap, whose step was saved: finish the work
        await _finish(context, tr, query, tapped)
        return
    if loaded is not None and (loaded.chat_id, loaded.game_id) != (chat_id, data.id):
        loaded = None
    elif loaded is not None and own:
        # this very update wrote the game last: an earlier delivery applied it (one whose
        # marker was lost with a master that failed over before it replicated it, so
        # this one came as a first attempt); a tap on its older drawing would be
        # re-aimed and applied a second time
        await _finish_applied(context, tr, query, loaded)
        return
    try:
        if data.action is ButtonAction.HINT:  # an alert for the mover; nothing changes
            record, _view = await _tapped(query, context, data, chat_id,
                                          in_view=ref is not None, loaded=loaded)
            caught_up(record, data)
            question = hints.ask(record, query.from_user.id)
            await query.answer(await hint_answers.answer_text(tr, question), show_alert=True)
            return
        record, new, view = await _decide(query, context, tr, data, chat_id,
                                          in_view=ref is not None, loaded=loaded)
    except _AppliedBefore as applied:
        await _finish_applied(context, tr, query, applied.record)
        return
    except Refusal as refusal:
        if await _applied_before(context, tr, query, chat_id, data.id):
            return
        # in the tapper's language, naming the buttons as the tapped message reads
        await query.answer(alert_text(tr, refusal, await keys_translator(context, tr, chat_id)),
                           show_alert=True)
        # the game as read a moment ago (its changes since redraw their own boards)
        await _log_refused(context, chat_id, data, query.id, loaded)
        await _repair(context, tr, chat_id, data.id, loaded, drawn=_drawn(query, data))
        return
    if new is record:
        await query.answer()
        ui: dict[str, object] = {"ui": data.action}
        if data.action in (ButtonAction.SOURCE, ButtonAction.RESIGN):  # the point, the level
            ui["source"] = data.args[0]
        await edit(context, tr, record, view=view,
                   **(ui if data.action is not ButtonAction.BACK else {"ui": None}))
        return
    try:
        saved, upkeep = await save_first(get_store(context), record, new)
    except VersionConflict:
        await query.answer(tr.gettext(STALE), show_alert=True)
        await _log_refused(context, chat_id, data, query.id)
        return
    except GameLimit as full:  # a new lobby from a finished board: the chat is full
        await query.answer(alert_text(tr, Refusal(GAME_LIMIT, count=full.live)), show_alert=True)
        return
    except BotLimit as full:  # 🤖 Play the bot beside another game of the person's at once
        await query.answer(alert_text(tr, Refusal(computer.PLAYING_THE_BOT, count=full.count)),
                           show_alert=True)
        return
    except Refusal as refusal:  # an end its tournament's forfeit decided first (end_game)
        await query.answer(alert_text(tr, refusal), show_alert=True)
        await _log_refused(context, chat_id, data, query.id)
        return
    effects.note(TAPPED, lambda: json.dumps({"old": encode(record), "version": record.version,
                                             "saved": saved.version, "game": saved.game_id}))
    try:
        await query.answer()
    finally:
        # the user and deadline indexes after the answer: the tap has landed
        # with the CAS; an upkeep error still fails the update (bot/edge/ops.py)
        await upkeep()
    # the computer answers before the boards are drawn: its whole turn and the
    # tap that led to it are one board update
    saved = await computer_turns.play(context, saved)
    await show(context, tr, record, saved, query.from_user.id)


async def _decide(query: CallbackQuery, context: Context, tr: Translator, data: Callback,
                  chat_id: int, *, in_view: bool = False, loaded: GameRecord | None = None
                  ) -> tuple[GameRecord, GameRecord, BoardViewRef | None]:
    """The record the tap acts on (the game the button names, in ``chat_id``;
    ``loaded``: as just read), the record it makes (the same one for
    keyboard-only taps) and the view tapped (``in_view``: the message is a
    board in a private chat); :class:`Refusal` when nothing may change."""
    record, view = await _tapped(query, context, data, chat_id, in_view=in_view, loaded=loaded)
    if record is not loaded and record.version != data.version \
            and await get_store(context).games.written_here(record):
        # read without its write token (not a group's board: on_button): this
        # very update wrote it, an earlier delivery whose marker was lost
        raise _AppliedBefore(record)
    aimed = caught_up(record, data)
    user = query.from_user
    if data.action is ButtonAction.NEW and any(  # a new lobby from a finished board: not a second
            g.status is Status.LOBBY and g.created_by == user.id
            for g in await get_store(context).games.chat_games(record.chat_id, record.thread_id,
                                                               ended=False)):
        raise Refusal(LOBBY_WAITS)
    if data.kind is Kind.LOBBY and data.action is ButtonAction.COMPUTER:  # as /new bot
        computer.playing_the_bot(
            await get_store(context).games.chat_games(record.chat_id, record.thread_id,
                                                      ended=False),
            user.id, computer_turns.per_person(context), record.game_id)
    # the entropy taps refused before this one go into the dice's log if it starts the game
    refused = (await get_store(context).games.refused_taps(record.chat_id, record.game_id)
               if entropy_tap(record, data.action) else ())
    settings = await chat_settings(context, record.chat_id)
    setting = settings.confirm_turns
    seat = None
    if data.kind is Kind.LOBBY and data.action is ButtonAction.COMPUTER:
        # the computer is named in the board's language, not the tapper's
        seat = await computer_turns.seat(context, await board_translator(context, settings, tr),
                                         computer.DEFAULT_CHOICE, user.id, record.variant)
    try:
        new = tap(record, user.id, display_name(user), aimed,
                  get_dealer(context).tapped(query.id, refused), own_board=view is not None,
                  seat=seat, confirm=confirms_turns(record, setting))
    except Refusal as refusal:
        # an older drawing whose step is no longer legal: the board lags, not the player
        if record.version != data.version and refusal.message != NOT_PLAYING:
            raise Refusal(CATCHING_UP) from None
        raise
    return record, new, view


class _AppliedBefore(Exception):
    """The game a tap acts on was written last by the tap's own update (an
    earlier delivery): the tap is answered as applied, never applied again."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record.game_id)
        self.record = record


async def _log_refused(context: Context, chat_id: int, data: Callback, query_id: str,
                       record: GameRecord | None = None) -> None:
    """A refused (or lost) tap that would have been the dice's entropy is
    logged, so that refusing taps until one gives dice the bot likes shows in
    /verify and the export (docs/fair-dice.md); ``record``: the game as just read."""
    store = get_store(context)
    record = record or await store.games.load_game(chat_id, data.id)
    label = None if record is None else entropy_tap(record, data.action)
    if record is not None and label is not None:
        await store.games.note_refused_tap(record.chat_id, record.game_id,
                                           f"{label}={query_id[:200]}")


async def _game_and_settings(context: Context, query: CallbackQuery
                             ) -> tuple[GameRecord | None, bool]:
    """For a tap on a board in a group: the game its button names, read with the
    chat's settings in one round trip, and whether this update wrote it last
    (None elsewhere: a private chat's board may be a view of a game in another
    chat, an inline message has no chat)."""
    message = query.message
    if query.inline_message_id is not None or not isinstance(message, Message) \
            or message.chat.type == Chat.PRIVATE or not query.data:
        return None, False
    try:
        named = Callback.parse(query.data)
    except CallbackDataError:
        return None, False  # parse_tap tells the tapper
    return await game_and_settings(context, message.chat.id, named.id)


async def _tapped(query: CallbackQuery, context: Context, data: Callback, chat_id: int, *,
                  in_view: bool, loaded: GameRecord | None = None
                  ) -> tuple[GameRecord, BoardViewRef | None]:
    """The record a tap acts on (the game its button names, in ``chat_id``;
    ``loaded``: as just read), at the version its button was drawn for or, on
    an older drawing of one of its current boards, the current one
    (:func:`caught_up` says what such a tap may do), and the view tapped
    (``in_view``); :class:`Refusal` for an old message."""
    record = await load_current(get_store(context), chat_id, data, loaded)
    message = query.message  # None on an inline game's message: the tap names its id
    where = (0, 0) if message is None else (message.chat.id, message.message_id)
    if message is not None and not in_view:
        off_the_lobby(record, data, message.message_id)
    return record, tapped_view(record, *where, in_view=in_view,
                               inline_message_id=query.inline_message_id)


async def _finish(context: Context, tr: Translator, query: CallbackQuery, tapped: str) -> None:
    """What a tap does after its save, for its retry (see the module doc)."""
    note = json.loads(tapped)
    old = decode(GameRecord, "the update's journal", note["old"], note["version"])
    await query.answer()  # unless the first attempt did (bot/edge/effects.py)
    store = get_store(context)
    current = await store.games.load_game(old.chat_id, note.get("game", old.game_id))
    if current is None:
        return
    if current.version != note["saved"]:  # moved on since: that change's handler shows it
        # (the computer's answer in this very update may have ended it, and the first
        # attempt died before what follows an end: that is idempotent, run it)
        await after_end(store, current)
        await redraw_stale(context, tr, current)
        return
    await store.games.reindex(current)
    await after_end(store, current)  # the first attempt may have died before it
    await show(context, tr, old, current, query.from_user.id, repair=True)


async def _applied_before(context: Context, tr: Translator, query: CallbackQuery,
                          chat_id: int, game_id: str) -> bool:
    """A retry of this tap whose first attempt saved its step and died before
    noting it (bot/edge/effects.py: the note goes out with the answer): the
    record's write token is this update's, so the tap is answered as applied
    and its boards finished, never "out of date" for a step that was taken."""
    if not retrying():  # a first attempt wrote nothing before its refusal
        return False
    store = get_store(context)
    record = await store.games.load_game(chat_id, game_id)
    if record is None or not await store.games.written_here(record):
        return False
    await _finish_applied(context, tr, query, record)
    return True


async def _finish_applied(context: Context, tr: Translator, query: CallbackQuery,
                          record: GameRecord) -> None:
    """The tap's step is ``record``, written by an earlier attempt or delivery of
    this update: answered as applied (a second answer the Bot API refuses), its
    indexes, kept copy, boards and ping finished."""
    store = get_store(context)
    await query.answer()
    await store.games.reindex(record)
    await after_end(store, record)  # the first attempt may have died before it
    await redraw_stale(context, tr, record)
    if waiting_user(record) not in (None, query.from_user.id):
        await notify(context, record)


async def _repair(context: Context, tr: Translator, chat_id: int, game_id: str,
                  record: GameRecord | None = None, *,
                  drawn: tuple[tuple[int, int] | None, int] | None = None) -> None:
    """After a refused tap: redraw the boards of the tapped game that are behind it
    (a redraw failed), so that taps on them are not refused for ever; ``record``:
    the game as just read.  ``drawn``: the tapped message and the version its
    keyboard, as Telegram has it, is drawn for (:func:`_drawn`).  The message
    tells what the board shows, whatever its mark says (issue 37): one drawn
    for a version the record never reached (that save was lost with a Redis
    master that failed over before replicating it) is ahead of its record, and
    every tap on it was refused for ever, as was one left behind while its mark
    (a lost write) said otherwise: its mark is dropped and it is redrawn from
    the record (a forged or older button on a current board changes nothing)."""
    store = get_store(context)
    record = record or await store.games.load_game(chat_id, game_id)
    if record is not None and computer.waiting_for_computer(record):
        record = await computer_turns.resume(context, tr, record)  # it was stuck: go on
    if record is None:
        return
    board, version = drawn or (None, record.version)
    # a board posted anew is drawn for the version the save naming it is about
    # to make (board.repost): a message the record does not name yet, one
    # version ahead of a record that just changed, is that post on its way (a
    # second post beside it would be its twin); a board the record names ahead
    # of it is a lost save's (above), redrawn at once
    posting = board is not None and board not in store.games.boards_of(record) \
        and version == record.version + 1
    if (version <= record.version or posting) and settling(record, clock.now()):
        return
    if board is not None and version != record.version:
        await store.games.forget_shown(record, board)
    await redraw_stale(context, tr, record)


def _drawn(query: CallbackQuery, data: Callback) -> tuple[tuple[int, int], int] | None:
    """The tapped board message (as :meth:`bot.store.games.Games.boards_of` names
    it) and the version its keyboard is drawn for, read from the message as
    Telegram sent it with the tap (not from the tapped data, which a forged
    tap makes up); None when it has no such buttons (an inline message: the
    query does not carry it)."""
    message = query.message
    if not isinstance(message, Message) or message.reply_markup is None:
        return None
    versions = set()
    for row in message.reply_markup.inline_keyboard:
        for button in row:
            if isinstance(button.callback_data, str):
                with contextlib.suppress(CallbackDataError):
                    drawn = Callback.parse(button.callback_data)
                    if drawn.id == data.id and drawn.kind in (Kind.GAME, Kind.LOBBY):
                        versions.add(drawn.version)
    if len(versions) != 1:
        return None
    return (message.chat.id, message.message_id), versions.pop()


