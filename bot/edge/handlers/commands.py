"""Commands: /new, /board, /cancel, /export, /rules, /lang, and the button of a
command's list of games (:func:`on_pick`).

/board, /cancel and /export act on one of the chat's games: which one,
:mod:`bot.edge.handlers.which` finds (a reply to its board, the caller's
game, or a list to pick from)."""

from __future__ import annotations

import contextlib
import io
import logging
from html import escape

from telegram import Message, Update
from telegram.error import BadRequest

from bot.edge.handlers import computer as computer_turns
from bot.edge.handlers import which
from bot.edge.handlers.board import announce, board_translator, edit, repost, show_view
from bot.edge.handlers.common import (
    UNKNOWN_BUTTON,
    Context,
    args_of,
    chat_settings,
    commit_or_reply,
    display_name,
    get_dealer,
    get_store,
    is_chat_admin,
    own_button,
    refusal_text,
    reply,
    thread_of,
    translator_for,
    update_settings,
)
from bot.edge.handlers.computer import TooManyAnalyses, analysed, analysed_earlier, refusal
from bot.present.help import rules_text
from bot.present.keyboards import language_keyboard
from bot.present.picker import GONE, NOT_YOURS, game_label
from bot.rules import computer
from bot.rules.autoplay import with_chat_autoplay
from bot.rules.cancelling import cancel_command
from bot.rules.chatsettings import with_language
from bot.rules.ledger import with_chat_stake
from bot.rules.lobby import new_lobby
from bot.rules.matchstate import match_in_progress
from bot.rules.options import OptionError, check_asked, parse_new_args, with_chat_clock
from bot.store.layout import BotLimit, GameLimit
from bot.vocab.callbacks import CallbackDataError, LanguageChoice, PickGame
from bot.vocab.i18n import LANGUAGE_NAMES, LANGUAGES, N_, Translator, translator
from bot.vocab.records import GameRecord, Player, Status, VersionConflict, new_game_id
from bot.vocab.refusals import GAME_LIMIT, Refusal

log = logging.getLogger(__name__)

LOBBY_OPEN = N_("You have a lobby open here already:")
OVER = N_("This game is over.")


async def new(update: Update, context: Context) -> None:
    """``/new``: a lobby (or a game against the computer) beside the chat's
    other games; the caller's own lobby again if one still waits here, and
    no more than the chat's limit of games at once (bot/store/layout.py)."""
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    try:
        variant, options = parse_new_args(args_of(context))
    except OptionError as error:  # a reply to the command: whose, and which option
        await reply(update, refusal_text(tr, error), quote=True)
        return
    store = get_store(context)
    thread = thread_of(update.effective_message)
    game_id = new_game_id()  # follows from the update: a retry of it makes this lobby again
    if options.computer is None:  # one open lobby per person here (but this /new's own)
        waiting = [g for g in await store.games.chat_games(chat.id, thread, ended=False)
                   if g.status is Status.LOBBY and g.created_by == user.id
                   and g.game_id != game_id]
        if waiting:
            await reply(update, tr.gettext(LOBBY_OPEN))
            await repost(context, tr, waiting[0])
            return
    else:  # and a bounded number of games against the computer
        try:
            computer.playing_the_bot(await store.games.chat_games(chat.id, thread, ended=False),
                                     user.id, computer_turns.per_person(context), game_id)
        except Refusal as refusal:
            await reply(update, refusal_text(tr, refusal))
            return
    settings = await chat_settings(context, chat.id)
    try:  # an option of the other variant than the chat's default one: not silently ignored
        check_asked(args_of(context), variant or settings.variant)
    except OptionError as error:
        await reply(update, refusal_text(tr, error), quote=True)
        return
    options = with_chat_stake(args_of(context), options, settings.options.stake_per_point)
    options = with_chat_clock(args_of(context), options, settings.options.time_control)
    options = with_chat_autoplay(args_of(context), options, settings.autoplay)
    try:
        lobby = new_lobby(chat.id, thread, variant or settings.variant, options, user.id,
                          get_dealer(context)).model_copy(update={"game_id": game_id})
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    if await store.games.live_count(chat.id, thread) >= store.max_live > 0:  # (before it thinks)
        await reply(update, tr.gettext(GAME_LIMIT, count=store.max_live))
        return
    if options.computer is not None:  # the computer sits down at once: no lobby
        person = Player(user_id=user.id, name=display_name(user))
        # seated, not started: the person's ▶ Start on the posted commitment is the entropy
        named = await board_translator(context, await chat_settings(context, chat.id), tr)
        seat = await computer_turns.seat(context, named, options.computer, user.id,
                                         lobby.variant)
        lobby = computer.seat_computer(lobby, seat, person)
    try:
        saved = await store.games.save(lobby, 0)
    except GameLimit as full:  # the chat filled up meanwhile
        await reply(update, tr.gettext(GAME_LIMIT, count=full.live))
        return
    except BotLimit as full:  # another /new … bot of the person's at the same moment
        await reply(update, refusal_text(tr, Refusal(computer.PLAYING_THE_BOT, count=full.count)))
        return
    except VersionConflict:  # a retry of this /new: its lobby's id follows from the update
        made = await store.games.load_game(chat.id, lobby.game_id)
        if made is None or made.version != 1:
            return  # posted by the first attempt (and maybe joined since): nothing to do
        saved = made  # saved, then the worker died before posting it
    await repost(context, tr, saved, strip_old=False)  # with the whole commitment on it
    await announce(context, tr, None, saved)  # and kept in a message never edited


