"""Correspondence clocks in the chat: reminders, the timeout offer, pausing,
muting, and the chat's default time control.

- :func:`tick_job` runs every few seconds in every bot process
  (:mod:`bot.store.clock` hands each due game to one of them) and :func:`act`
  does what is due: remind the player to move, or offer the opponent
  **Claim win** / **Give more time** once the deadline has passed.
- Reminders go to the player's private chat with the bot when they have
  started it there (:mod:`bot.store.prefs`), else they mention the player in the
  game's chat.  ``/mute`` / ``/unmute`` (or the button on a reminder) turn
  them off and on for the user, in every game.
- ``/pause`` and ``/resume``: see :func:`bot.rules.clock.pause_request`.
- ``/clock [time]``: the chat's default time control for ``/new`` without
  ``time=`` (chat admins set it).
"""

from __future__ import annotations

import contextlib
import functools
import os
from html import escape

from telegram import InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Forbidden

from bot.edge.handlers import which
from bot.edge.handlers.board import edit, game_link, ping_in_chat, send, unreachable
from bot.edge.handlers.common import (
    Context,
    DefaultOption,
    addressee_translator,
    alert_text,
    default_option_command,
    get_store,
    own_button,
    parse_tap,
    refusal_text,
    reply,
    translator_for,
)
from bot.present.keyboards import mute_keyboard, proposal_keyboard, timeout_offer
from bot.present.names import duration, mention, variant_name
from bot.rules.clock import (
    Notice,
    claim_timeout,
    drop_pause_request,
    more_time,
    notice,
    pause_request,
)
from bot.rules.matchstate import table_of
from bot.rules.seats import seat_of
from bot.service import ending
from bot.service.saving import commit_game
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import NOT_PLAYING, Refusal
from bot.vocab.usertext import html_text

JOB_NAME = "clock"
INTERVAL_ENV = "NARDY_CLOCK_INTERVAL"
NO_TIMED_GAME = N_("You have no game with a clock here.")


# ---------------------------------------------------------------- the job


def interval() -> float:
    """Seconds between two ticks of the clock job (``NARDY_CLOCK_INTERVAL``, default 5)."""
    return float(os.environ.get(INTERVAL_ENV) or 5)


async def tick_job(context: Context) -> None:
    """The repeating job: wake up the games that are due, send the delayed
turn pings and do what follows the booked ends no worker followed up (see
:mod:`bot.store.clock`)."""
    store = context.bot_data.get("store")
    if store is None:  # Redis not open yet
        return

    async def act_here(record: GameRecord, stage: int) -> None:
        await act(context, record, stage)

    async def ping_here(record: GameRecord) -> None:
        await ping_in_chat(context, record)

    now = clock.now()
    await store.clock.tick(now, act_here)
    await store.clock.ping_tick(now, ping_here)  # delayed turn pings (bot/store/clock.py)
    # what follows a booked end whose worker died before it (the first tick after
    # a start-up too): the analysis keep, level=auto, a tournament's result
    await store.clock.ends_tick(now, functools.partial(ending.after_end, store))


async def act(context: Context, record: GameRecord, stage: int) -> None:
    """Say what the due ``stage`` of the record's clock says (:func:`notice`)."""
    due = notice(record, stage)
    if due is None:
        return
    if due.timed_out:
        await offer_timeout(context, record, due)
    else:
        await remind(context, record, due)


async def _user_translator(context: Context, user_id: int) -> Translator:
    """A message to ``user_id`` in their private chat with the bot."""
    return await addressee_translator(context, user_id, user_id)


async def remind(context: Context, record: GameRecord, due: Notice) -> None:
    """Remind the player the game waits for (unless they muted reminders)."""
    store = get_store(context)
    user_id, opponent = due.late.user_id, due.opponent
    if await store.prefs.is_muted(user_id):
        return
    assert record.deadline is not None  # a reminder's notice has one
    left = record.deadline - clock.now()
    if record.is_private or await store.prefs.has_started(user_id):
        tr = await _user_translator(context, user_id)
        text = "⏰ " + tr.gettext(
            "Your move against {opponent} ({variant}) is waiting: {left} left.",
            opponent=html_text(opponent.name), variant=escape(variant_name(tr, record.variant)),
            left=duration(tr, left))
        try:
            await context.bot.send_message(user_id, text, reply_markup=mute_keyboard(
                tr, record.game_id, game_link(record)))
            return
        except (Forbidden, BadRequest) as error:  # blocked the bot since, or never started
            if not unreachable(error):  # it (an inline game's player): the chat instead
                raise
            await store.prefs.forget_started(user_id)
            if record.is_private:
                return
    tr = await addressee_translator(context, user_id, record.chat_id)
    text = "⏰ " + tr.gettext("{who}, your move is waiting: {left} left.",
                              who=mention(user_id, due.late.name), left=duration(tr, left))
    await _post(context, record, text, mute_keyboard(tr, record.game_id))


