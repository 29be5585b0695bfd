"""/seed and /verify: the players' words in the dice, and checking them
(bot/rules/dice.py, bot/present/dice.py)."""

from __future__ import annotations

import asyncio
from html import escape

from telegram import Message, Update
from telegram.error import BadRequest, Forbidden

from bot.edge.handlers import which
from bot.edge.handlers.board import edit, people_lobby, unreachable
from bot.edge.handlers.common import (
    Context,
    args_of,
    chat_settings,
    commit_or_reply,
    display_name,
    get_store,
    keys_translator,
    replied_user,
    reply,
    tapped_chat,
    thread_of,
    translator_for,
)
from bot.present.dice import (
    dice_chart,
    dice_summary,
    dice_text,
    dice_title,
    verify_message,
)
from bot.present.render.dice import render_dice_chart
from bot.rules.dice import NO_LOBBY, seeded, words_of
from bot.rules.options import VARIANT_WORDS
from bot.rules.seats import seat_of
from bot.vocab.callbacks import CallbackDataError, VerifyDice
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.usertext import html_text


def _lobby(record: GameRecord, _user_id: int) -> bool:
    return record.status is Status.LOBBY and record.dice is not None


async def _seed(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    user, message = update.effective_user, update.effective_message
    assert user is not None and message is not None
    words = (message.text or "").partition(" ")[2]
    store = get_store(context)
    saved = await commit_or_reply(update, tr, store,
                                  lambda: store.games.load_game(record.chat_id, record.game_id),
                                  lambda current, _now: seeded(current, user.id, words),
                                  missing=NO_LOBBY)
    if saved is None:
        return
    if people_lobby(saved):
        # the lobby's message keeps the commitment and is not edited for words
        # (each edit costs the group a message): this reply confirms them
        await reply(update, tr.gettext(WORDS_IN, words=html_text(words_of(saved.dice, user.id))))
        return
    await reply(update, tr.gettext("Your words are in the dice of the next game."))
    await edit(context, tr, saved)


WORDS_IN = N_("Your words «{words}» are in the dice of the next game; /verify lists everything "
              "mixed in so far.")


SEED = which.need("seed", _lobby, _seed, nothing=NO_LOBBY, listed=False)
"""Words cannot ride on a list's button: with several lobbies, a reply to one."""


async def seed(update: Update, context: Context) -> None:
    """``/seed words``: mix the words into the open lobby's dice."""
    await which.run(update, context, SEED)


async def _verify(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    state = record.dice
    if state is not None and not state.fixed:  # the refused taps so far are kept beside it
        logged = await get_store(context).games.refused_taps(record.chat_id, record.game_id)
        record = record.model_copy(update={"dice": state.model_copy(update={"refused": logged})})
    await reply(update, verify_message(tr, record))


VERIFY = which.need("verify", lambda record, _user_id: record.dice is not None
                    or bool(record.engine), _verify)


async def verify(update: Update, context: Context) -> None:
    """``/verify``: the commitment and entropy; the seed once the match is over."""
    await which.run(update, context, VERIFY)


async def on_verify_button(update: Update, context: Context) -> None:
    """🎲 Verify on a result: /verify's answer in the chat tapped (a private
    game's dice only for its players); on an inline game's message, whose chat
    the bot cannot post in, in the tapper's private chat."""
    query, user = update.callback_query, update.effective_user
    assert query is not None and user is not None
    tr = await translator_for(update, context)
    try:
        data = VerifyDice.parse(query.data)
    except CallbackDataError:
        data = None
    # the game of the tapped message's chat, whatever chat the data names
    where = await tapped_chat(get_store(context), query)
    record = (await get_store(context).games.load_game(where[0], data.game_id)
              if data is not None and where is not None else None)
    if data is None or record is None or (
            record.is_private and seat_of(record, user.id) is None):
        await query.answer(tr.gettext("This button does not work any more."), show_alert=True)
        return
    message = query.message
    if query.inline_message_id is not None:
        try:
            await context.bot.send_message(user.id, verify_message(tr, record))
        except (Forbidden, BadRequest) as error:  # never started the bot: may not write first
            if not unreachable(error):
                raise
            shown = await keys_translator(context, tr, record.chat_id)  # the message's 🎲 Verify
            await query.answer(tr.naming(VERIFY_PRIVATELY, shown), show_alert=True)
            return
        await query.answer(tr.gettext("The dice check is in our private chat."))
        return
    await query.answer()
    if isinstance(message, Message):
        await context.bot.send_message(message.chat.id, verify_message(tr, record),
                                       message_thread_id=thread_of(message))


VERIFY_PRIVATELY = N_("Open our private chat (tap my name, then Start) and tap {verify} "
                      "again: the dice check goes there.")
DICE_USAGE = N_("Use /dice, /dice long or /dice backgammon (reply to someone: their dice).")


async def dice(update: Update, context: Context) -> None:
    """``/dice [long|backgammon]`` (a reply: that player's): the rolls of the
    player's finished games here against fair dice, as a chart (text when the
    chat uses text boards)."""

    tr = await translator_for(update, context)
    chat, message = update.effective_chat, update.effective_message
    user = replied_user(message) or update.effective_user
    assert chat is not None and message is not None and user is not None
    args = args_of(context)
    variant = VARIANT_WORDS.get(args[0].lower()) if len(args) == 1 else None
    if args and variant is None:
        await reply(update, tr.gettext(DICE_USAGE))
        return
    store = get_store(context)
    stats = await store.ledger.dice_stats(chat.id, variant, user.id)
    name = display_name(user)
    if not stats.rolls:
        await reply(update, tr.gettext("{name} has no rolls in finished games here yet.",
                                       name=html_text(name)))
        return
    title = dice_title(tr, name, variant)
    if (await chat_settings(context, chat.id)).board_style == "text":
        await reply(update, dice_text(tr, title, stats))
        return
    picture = await asyncio.to_thread(render_dice_chart, dice_chart(tr, title, stats))
    caption = "\n".join([f"<b>{escape(title)}</b>", *map(escape, dice_summary(tr, stats))])
    await message.reply_photo(picture, caption=caption, do_quote=False)