def _shown(record: GameRecord, _user_id: int) -> bool:
    return record.status is not Status.CANCELLED or bool(record.engine)


async def _board(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    record = await computer_turns.resume(context, tr, record)  # if it waits for the computer
    if record.is_private:  # its boards are the players' views: post this player's here
        await show_view(update, context, tr, record)
        return
    await repost(context, tr, record)


BOARD = which.need("board", _shown, _board)


async def board(update: Update, context: Context) -> None:
    await which.run(update, context, BOARD)


def _cancellable(record: GameRecord, _user_id: int) -> bool:
    return record.status.is_open or match_in_progress(record)


async def _cancel(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    admin = chat.type != chat.PRIVATE and await is_chat_admin(context, chat, user.id)
    store = get_store(context)

    async def load() -> GameRecord | None:
        current = await store.games.load_game(record.chat_id, record.game_id)
        return current if current is not None and _cancellable(current, user.id) else None

    # a refusal names the game's buttons as its board reads them
    shown = tr if record.is_private or record.is_inline else await board_translator(
        context, await chat_settings(context, record.chat_id), tr)
    saved = await commit_or_reply(update, tr, store, load,
                                  lambda current, now: cancel_command(current, user.id, admin, now),
                                  missing=OVER, buttons=shown)
    if saved is None:
        return
    saved = await computer_turns.play(context, saved)  # the computer agrees at once
    if saved.status is Status.CANCELLED:
        await reply(update, tr.gettext("The game was cancelled."))
    else:
        await reply(update, tr.gettext("Cancel proposed; your opponent can agree on the board."))
    await edit(context, tr, saved)


CANCEL = which.need("cancel", _cancellable, _cancel)


async def cancel(update: Update, context: Context) -> None:
    await which.run(update, context, CANCEL)


async def _export(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    """``/export``: the game (or match) as a ``.mat`` file; each finished game
    in it with its analysis as comments, and a match's totals (computed off
    the loop, or the one 📊 made)."""
    from bot.present.export import export_text
    from bot.rules.analysis import analysable

    chat, user = update.effective_chat, update.effective_user
    where, who = (chat.id if chat else 0), (user.id if user else 0)
    too_many = refusal(record, where, who) if analysable(record) else None
    if too_many is not None:  # a flood of /export starts no flood of analyses
        await reply(update, tr.gettext(too_many))
        return
    analysis, earlier = None, []
    try:
        earlier = await analysed_earlier(record, where, who)
        analysis = await analysed(record, where, who) if analysable(record) else None
    except TooManyAnalyses as refused:
        await reply(update, tr.gettext(refused.message))
        return
    except Exception:  # the file is worth sending without it
        log.exception("cannot analyse game %s for /export", record.game_id)
        analysis, earlier = None, []
    name, body = export_text(record, analysis, earlier)
    message = update.effective_message
    assert message is not None
    await message.reply_document(io.BytesIO(body.encode()), filename=name, do_quote=False,
                                 caption=tr.gettext("The game record."))


EXPORT = which.need("export", lambda record, _user_id: bool(record.engine), _export)


async def export(update: Update, context: Context) -> None:
    await which.run(update, context, EXPORT)


async def rules(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    await reply(update, rules_text(tr))


async def lang(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    await reply(update, tr.gettext("Choose the language of this chat (auto: each "
                                   "user's Telegram language):"), reply_markup=language_keyboard())


async def on_lang_button(update: Update, context: Context) -> None:
    query = update.callback_query
    chat, user = update.effective_chat, update.effective_user
    assert query is not None and chat is not None and user is not None
    try:
        choice = LanguageChoice.parse(query.data).language
    except CallbackDataError:
        choice = ""
    tr = await translator_for(update, context)
    if choice not in (*LANGUAGES, "auto"):
        await query.answer(tr.gettext("This button does not work any more."), show_alert=True)
        return
    if not await own_button(query, tr):
        return
    if not await is_chat_admin(context, chat, user.id):
        await query.answer(tr.gettext("Only chat admins can change the language."),
                           show_alert=True)
        return
    language = None if choice == "auto" else choice

    before = await chat_settings(context, chat.id)
    await update_settings(context, chat.id,
                          lambda settings: with_language(settings, chat.id, language))
    tr = translator(language or user.language_code)
    await query.answer()
    text = tr.gettext("Language: {name}.", name=escape(LANGUAGE_NAMES.get(choice, "auto")))
    if query.message is not None and query.message.is_accessible:
        await context.bot.edit_message_text(text, chat_id=chat.id,
                                            message_id=query.message.message_id)
    if (before.language or before.board_language) != tr.lang:
        await _redraw_board(context, tr, chat.id, thread_of(query.message))  # type: ignore[arg-type]


async def _redraw_board(context: Context, tr: Translator, chat_id: int,
                        thread_id: int | None) -> None:
    """Redraw the boards of this chat's (or topic's) games in its new language."""
    for record in await get_store(context).games.chat_games(chat_id, thread_id, ended=False):
        if record.board_message_id is not None:
            await edit(context, tr, record)


async def on_pick(update: Update, context: Context) -> None:
    """A button of a command's list: the command, on the game picked, for its
    caller only; a game that no longer fits is refused (send it again)."""
    query, user = update.callback_query, update.effective_user
    assert query is not None and user is not None
    tr = await translator_for(update, context)
    try:
        data = PickGame.parse(query.data)
        wanted = which.NEEDS[data.command]
    except (CallbackDataError, KeyError):
        await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)
        return
    if not await own_button(query, tr):
        return
    if user.id != data.user_id:
        await query.answer(tr.gettext(NOT_YOURS), show_alert=True)
        return
    games = await which.candidates(update, context, user.id)
    record = next((g for g in games if g.game_id == data.game_id and wanted.fits(g, user.id)),
                  None)
    if record is None:
        await query.answer(tr.gettext(GONE), show_alert=True)
        return
    await query.answer()
    message = query.message
    if isinstance(message, Message):  # the list is used up: it says what was picked
        with contextlib.suppress(BadRequest):
            await message.edit_text(f"{message.text_html}\n→ {escape(game_label(tr, record))}",
                                    reply_markup=None)
    await wanted.act(update, context, tr, record)
