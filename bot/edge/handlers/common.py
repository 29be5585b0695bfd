"""What every handler needs: the store, the dice, the language, where it is.

Handlers stay short: they read the update with these helpers, ask
:mod:`bot.rules` to change a record, and send what :mod:`bot.present`
and :mod:`bot.present.keyboards` draw.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden
from telegram.ext import ContextTypes

from bot.rules.chatsettings import with_default_option
from bot.rules.dice import Dealer
from bot.service.saving import commit_game
from bot.store import Store
from bot.store.inline import inline_chat_id
from bot.vocab.callbacks import Callback, CallbackDataError
from bot.vocab.i18n import N_, Translator, translator
from bot.vocab.records import (
    INLINE_CHAT_BASE,
    ChatSettings,
    GameRecord,
    is_private_game_chat,
    settings_key,
)
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import ALERT_LIMIT, clean, fit_text

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE


def get_store(context: Context) -> Store:
    store: Store = context.bot_data["store"]
    return store


def get_dealer(context: Context) -> Dealer:
    """Where new dice seeds come from (bot/rules/dice.py)."""
    dealer: Dealer = context.bot_data["dealer"]
    return dealer


def thread_of(message: Message | None) -> int | None:
    """The forum topic a message belongs to (None outside topics).

    Replies in ordinary groups carry a ``message_thread_id`` too (the thread
    of replies); only forum topics get their own game.
    """
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


def _read(context: Context) -> dict[object, Any]:
    """What this update (or job run) has read already: one ``CallbackContext``
    serves every handler of one update, and lives no longer."""
    read: dict[object, Any] | None = getattr(context, "_nardy_read", None)
    if read is None:
        read = {}
        context._nardy_read = read  # type: ignore[attr-defined]
    return read


async def chat_settings(context: Context, chat_id: int) -> ChatSettings:
    """The chat's settings, read from the store once per update."""
    read = _read(context)
    settings: ChatSettings | None = read.get(chat_id)
    if settings is None:
        settings = read[chat_id] = await get_store(context).games.chat_settings(chat_id)
    return settings


async def game_and_settings(context: Context, chat_id: int, game_id: str
                            ) -> tuple[GameRecord | None, bool]:
    """The game ``game_id`` of ``chat_id``, read with the chat's settings in one
    round trip (kept for the rest of the update: :func:`chat_settings`), and
    whether its last write was this update's (an earlier delivery's)."""
    record, settings, own = await get_store(context).games.load_with_settings(chat_id, game_id)
    _read(context).setdefault(chat_id, settings)
    return record, own


async def update_settings(context: Context, chat_id: int,
                          change: Callable[[ChatSettings | None], ChatSettings]) -> ChatSettings:
    """Change the chat's settings (one compare-and-set); the rest of the update sees them."""
    settings = await get_store(context).games.update(settings_key(chat_id), change)
    _read(context)[chat_id] = settings
    return settings


async def chat_language(context: Context, chat_id: int) -> str | None:
    """The language fixed for the chat with /lang, if any."""
    return (await chat_settings(context, chat_id)).language


async def translator_for(update: Update, context: Context) -> Translator:
    """The chat's fixed language, else the user's Telegram language (once per update)."""
    read = _read(context)
    tr: Translator | None = read.get("translator")
    if tr is not None:
        return tr
    chat = update.effective_chat
    fixed = await chat_language(context, chat.id) if chat is not None else None
    user = update.effective_user
    tr = translator(fixed or (user.language_code if user is not None else None))
    read["translator"] = tr
    return tr


NOTED_LANGUAGES = "noted_languages"
"""bot_data: the Telegram language last noted per user by this process
(:func:`note_language`), so an update writes to the store only when it changed."""
NOTED_MAX = 10_000


async def note_language(update: Update, context: Context) -> None:
    """Every update (a handler group before the others): note its user's
    Telegram language, so that a message addressed to them later (a ping, a
    request they answer) can be in it (:func:`addressee_translator`)."""
    user = update.effective_user
    code = user.language_code if user is not None else None
    if user is None or not code or "store" not in context.bot_data:
        return
    noted: dict[int, str] = context.bot_data.setdefault(NOTED_LANGUAGES, {})
    if noted.get(user.id) == code:
        return
    await get_store(context).prefs.set_language(user.id, code)
    if len(noted) >= NOTED_MAX:
        noted.clear()
    noted[user.id] = code