async def _post(context: Context, record: GameRecord, text: str,
                markup: InlineKeyboardMarkup) -> None:
    # the bot may have been removed from the chat: /board there brings the game back
    with contextlib.suppress(Forbidden):
        await send(context, record, text, markup)


def _proposal(tr: Translator, record: GameRecord) -> InlineKeyboardMarkup | None:
    """Agree / No under a pending proposal to pause or resume, else nothing."""
    if record.pause_by is None:
        return None
    return proposal_keyboard(tr, record.game_id, paused=record.paused_at is not None)


async def offer_timeout(context: Context, record: GameRecord, due: Notice) -> None:
    """The deadline passed: the opponent may claim the win or give more time."""
    late, winner = due.late, due.opponent
    cube = table_of(record).game.cube_value
    private = record.is_private
    tr = await (_user_translator(context, winner.user_id) if private
                else addressee_translator(context, winner.user_id, record.chat_id))
    text = "⌛ " + tr.gettext(
        "{late} ran out of time. {who}: claim the win ({points}) or give more time?",
        late=html_text(late.name), who=mention(winner.user_id, winner.name),
        points=tr.ngettext("{n} point", "{n} points", cube, n=cube))
    if private:
        try:
            await context.bot.send_message(winner.user_id, text,
                                           reply_markup=timeout_offer(tr, record))
        except (Forbidden, BadRequest) as error:  # an inline game's board offers it too
            if not unreachable(error):
                raise
    else:
        await _post(context, record, text, timeout_offer(tr, record))
    await edit(context, tr, record)  # the board says the time ran out


# ---------------------------------------------------------------- buttons


async def _find_game(context: Context, user_id: int, game_id: str,
                     inline_id: str | None = None) -> GameRecord | None:
    """One of the user's open games by id (clock buttons may be in a private
    chat); tapped on an inline message (``inline_id``): only that message's game."""
    for record in await get_store(context).games.user_games(user_id):
        if record.game_id == game_id and (inline_id is None
                                          or record.inline_message_id == inline_id):
            return record
    return None


def _change(action: ButtonAction, record: GameRecord, user_id: int, now: float) -> GameRecord:
    if action is ButtonAction.CLAIM_WIN:
        return claim_timeout(record, user_id, now)
    if action is ButtonAction.MORE_TIME:
        return more_time(record, user_id, now)
    if action is ButtonAction.PAUSE_NO:
        return drop_pause_request(record, user_id)
    return pause_request(record, user_id, now, pause=action is ButtonAction.PAUSE)


async def change_clock(context: Context, user_id: int, game_id: str, action: ButtonAction, *,
                       inline_id: str | None = None, chat_id: int | None = None
                       ) -> tuple[GameRecord, GameRecord]:
    """Apply a clock action to the user's game (the one on inline message
    ``inline_id``, if given) by compare-and-set (re-read on a conflict);
    returns (before, after).  :class:`Refusal` when not allowed.  ``chat_id``:
    the chat the button was tapped in, where a game that is none of the
    user's may still be open (not "over" to a bystander: issue 37)."""
    changed = await commit_game(get_store(context),
                                lambda: _find_game(context, user_id, game_id, inline_id),
                                lambda record, now: _change(action, record, user_id, now))
    if changed is None:
        there = (None if chat_id is None
                 else await get_store(context).games.load_game(chat_id, game_id))
        if there is not None and there.status.is_open and seat_of(there, user_id) is None:
            raise Refusal(NOT_PLAYING)
        raise Refusal(N_("This game is over."))
    return changed


def outcome_text(tr: Translator, before: GameRecord, after: GameRecord, user_id: int) -> str:
    """What a clock change did, for the message it was made on (or the command's reply)."""
    name = html_text(next(p.name for p in after.players if p.user_id == user_id))
    if after.status is Status.FINISHED:
        return "🏁 " + tr.gettext("{name} claimed the win on time.", name=name)
    if after.paused_at is not None and before.paused_at is None:
        return "⏸ " + tr.gettext("The clock is paused. /resume starts it again.")
    if after.paused_at is None and before.paused_at is not None:
        return "▶ " + tr.gettext("The clock runs again: {time} for the next move.",
                                 time=duration(tr, (after.deadline or 0) - clock.now()))
    if after.deadline != before.deadline and after.deadline is not None:
        return "⏳ " + tr.gettext("{name} gave {time} more.", name=name,
                                  time=duration(tr, after.deadline - clock.now()))
    if after.pause_by is None:
        return tr.gettext("{name} said no.", name=name)
    if after.paused_at is not None:
        return tr.gettext("{name} proposes to resume the clock.", name=name)
    return tr.gettext("{name} proposes to pause the clock.", name=name)


