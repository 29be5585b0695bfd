"""Which game a command means, in a chat that may have several (issue 18).

``/board``, ``/cancel``, ``/export``, ``/verify``, ``/pause``, ``/resume`` and
``/seed`` act on one game.  Which one:

1. the command is a reply to a game's board (or lobby) message: that game;
2. the caller's game here: their one live game that fits (one they play, or
   a lobby they opened), else their one ended game that fits;
3. the chat's (forum topic's) one game that fits;
4. otherwise a list of the games that fit (the caller's, when they have
   several), one button each (:class:`bot.vocab.callbacks.PickGame`, which
   only the caller may tap), and the command runs on the game picked.

In a private chat the user's private games (``/invite``) count as the chat's.
``/seed`` carries words a button cannot, so it asks for a reply instead of
listing.  Each command is one :class:`Need` (what fits, what to do with it),
registered by its module with :func:`need`; the list's button
(:func:`bot.edge.handlers.commands.on_pick`) finds it again by the command's
name in the button.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Chat, Message, Update

from bot.edge.handlers.common import (
    Context,
    get_store,
    reply,
    thread_of,
    translator_for,
)
from bot.present.picker import pick_keyboard, pick_text
from bot.vocab.callbacks import Callback, CallbackDataError
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status

NO_GAME = N_("There is no game here. Start one with /new.")
REPLY_TO_ONE = N_("Several games here fit /{command}: send it as a reply to the board "
                  "(or lobby) of the one you mean.")

Act = Callable[[Update, Context, Translator, GameRecord], Awaitable[None]]
"""What a command does with the game it means (the update is the command's,
or the tap that picked the game from the list)."""
Fits = Callable[[GameRecord, int], bool]
"""Whether a command may act on a game for the user who sent it."""


@dataclass(frozen=True)
class Need:
    """A command that acts on one game: what fits it, and what it does."""

    command: str
    fits: Fits
    act: Act
    nothing: str = NO_GAME
    """What the caller is told when no game fits."""
    listed: bool = True
    """False: when several fit, ask for a reply instead of listing them."""


NEEDS: dict[str, Need] = {}
"""Every command's :class:`Need` by its name (the name in a PickGame button)."""


def need(command: str, fits: Fits, act: Act, *, nothing: str = NO_GAME,
         listed: bool = True) -> Need:
    made = Need(command, fits, act, nothing, listed)
    NEEDS[command] = made
    return made


def is_mine(record: GameRecord, user_id: int) -> bool:
    """The user plays the game, or opened the lobby."""
    return any(p.user_id == user_id for p in record.players) or (
        record.status is Status.LOBBY and record.created_by == user_id)


async def candidates(update: Update, context: Context, user_id: int) -> list[GameRecord]:
    """The games a command here may mean: the chat's (topic's) live ones and
    its newest ended ones; in a private chat also the user's private games."""
    chat = update.effective_chat
    assert chat is not None
    store = get_store(context)
    games = await store.games.chat_games(chat.id, thread_of(update.effective_message))
    if chat.type == Chat.PRIVATE:
        seen = {g.game_id for g in games}
        games += [g for g in await store.games.user_games(user_id)
                  if g.is_private and g.game_id not in seen]
        seen = {g.game_id for g in games}  # and the ended ones (/export, /verify after the end)
        games += [g for g in await store.played.ended_games(user_id) if g.game_id not in seen]
    return games


def _replied(update: Update) -> Message | None:
    """The bot's message the command replies to (not a forum topic's start)."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None else None
    if replied is None or replied.from_user is None or not replied.from_user.is_bot:
        return None
    return replied


async def _board_game(update: Update, context: Context, replied: Message,
                      games: list[GameRecord]) -> GameRecord | None:
    """The game whose board (or lobby) ``replied`` is, if any."""
    store = get_store(context)
    chat = replied.chat
    found = next((g for g in games if g.board_message_id == replied.message_id
                  and g.chat_id == chat.id), None)
    if found is not None:
        return found
    # a view in a private chat, or a group's older board of a game
    ref = await store.board.game_of(chat.id, replied.message_id)
    if ref is not None:
        return await store.games.load_game(ref.chat_id, ref.game_id)
    markup = replied.reply_markup
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            try:
                data = Callback.parse(button.callback_data)
            except CallbackDataError:
                continue
            record = await store.games.load_game(chat.id, data.id)
            if record is not None:
                return record
    return None


async def resolve(update: Update, context: Context, tr: Translator, wanted: Need
                  ) -> GameRecord | None:
    """The game the command means (see the module doc); None when the caller
    was told why there is none, or given the list to pick from."""
    user = update.effective_user
    assert user is not None
    games = await candidates(update, context, user.id)
    replied = _replied(update)
    board = await _board_game(update, context, replied, games) if replied is not None else None
    if board is not None:
        if wanted.fits(board, user.id):
            return board
        await reply(update, tr.gettext(wanted.nothing))
        return None
    fitting = [g for g in games if wanted.fits(g, user.id)]
    mine = [g for g in fitting if is_mine(g, user.id)]
    for group in ([g for g in mine if g.is_live], mine, fitting):
        if len(group) == 1:
            return group[0]
        if group:
            await _ask(update, tr, wanted, user.id, group)
            return None
    await reply(update, tr.gettext(wanted.nothing))
    return None


async def _ask(update: Update, tr: Translator, wanted: Need, user_id: int,
               games: list[GameRecord]) -> None:
    if not wanted.listed:
        await reply(update, tr.gettext(REPLY_TO_ONE, command=wanted.command))
        return
    await reply(update, pick_text(tr, wanted.command),
                reply_markup=pick_keyboard(tr, wanted.command, user_id, games))


async def run(update: Update, context: Context, wanted: Need) -> None:
    """A command that acts on one game: find it, then act."""
    tr = await translator_for(update, context)
    record = await resolve(update, context, tr, wanted)
    if record is not None:
        await wanted.act(update, context, tr, record)