async def addressee_translator(context: Context, user_id: int, chat_id: int | None = None,
                               fallback: str | None = None) -> Translator:
    """The language of a message addressed to one person, whoever tapped: the
    language fixed for the chat it is posted in (``/lang``; ``chat_id`` None or
    a private game's: none), else the person's own Telegram language (noted
    from their last update, :func:`note_language`), else ``fallback``, else the
    chat's board language, else English.  Every message that names its reader
    (the turn ping, a reminder, the timeout offer, a settle request, an
    invitation's notice) takes its language from here; text that stands on a
    board is in the board's language instead."""
    board = None
    if chat_id is not None and not is_private_game_chat(chat_id):
        settings = await chat_settings(context, chat_id)
        if settings.language:
            return translator(settings.language)
        board = settings.board_language
    own = await get_store(context).prefs.language(user_id)
    return translator(own or fallback or board)


async def keys_translator(context: Context, tr: Translator, chat_id: int) -> Translator:
    """The language the buttons of a game of ``chat_id`` are drawn in, for a
    text that names them: a group's or an inline game's boards' (its /lang,
    else the one its first board noted), else (a private game's views, each
    in its player's language) ``tr``.  Only read: nothing is noted here."""
    if chat_id > 0 or (is_private_game_chat(chat_id) and chat_id > INLINE_CHAT_BASE):
        return tr
    settings = await chat_settings(context, chat_id)
    return translator(settings.language or settings.board_language or tr.lang)


def display_name(user: User) -> str:
    """The user's name as the bot keeps and shows it: cleaned and cut (bot/vocab/usertext.py)."""
    return clean(user.full_name) or (f"@{user.username}" if user.username else str(user.id))


def chat_id_of(update: Update) -> int:
    """The chat a command or button came from (they always have one)."""
    chat = update.effective_chat
    assert chat is not None
    return chat.id


async def names_in(store: Store, chat_id: int) -> dict[int, str]:
    """The names players had in their latest games here (stats, then history):
    how the ledger and /settle name the players of its balances."""
    names: dict[int, str] = {}
    for entry in reversed(await store.ledger.history(chat_id)):
        names.update((p.user_id, p.name) for p in entry.players)
    names.update((s.user_id, s.name) for s in await store.ledger.player_stats(chat_id) if s.name)
    return names


def refusal_text(tr: Translator, refusal: Refusal, buttons: Translator | None = None) -> str:
    """A refusal's message for an HTML message: its values are plain text
    (they may be the user's own words), escaped here.  A button it names
    reads as in ``buttons``' keyboards (default: ``tr``'s)."""
    values = {k: html.escape(v, quote=False) if isinstance(v, str) else v
              for k, v in refusal.values.items()}
    return tr.naming(refusal.message, buttons or tr, **values)


async def commit_or_reply(update: Update, tr: Translator, store: Store,
                          load: Callable[[], Awaitable[GameRecord | None]],
                          change: Callable[[GameRecord, float], GameRecord], *, missing: str,
                          buttons: Translator | None = None) -> GameRecord | None:
    """A command's rule applied to its game and saved (:func:`commit_game`):
    the saved record, or None after telling the caller the refusal (naming
    the game's buttons as they read in ``buttons``' language), or ``missing``
    (a msgid) when ``load`` found no game."""
    try:
        changed = await commit_game(store, load, change)
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal, buttons))
        return None
    if changed is None:
        await reply(update, tr.gettext(missing))
        return None
    return changed[1]


def alert_text(tr: Translator, refusal: Refusal, buttons: Translator | None = None) -> str:
    """A refusal's message for a tap's alert (plain text, at most 200
    characters); a button it names reads as in ``buttons``' keyboards (the
    tapped message's language; default: ``tr``'s)."""
    return clean(tr.naming(refusal.message, buttons or tr, **refusal.values), ALERT_LIMIT)


async def is_chat_admin(context: Context, chat: Chat, user_id: int) -> bool:
    """True for the chat's administrators (and in private chats, always)."""
    if chat.type == Chat.PRIVATE:
        return True
    try:
        member = await context.bot.get_chat_member(chat.id, user_id)
    except (BadRequest, Forbidden):
        log.warning("getChatMember failed in chat %s for %s", chat.id, user_id)
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


@dataclass(frozen=True)
class DefaultOption:
    """A command that shows one of the chat's defaults for ``/new`` and, given a
    value, sets it (chat admins): ``/stake``, ``/clock``."""

    name: str
    """The option (a ``TableOptions`` field)."""
    parse: Callable[[list[str]], Any]
    """The value of the command's arguments; ``ValueError``: they are not one."""
    usage: Callable[[Translator], str]
    """What the arguments may be."""
    not_admin: str
    """The msgid for a user who is not a chat admin."""
    shown: Callable[[Translator, Any], str]
    """The current value, as the command shows it."""
    changed: Callable[[Translator, Any], str]
    """What the command says after setting a value."""
    admin_first: bool = False
    """Whether a user who is not an admin is told so before the value is read."""