async def on_clock_button(update: Update, context: Context) -> None:
    query, user = update.callback_query, update.effective_user
    assert query is not None and user is not None
    tr = await translator_for(update, context)
    data = await parse_tap(query, tr)
    # on an inline game's board (no message shown to the bot): that game's own buttons only
    inline_id = query.inline_message_id
    if data is None or (inline_id is None and not await own_button(query, tr)):
        return
    if data.action in (ButtonAction.MUTE, ButtonAction.UNMUTE):
        muted = data.action is ButtonAction.MUTE
        await get_store(context).prefs.set_muted(user.id, muted)
        await query.answer(tr.gettext(MUTED if muted else UNMUTED), show_alert=True)
        return
    try:
        before, after = await change_clock(
            context, user.id, data.id, data.action, inline_id=inline_id,
            chat_id=query.message.chat.id if query.message is not None else None)
    except Refusal as refusal:
        await query.answer(alert_text(tr, refusal), show_alert=True)
        return
    await query.answer()
    if after is before:
        return
    message = query.message
    if message is not None and message.is_accessible:
        markup = _proposal(tr, after)
        with contextlib.suppress(BadRequest):  # deleted meanwhile
            await context.bot.edit_message_text(outcome_text(tr, before, after, user.id),
                                                chat_id=message.chat.id,
                                                message_id=message.message_id,
                                                reply_markup=markup)
    await edit(context, tr, after)


# ---------------------------------------------------------------- commands


MUTED = N_("Reminders are off for you in every game. /unmute turns them on again.")
UNMUTED = N_("Reminders are on again.")


async def mute(update: Update, context: Context) -> None:
    await _set_muted(update, context, True)


async def unmute(update: Update, context: Context) -> None:
    await _set_muted(update, context, False)


async def _set_muted(update: Update, context: Context, muted: bool) -> None:
    tr = await translator_for(update, context)
    user = update.effective_user
    assert user is not None
    await get_store(context).prefs.set_muted(user.id, muted)
    await reply(update, tr.gettext(MUTED if muted else UNMUTED))


def _timed(record: GameRecord, user_id: int) -> bool:
    """A game /pause and /resume may mean: being played, by the caller, with a clock."""
    return (record.status is Status.ACTIVE and seat_of(record, user_id) is not None
            and record.options.time_control is not None)


async def _pause_or_resume(update: Update, context: Context, tr: Translator,
                           record: GameRecord, action: ButtonAction) -> None:
    user = update.effective_user
    assert user is not None
    try:
        before, after = await change_clock(context, user.id, record.game_id, action)
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    if after is before:
        await reply(update, tr.gettext("The clock is paused already.")
                    if action is ButtonAction.PAUSE else tr.gettext("The clock is running."))
        return
    markup = _proposal(tr, after)
    await reply(update, outcome_text(tr, before, after, user.id), reply_markup=markup)
    await edit(context, tr, after)


async def _pause(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    await _pause_or_resume(update, context, tr, record, ButtonAction.PAUSE)


async def _resume(update: Update, context: Context, tr: Translator, record: GameRecord) -> None:
    await _pause_or_resume(update, context, tr, record, ButtonAction.RESUME)


PAUSE = which.need("pause", _timed, _pause, nothing=NO_TIMED_GAME)
RESUME = which.need("resume", _timed, _resume, nothing=NO_TIMED_GAME)


async def pause(update: Update, context: Context) -> None:
    await which.run(update, context, PAUSE)


async def resume(update: Update, context: Context) -> None:
    await which.run(update, context, RESUME)


CLOCK = DefaultOption(
    name="time_control",
    parse=lambda args: clock.parse_time_control(args[0]),
    usage=lambda tr: tr.gettext("time is the limit per move, 1h to 14d: time=12h, time=1d, "
                                "time=3d or time=none."),
    not_admin=N_("Only chat admins can change the settings."),
    shown=lambda tr, limit: _default_text(tr, limit),
    changed=lambda tr, limit: _default_text(tr, limit),
)


async def clock_command(update: Update, context: Context) -> None:
    """``/clock``: show the chat's default time control; ``/clock 1d`` sets it (admins)."""
    await default_option_command(update, context, CLOCK)


def _default_text(tr: Translator, limit: int | None) -> str:
    if limit is None:
        return tr.gettext("New games here have no clock. /clock 1d sets one (1h to 14d per move).")
    return tr.gettext("New games here have {time} per move (/new … time=none for none).",
                      time=duration(tr, limit))


async def note_private(update: Update, context: Context) -> None:
    """Any private message: the user started the bot, so reminders may go there."""
    user = update.effective_user
    if user is None:
        return
    store = get_store(context)
    await store.prefs.note_started(user.id)  # its language: common.note_language

