"""/games: a player's games across all chats, each board one tap away.

In a private chat the bot lists the user's open games (variant, opponent,
whose turn, the deadline, where) with a button per game being played; the
button posts that game's board in the private chat as a view
(:func:`bot.edge.handlers.board.post_views`): drawn from the user's side, live
(every change redraws it with the game's other boards), with the move
buttons when it is their turn.  In a group, /games points to the private
chat (the list names games of other chats).

The button's data is ``gv:<game ref>`` (at most 64 bytes: chat id, topic,
game id); a forged or outdated one is refused: only the game's players may
open it, and only while it is being played.
"""

from __future__ import annotations

import contextlib
from html import escape

from telegram import Chat, Update
from telegram.error import BadRequest, Forbidden

from bot.edge.handlers.board import show_view
from bot.edge.handlers.common import Context, get_store, reply, translator_for
from bot.present.keyboards import games_keyboard, url_keyboard
from bot.present.names import move_by, variant_name
from bot.rules.seats import seat_of, waiting_user
from bot.vocab.callbacks import CallbackDataError, ShowGame
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, GameRef, Status
from bot.vocab.refusals import NOT_PLAYING
from bot.vocab.usertext import clean

START_PAYLOAD = "games"
"""``/start games``: the deep link of the group's hint opens the list."""
NOT_PLAYED = N_("This game is not being played any more.")


def show_data(record: GameRecord) -> str | None:
    """The button data that opens ``record``'s board (None if it would not fit).

    >>> from engine.position import Variant
    >>> show_data(GameRecord(chat_id=-1001234567890, thread_id=7, game_id="k3Xa9_zQ",
    ...                      variant=Variant.LONG))
    'gv:-1001234567890:7:k3Xa9_zQ'
    """
    ref = record.ref
    try:
        return ShowGame(ref.chat_id, ref.thread_id or 0, ref.game_id).format()
    except CallbackDataError:  # longer than Telegram allows
        return None


def opponent_of(record: GameRecord, user_id: int) -> str | None:
    return next((p.name for p in record.players if p.user_id != user_id), None)


def title(tr: Translator, record: GameRecord, user_id: int) -> str:
    """"Long nardy against Bob" (a lobby: just the variant)."""
    variant = variant_name(tr, record.variant)
    opponent = opponent_of(record, user_id)
    if opponent is None:
        return variant
    return tr.gettext("{variant} against {name}", variant=variant, name=clean(opponent))


def turn_text(tr: Translator, record: GameRecord, user_id: int) -> str:
    if record.status is Status.LOBBY:
        return tr.gettext("waiting for a second player")
    waiting = waiting_user(record)
    if waiting == user_id:
        return "➡ " + tr.gettext("your turn")
    name = next((p.name for p in record.players if p.user_id == waiting), "")
    return tr.gettext("{name}'s turn", name=clean(name))


async def _where(context: Context, tr: Translator, record: GameRecord) -> str:
    if record.is_inline:  # on a message sent via the bot: the bot does not know the chat
        return tr.gettext("inline game")
    if record.is_private:
        return tr.gettext("private game")
    name = None
    with contextlib.suppress(BadRequest, Forbidden):
        name = (await context.bot.get_chat(record.chat_id)).title
    name = clean(name or "")  # a title is plain text: escaped with the line
    return tr.gettext("in {chat}", chat=name) if name else tr.gettext("in a group")


async def _line(context: Context, tr: Translator, record: GameRecord, number: int,
                user_id: int) -> str:
    parts = [escape(turn_text(tr, record, user_id)), escape(await _where(context, tr, record))]
    if record.deadline is not None and record.status is Status.ACTIVE:
        parts.append("⏰ " + move_by(tr, record.deadline))
    return f"{number}. <b>{escape(title(tr, record, user_id))}</b> · " + " · ".join(parts)


async def games(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if chat.type != Chat.PRIVATE:
        link = f"https://t.me/{context.bot.username}?start={START_PAYLOAD}"
        await reply(update, tr.gettext("/games lists your games of every chat in our private "
                                       "chat."),
                    reply_markup=url_keyboard(tr.gettext("Open the private chat"), link))
        return
    await send_list(update, context, tr)


async def start_list(update: Update, context: Context, payload: str) -> bool:
    """``/start games`` in a private chat: the /games list; False for another payload."""
    if payload != START_PAYLOAD:
        return False
    await send_list(update, context, await translator_for(update, context))
    return True


async def send_list(update: Update, context: Context, tr: Translator) -> None:
    """The user's open games, with a button per game being played."""
    user = update.effective_user
    assert user is not None
    records = await get_store(context).games.user_games(user.id)
    if not records:
        await reply(update, tr.gettext("You have no games in progress. Start one with /new in a "
                                       "group, or /invite someone to a private game."))
        return
    lines = [tr.gettext("<b>Your games</b>")]
    rows = []
    for number, record in enumerate(records, start=1):
        lines.append(await _line(context, tr, record, number, user.id))
        data = show_data(record) if record.status is Status.ACTIVE else None
        if data is not None:
            text = f"{number}. {title(tr, record, user.id)}"
            rows.append((text, data))
    await reply(update, "\n".join(lines), reply_markup=games_keyboard(rows))


async def on_show(update: Update, context: Context) -> None:
    """A /games button: post that game's board here, from the user's side."""
    query, chat, user = update.callback_query, update.effective_chat, update.effective_user
    assert query is not None and chat is not None and user is not None
    tr = await translator_for(update, context)
    try:
        show = ShowGame.parse(query.data)
        ref: GameRef | None = GameRef(show.chat_id, show.thread_id or None, show.game_id)
    except CallbackDataError:
        ref = None
    store = get_store(context)
    record = await store.games.load_game(ref.chat_id, ref.game_id) if ref is not None else None
    if chat.type != Chat.PRIVATE or record is None or record.status is not Status.ACTIVE:
        await query.answer(tr.gettext(NOT_PLAYED), show_alert=True)
        return
    if seat_of(record, user.id) is None:
        await query.answer(tr.gettext(NOT_PLAYING), show_alert=True)
        return
    await query.answer()
    await show_view(update, context, tr, record)