async def default_option_command(update: Update, context: Context, command: DefaultOption
                                 ) -> None:
    """Show or set one of the chat's ``/new`` defaults (see :class:`DefaultOption`)."""
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    args = args_of(context)
    if not args:
        settings = await chat_settings(context, chat.id)
        await reply(update, command.shown(tr, getattr(settings.options, command.name)))
        return
    if command.admin_first and not await is_chat_admin(context, chat, user.id):
        await reply(update, tr.gettext(command.not_admin))
        return
    try:
        value = command.parse(args)
    except ValueError:
        await reply(update, command.usage(tr))
        return
    if not command.admin_first and not await is_chat_admin(context, chat, user.id):
        await reply(update, tr.gettext(command.not_admin))
        return
    await set_default_option(context, chat.id, command.name, value)
    await reply(update, command.changed(tr, value))


async def set_default_option(context: Context, chat_id: int, name: str, value: object) -> None:
    """Change one of the chat's defaults for ``/new`` (one CAS on its settings)."""
    await update_settings(context, chat_id,
                          lambda settings: with_default_option(settings, chat_id, name, value))


UNKNOWN_BUTTON = N_("This button does not work any more.")


def drawn_here(query: CallbackQuery) -> bool:
    """Whether the tapped message carries this very button.

    Telegram delivers whatever callback data a client sends, with the message
    it names, so a button of one record can arrive on another record's message
    (issue 21: a clock button of game B turned game A's board into B's pause
    offer).  The bot draws a record's buttons only on that record's messages,
    so data found among the message's own buttons means the message is the one
    the button's record drew.  Every handler that edits the tapped message
    asks this first (:func:`own_button`); game and lobby taps check the
    record's board and views instead (bot/rules/taps.py ``tapped_view``), and
    an inline message, whose keyboard the bot is not shown, by its id.
    """
    message = query.message
    if not isinstance(message, Message) or message.reply_markup is None:
        return False
    return any(button.callback_data == query.data
               for row in message.reply_markup.inline_keyboard for button in row)


async def own_button(query: CallbackQuery, tr: Translator) -> bool:
    """:func:`drawn_here`, else the tapper is told the button does not work
    (nothing changes) and False."""
    if drawn_here(query):
        return True
    await query.answer(tr.gettext(UNKNOWN_BUTTON), show_alert=True)
    return False


async def tapped_chat(store: Store, query: CallbackQuery) -> tuple[int, int | None] | None:
    """The chat (and topic) whose games a button on the tapped message may
    name: the message's own chat; a player's board in a private chat: its
    game's chat; an inline message: its game's chat (made from its id).  Never
    the button's data, which a client may forge (issue 21: a forged 🎲 Verify
    naming another chat's game).  None when the bot is not shown the message."""
    if query.inline_message_id is not None:
        return inline_chat_id(query.inline_message_id), None
    message = query.message
    if not isinstance(message, Message):
        return None
    if message.chat.type == Chat.PRIVATE:
        ref = await store.board.game_of(message.chat.id, message.message_id)
        if ref is not None:  # a player's board of a game that lives elsewhere
            return ref.chat_id, ref.thread_id
    return message.chat.id, thread_of(message)


async def parse_tap(query: CallbackQuery, tr: Translator, refusal: str = UNKNOWN_BUTTON
                    ) -> Callback | None:
    """The tapped button's data; None (the tapper already told ``refusal``) for
    data that is forged, malformed or from an older version of the bot."""
    try:
        return Callback.parse(query.data)
    except CallbackDataError:
        await query.answer(tr.gettext(refusal), show_alert=True)
        return None


def args_of(context: Context) -> list[str]:
    return list(context.args or [])


async def reply(update: Update, text: str, *, quote: bool = False, **kwargs: Any
                ) -> Message | None:
    """Answer a command in its chat and topic; in a group (or with ``quote``) as
    a reply to the command (in a busy group nobody knows whom "stake needs a
    whole number" is for), still sent if the command was deleted meanwhile."""
    message = update.effective_message
    if message is None:
        return None
    quoted = quote or message.chat.type != Chat.PRIVATE
    return await message.reply_text(fit_text(text), do_quote=quoted,
                                    allow_sending_without_reply=True, **kwargs)


def replied_user(message: Message | None) -> User | None:
    """The author of the message a command replies to (not a bot, and not
    whoever opened the forum topic: Telegram makes every message of a topic
    a reply to its start, so ``/withdraw`` there meant that member)."""
    target = message.reply_to_message if message is not None else None
    if target is not None and target.forum_topic_created is not None:
        return None
    user = target.from_user if target is not None else None
    return None if user is None or user.is_bot else user
