"""Commands: /new, /board, /cancel, /export, /help, /rules, /lang (and /start)."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from html import escape

from telegram import Chat, Update

from ai import Level
from bot.edge.handlers import computer as computer_turns
from bot.edge.handlers.board import edit, repost
from bot.edge.handlers.common import (
    Context,
    args_of,
    chat_settings,
    display_name,
    get_dealer,
    get_store,
    is_chat_admin,
    refusal_text,
    reply,
    thread_of,
    translator_for,
    update_settings,
)
from bot.edge.handlers.games import show_view
from bot.present.callbacks import CallbackDataError, LanguageChoice
from bot.present.help import rules_text
from bot.present.i18n import LANGUAGE_NAMES, LANGUAGES, N_, Translator, translator
from bot.present.keyboards import language_keyboard
from bot.rules import computer
from bot.rules.autoplay import with_chat_autoplay
from bot.rules.booking import with_chat_stake
from bot.rules.cancelling import cancel_command
from bot.rules.chatsettings import with_language
from bot.rules.lobby import new_lobby
from bot.rules.matchstate import match_in_progress
from bot.rules.options import OptionError, parse_new_args, with_chat_clock
from bot.rules.refusals import MATCH_IN_PROGRESS, Refusal
from bot.rules.seats import seat_of
from bot.store import VersionConflict
from bot.store.records import GameRecord, Player, Status
from bot.store.saving import commit_game

log = logging.getLogger(__name__)

NO_GAME = N_("There is no game here. Start one with /new.")


SEVERAL_GAMES = N_("You play several private games; /games lists them, each board a tap away "
                   "(its More menu has the rest).")


async def _game_for(update: Update, context: Context, tr: Translator,
                    usable: Callable[[GameRecord], bool]) -> GameRecord | None:
    """The game a command means, if ``usable`` for it: the chat's (or
    topic's); in a private chat without one, the private game the user
    plays, if just one.  Otherwise the user is told why and None returned."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None
    store = get_store(context)
    record = await store.load_game(chat.id, thread_of(update.effective_message))
    if record is None and chat.type == Chat.PRIVATE and user is not None:
        mine = [r for r in await store.user_games(user.id)
                if r.is_private and usable(r) and seat_of(r, user.id) is not None]
        if len(mine) > 1:
            await reply(update, tr.gettext(SEVERAL_GAMES))
            return None
        record = mine[0] if mine else None
    if record is None or not usable(record):
        await reply(update, tr.gettext(NO_GAME))
        return None
    return record


async def new(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    try:
        variant, options = parse_new_args(args_of(context))
    except OptionError as error:  # a reply to the command: whose, and which option
        await reply(update, refusal_text(tr, error), quote=True)
        return
    current = await get_store(context).load_game(chat.id, thread_of(update.effective_message))
    if current is not None and current.status.is_open:
        if current.status is Status.ACTIVE:
            await reply(update, tr.gettext("A game is already being played here. Here it is:"))
        else:
            await reply(update, tr.gettext("A game is already waiting for players here:"))
        await repost(context, tr, current)
        return
    if current is not None and match_in_progress(current):
        # a match is one bet: nobody wipes it between two of its games
        message = update.effective_message
        assert message is not None
        await message.reply_text(tr.gettext(MATCH_IN_PROGRESS), do_quote=True)
        await repost(context, tr, current)
        return
    settings = await chat_settings(context, chat.id)
    options = with_chat_stake(args_of(context), options, settings.options.stake_per_point)
    options = with_chat_clock(args_of(context), options, settings.options.time_control)
    options = with_chat_autoplay(args_of(context), options, settings.autoplay)
    try:
        lobby = new_lobby(chat.id, thread_of(update.effective_message),
                          variant or settings.variant, options, user.id,
                          get_dealer(context))
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    if options.computer is not None:  # the computer sits down at once: no lobby
        level = Level(options.computer)
        person = Player(user_id=user.id, name=display_name(user))
        dealer = get_dealer(context).tapped(str(update.update_id))  # entropy: Telegram's id
        lobby = computer.seat_computer(lobby, level, computer.bot_name(tr, level), person,
                                       dealer)
        lobby = await computer_turns.opening(lobby, dealer)
    try:
        saved = await get_store(context).save(lobby, current.version if current else 0)
    except VersionConflict:
        await reply(update, tr.gettext("Someone else started a game at the same moment; "
                                       "use /board to see it."))
        return
    await repost(context, tr, saved, strip_old=False)


async def board(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    record = await _game_for(update, context, tr, lambda r: r.status is not Status.CANCELLED
                             or bool(r.engine))
    if record is None:
        return
    record = await computer_turns.resume(context, tr, record)  # if it waits for the computer
    if record.is_private:  # its boards are the players' views: post this player's here
        await show_view(update, context, tr, record)
        return
    await repost(context, tr, record)


async def cancel(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    admin = chat.type != chat.PRIVATE and await is_chat_admin(context, chat, user.id)
    try:
        changed = await commit_game(
            get_store(context),
            lambda: _game_for(update, context, tr,
                              lambda r: r.status.is_open or match_in_progress(r)),
            lambda record, _now: cancel_command(record, user.id, admin))
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    if changed is None:
        return
    saved = changed[1]
    saved = await computer_turns.play(context, saved)  # the computer agrees at once
    if saved.status is Status.CANCELLED:
        await reply(update, tr.gettext("The game was cancelled."))
    else:
        await reply(update, tr.gettext("Cancel proposed; your opponent can agree on the board."))
    await edit(context, tr, saved)


async def export(update: Update, context: Context) -> None:
    """``/export``: the game (or match) as a ``.mat`` file; a finished game
    with its analysis as comments (computed off the loop, or the one 📊 made)."""
    from bot.edge.handlers.analysis import analysed
    from bot.present.export import export_text
    from bot.rules.review import analysable

    tr = await translator_for(update, context)
    record = await _game_for(update, context, tr, lambda r: bool(r.engine))
    if record is None:
        return
    analysis = None
    if analysable(record):
        try:
            analysis = await analysed(record)
        except Exception:  # the file is worth sending without it
            log.exception("cannot analyse game %s for /export", record.game_id)
    name, body = export_text(record, analysis)
    message = update.effective_message
    assert message is not None
    await message.reply_document(io.BytesIO(body.encode()), filename=name, do_quote=False,
                                 caption=tr.gettext("The game record."))


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
    """Redraw the game board of this chat or topic in its new language."""
    record = await get_store(context).load_game(chat_id, thread_id)
    if record is None or record.board_message_id is None:
        return
    await edit(context, tr, record)
