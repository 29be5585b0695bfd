"""/settings: how this chat's boards look (picture or text, whose side they
are drawn from) and which language is fixed (changed with /lang).

Buttons carry ``set:<setting>:<value>``.  In groups only chat admins change
settings; in a private chat the user does.  A change redraws the board of
the game in this chat or topic: in place when only the orientation changed,
posted anew when the style changed (a text message cannot become a photo).
"""

from __future__ import annotations

from html import escape

from telegram import Update

from bot.edge.handlers.board import edit, is_lobby, repost
from bot.edge.handlers.common import (
    Context,
    chat_settings,
    get_store,
    is_chat_admin,
    own_button,
    reply,
    thread_of,
    translator_for,
    update_settings,
)
from bot.present.keyboards import (
    SETTING_CHOICES,
    SETTING_FIELDS,
    SETTING_VALUES,
    settings_keyboard,
)
from bot.rules.chatsettings import with_setting
from bot.vocab.callbacks import CallbackDataError, SettingChoice
from bot.vocab.i18n import LANGUAGE_NAMES, N_, Translator, translator
from bot.vocab.records import ChatSettings

VIEW_TEXT = {
    "follow": N_("from the side of the player who moves first (the checkers stay put; "
                  "the numbers are those of the player to move)"),
    "white": N_("always from White's side"),
    "black": N_("always from Black's side"),
}
CONFIRM_TEXT = {
    "staked": N_("A completed turn waits for {confirm} in staked games; in the others it hands "
                 "the dice over at once, and the mover may take it back until the opponent taps "
                 "Roll or Double (a roll made by itself confirms it)."),
    "always": N_("A whole-turn button waits for {confirm}."),
    "never": N_("A completed turn hands the dice over at once; the mover may take it back "
                "until the opponent taps Roll or Double (a roll made by itself confirms it)."),
}
STALE_BUTTON = N_("This button does not work any more.")


def settings_text(tr: Translator, settings: ChatSettings) -> str:
    style = tr.gettext(N_("a picture") if settings.board_style == "png" else N_("text"))
    language = (LANGUAGE_NAMES.get(settings.language, settings.language)
                if settings.language else tr.gettext("each user's Telegram language"))
    return "\n".join([
        "<b>" + tr.gettext("Settings of this chat") + "</b>",
        tr.gettext("Board: {style}, drawn {view}.", style=style,
                   view=tr.gettext(VIEW_TEXT[settings.orientation])),
        tr.gettext("Language: {name} (change it with /lang).", name=escape(language)),
        tr.gettext("New games play forced turns by themselves.") if settings.autoplay
        else tr.gettext("New games leave forced turns to the players."),
        tr.naming(CONFIRM_TEXT[settings.confirm_turns],  # Confirm: on the chat's boards
                  translator(settings.language or settings.board_language or tr.lang)),
        tr.gettext("Any member may create a tournament (/tournament).")
        if settings.tournaments == "anyone" else tr.gettext("Only chat admins create "
                                                            "tournaments (/tournament)."),
        tr.gettext("Only chat admins change settings in a group."),
    ])


def parse(data: str | None) -> tuple[str, str] | None:
    """``(field, value)`` of a settings button, ``None`` for anything else.

    >>> parse("set:view:white"), parse("set:style:gif"), parse("set:style")
    (('orientation', 'white'), None, None)
    """
    try:
        choice = SettingChoice.parse(data)
    except CallbackDataError:
        return None
    if choice.value not in SETTING_CHOICES.get(choice.setting, {}):
        return None
    return SETTING_FIELDS[choice.setting], choice.value


def field_value(field: str, value: str) -> object:
    """The settings field's value for a button's ``value`` (``on`` -> True for autoplay).

    >>> field_value("autoplay", "off"), field_value("orientation", "white")
    (False, 'white')
    """
    return SETTING_VALUES.get(value, value) if field == "autoplay" else value


async def settings_command(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    chat = update.effective_chat
    assert chat is not None
    settings = await chat_settings(context, chat.id)
    await reply(update, settings_text(tr, settings),
                reply_markup=settings_keyboard(tr, settings))


async def on_settings_button(update: Update, context: Context) -> None:
    query = update.callback_query
    chat, user = update.effective_chat, update.effective_user
    assert query is not None and chat is not None and user is not None
    tr = await translator_for(update, context)
    choice = parse(query.data)
    if choice is None:
        await query.answer(tr.gettext(STALE_BUTTON), show_alert=True)
        return
    if not await own_button(query, tr):
        return
    if not await is_chat_admin(context, chat, user.id):
        await query.answer(tr.gettext("Only chat admins can change the settings."),
                           show_alert=True)
        return
    field, value = choice[0], field_value(*choice)
    store = get_store(context)
    before = await chat_settings(context, chat.id)
    await query.answer()
    if getattr(before, field) == value:  # already so (a double tap): nothing to redraw
        return
    after = await update_settings(context, chat.id,
                               lambda settings: with_setting(settings, chat.id, field, value))
    message = query.message
    if message is not None and message.is_accessible:
        await context.bot.edit_message_text(settings_text(tr, after), chat_id=chat.id,
                                            message_id=message.message_id,
                                            reply_markup=settings_keyboard(tr, after))
    if field in ("autoplay", "confirm_turns", "tournaments"):
        return  # new games take autoplay, the next whole turn Confirm: no board changes
    for record in await store.games.chat_games(chat.id, thread_of(message),  # type: ignore[arg-type]
                                               ended=False):
        if is_lobby(record) or record.board_message_id is None:
            continue
        if field == "board_style":
            await repost(context, tr, record, settings=after)  # the old board keeps no buttons
        else:
            await edit(context, tr, record)
