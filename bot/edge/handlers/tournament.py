"""Tournaments in a group: ``/tournament``, its lobby's buttons, ``/standings``,
``/league``, and the job that posts rounds, decides deadlines and posts the end.

Parse -> rule (bot/rules/tournament/) -> save (bot/service/tournament.py) ->
show (bot/present/tournament.py).  Every change is one compare-and-set of
the tournament record; what the chat must be shown then (a round's pairings
and boards, the deadline's verdicts, the final standings) is done by
:func:`process`, run at once after a button and by the repeating
:func:`tick_job` for whatever a game's end, a deadline or a start time asks,
in a lane per chat (one chat's round never waits for another's)
(any worker: the wake-up queue leases each tournament to one process; a
second run finds the work done in the record and does nothing twice).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Message,
    Update,
    User,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden

from bot.edge import ops
from bot.edge.handlers.board import (
    announce,
    board_translator,
    edit,
    game_link,
    is_not_modified,
    repost,
    unreachable,
)
from bot.edge.handlers.common import (
    Context,
    addressee_translator,
    alert_text,
    args_of,
    chat_settings,
    display_name,
    get_dealer,
    get_store,
    is_chat_admin,
    own_button,
    parse_tap,
    refusal_text,
    replied_user,
    reply,
    thread_of,
    translator_for,
)
from bot.present import tournament as present
from bot.present.render.tournament import render_standings
from bot.rules import tournament as rules
from bot.rules.autoplay import with_chat_autoplay
from bot.rules.ledger import with_chat_stake
from bot.rules.options import (
    OptionError,
    check_asked,
    engine_options,
    parse_new_args,
    with_chat_clock,
)
from bot.rules.tournament import league
from bot.rules.tournament.league import SeasonError
from bot.rules.tournament.prizes import nets
from bot.service import saving
from bot.service import tournament as service
from bot.store import Store, VersionConflict
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status, new_game_id
from bot.vocab.refusals import STALE, Refusal
from bot.vocab.tournament import Decision, Pairing, TournamentRecord
from bot.vocab.usertext import clean, html_text

log = logging.getLogger(__name__)

JOB_NAME = "tournaments"
INTERVAL_ENV = "NARDY_TOURNAMENT_INTERVAL"
GROUPS_ONLY = N_("Tournaments are played in groups: add the bot to a group and send "
                 "/tournament there.")
IN_GROUPS = N_("Tournaments and league tables are kept in groups: send this in the group.")
NO_COMPUTER = N_("Tournaments are between people: leave out bot and level=.")
ADMINS_ONLY = N_("Only chat admins create tournaments here (/settings).")
NO_TOURNAMENT = N_("There is no tournament in this chat yet: /tournament starts one.")
BAD_MONTH = N_("/league shows this month; /league 2026-11 another one.")
ADMINS_SEASONS = N_("Only chat admins start and end league seasons here (/settings).")
SEASON_STARTED = N_("🏅 The season {name} has started: every rated game in this chat counts "
                    "in its table until /league end. /league shows it.")
NOT_YOURS = N_("Only the player or a chat admin may withdraw a player.")
CANCEL_WORD = "cancel"
"""``/tournament cancel``: cancel the chat's tournament (after a confirmation)."""
WITHDRAWN_NOW = N_("{name} withdrew from the tournament: their game being played is lost by "
                   "forfeit, their games played stand.")


LOBBY_ACTIONS = frozenset({ButtonAction.JOIN, ButtonAction.LEAVE, ButtonAction.START,
                           ButtonAction.DROP})
"""The buttons of a tournament's lobby message (its record's ``message_id``);
🔄 Standings and 🏳 Withdraw are on every standings message too."""


def interval() -> float:
    """Seconds between two runs of :func:`tick_job` (``NARDY_TOURNAMENT_INTERVAL``, 5)."""
    return float(os.environ.get(INTERVAL_ENV) or 5)


# ---------------------------------------------------------------- commands


async def tournament_command(update: Update, context: Context) -> None:
    """``/tournament [format] [options]``: a tournament's lobby in this chat."""
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if chat.type == ChatType.PRIVATE:
        await reply(update, tr.gettext(GROUPS_ONLY))
        return
    if [word.lower() for word in args_of(context)] == [CANCEL_WORD]:
        await _ask_cancel(update, context, tr, chat, user.id)
        return
    settings = await chat_settings(context, chat.id)
    if settings.tournaments == "admins" and not await is_chat_admin(context, chat, user.id):
        await reply(update, tr.gettext(ADMINS_ONLY))
        return
    # the id follows from the update: a retry finds this tournament, not a second one
    tournament_id = new_game_id()
    try:   # one open lobby per member (but this command's own, made by its first try)
        rules.actions.may_create([t for t in await get_store(context).tournament.open_ones(chat.id)
                                  if t.tournament_id != tournament_id], user.id)
        setup, rest = rules.parse_setup(args_of(context))
        variant, options = parse_new_args(rest)
        if options.computer is not None:
            raise Refusal(NO_COMPUTER)
        variant = variant or settings.variant
        check_asked(rest, variant)
        options = with_chat_stake(rest, options, settings.options.stake_per_point)
        options = with_chat_clock(rest, options, settings.options.time_control)
        options = with_chat_autoplay(rest, options, settings.autoplay)
        engine_options(variant, options)
        for length in {*setup.round_matches, setup.final_match} - {0}:   # each round's
            engine_options(variant, options.model_copy(update={"match_length": length}))
    except (Refusal, OptionError) as refusal:
        await reply(update, refusal_text(tr, refusal), quote=True)
        return
    record = rules.create(chat.id, thread_of(update.effective_message), user.id, variant,
                          options, setup, clock.now())
    record = record.model_copy(update={"tournament_id": tournament_id})
    try:   # checked again where it is saved: commands sent at once
        saved = await service.create(get_store(context), record)
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal), quote=True)
        return
    if saved.message_id is None:
        await _post_lobby(context, await _chat_translator(context, saved), saved)


async def _ask_cancel(update: Update, context: Context, tr: Translator, chat: Chat,
                      user_id: int) -> None:
    """``/tournament cancel``: the chat's open tournament the sender may cancel,
    named, with a button that cancels it (the rule is asked again when it is
    tapped); several: one button each.  None: the refusal of the one
    /standings would show, naming it."""
    store = get_store(context)
    open_ones = await store.tournament.open_ones(chat.id)
    admin = await is_chat_admin(context, chat, user_id)
    now = clock.now()
    mine = []
    for each in open_ones:
        with contextlib.suppress(Refusal):
            rules.cancel(each, user_id, admin, now)
            mine.append(each)
    if len(mine) > 1:
        text, choice = present.cancel_choice(tr, mine)
        await reply(update, text, reply_markup=choice)
        return
    record = mine[0] if mine else await _newest(store, chat.id, user_id,
                                                thread_of(update.effective_message))
    if record is None:
        await reply(update, tr.gettext(NO_TOURNAMENT))
        return
    try:
        rules.cancel(record, user_id, admin, now)
    except Refusal as refusal:
        await reply(update, present.refused_for(tr, record, refusal_text(tr, refusal)))
        return
    text, markup = present.cancel_prompt(tr, record)
    await reply(update, text, reply_markup=markup)


async def _in_group(update: Update, context: Context) -> tuple[Translator, Chat, User] | None:
    """A group's command: its translator, chat and sender; None for one sent
    in a private chat, which keeps no tournament and no league (answered so)."""
    tr = await translator_for(update, context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if chat.type == ChatType.PRIVATE:
        await reply(update, tr.gettext(IN_GROUPS))
        return None
    return tr, chat, user


async def _post_lobby(context: Context, tr: Translator, record: TournamentRecord) -> None:
    """Post the lobby message, drawn for the version that saves its id."""
    drawn = record.model_copy(update={"version": record.version + 1})
    text, markup = present.lobby_message(tr, drawn)
    message = await context.bot.send_message(record.chat_id, text, reply_markup=markup,
                                             message_thread_id=record.thread_id)
    changed = await service.commit_tournament(
        get_store(context), record.chat_id, record.tournament_id,
        lambda r, at: r if r.message_id is not None
        else r.model_copy(update={"message_id": message.message_id}))
    if changed is not None and changed[1].version != drawn.version:   # joined meanwhile
        await _redraw_lobby(context, tr, changed[1])


async def _newest(store: Store, chat_id: int, user_id: int, thread_id: int | None
                  ) -> TournamentRecord | None:
    """The tournament a command means: a running one first, then one
    ``user_id`` plays in, then one of this topic, then the newest (with
    several at once, the chat's newest was somebody else's)."""
    open_ones = await store.tournament.open_ones(chat_id)

    def key(t: TournamentRecord) -> tuple[bool, bool, bool]:
        return (t.status is Status.ACTIVE, any(e.user_id == user_id for e in t.entrants),
                t.thread_id == thread_id)

    return max(reversed(open_ones), key=key, default=None)   # the newest of the best


async def _last_ended(store: Store, chat_id: int) -> TournamentRecord | None:
    """The tournament that ended last and has a table (finished, or
    cancelled after it started)."""
    over = [t for t in await store.tournament.ended_ones(chat_id) if t.rounds]
    return max(over, key=lambda t: t.updated_at, default=None)


async def standings_command(update: Update, context: Context) -> None:
    """``/standings``: the standings of the chat's running tournament (or
    lobby), else the final table of the one that ended last."""
    sent = await _in_group(update, context)
    if sent is None:
        return
    tr, chat, user = sent
    where = thread_of(update.effective_message)
    store = get_store(context)
    record = await _newest(store, chat.id, user.id, where) or await _last_ended(store, chat.id)
    if record is None:
        await reply(update, tr.gettext(NO_TOURNAMENT))
        return
    await _post_standings(context, tr, record, where)


async def _post_standings(context: Context, tr: Translator, record: TournamentRecord,
                          thread_id: int | None = None) -> None:
    """The standings in the chat (in the topic ``thread_id`` asked from, else
    the tournament's): a picture where the chat's boards are pictures (its
    caption says what it is), else the text table."""
    thread_id = thread_id or record.thread_id
    settings = await chat_settings(context, record.chat_id)
    store = get_store(context)
    if settings.board_style == "png":
        content = present.standings_picture(tr, record)
        caption = present.standings_caption(tr, record)
        keyboard = present.standings_keyboard(tr, record)
        picture = await asyncio.to_thread(render_standings, content)
        sent = await context.bot.send_photo(record.chat_id, picture, caption=caption,
                                            reply_markup=keyboard, message_thread_id=thread_id)
        # what it shows, so that 🔄 Standings sends nothing while it is so
        await store.tournament.shows(record.chat_id, sent.message_id,
                                     _digest((content, caption), keyboard))
        return
    text, markup = present.standings_message(tr, record)
    sent = await context.bot.send_message(record.chat_id, text, reply_markup=markup,
                                          message_thread_id=thread_id)
    await store.tournament.shows(record.chat_id, sent.message_id, _digest(text, markup))


def _digest(content: object, markup: InlineKeyboardMarkup | None) -> str:
    """What a message shows (its text, or its picture's content, and its
    buttons), hashed: :meth:`Tournaments.shows` compares it."""
    shown = json.dumps([repr(content), markup.to_dict() if markup else None], sort_keys=True)
    return hashlib.sha256(shown.encode()).hexdigest()[:32]


async def _redraw_standings(context: Context, tr: Translator, record: TournamentRecord,
                            shown: Message) -> bool:
    """🔄 Standings tapped under the standings: that message shows them as
    they are now (nothing is sent when they did not change); False when it
    cannot (the chat's boards changed between picture and text)."""
    settings = await chat_settings(context, record.chat_id)
    if (settings.board_style == "png") != bool(shown.photo):
        return False
    if not shown.photo:
        text, markup = present.standings_message(tr, record)
        await _edit(context, record.chat_id, shown.message_id, text, markup)
        return True
    content = present.standings_picture(tr, record)
    caption = present.standings_caption(tr, record)
    keyboard = present.standings_keyboard(tr, record)
    store = get_store(context)
    if not await store.tournament.shows(record.chat_id, shown.message_id,
                                        _digest((content, caption), keyboard)):
        return True
    picture = await asyncio.to_thread(render_standings, content)
    try:
        await context.bot.edit_message_media(
            InputMediaPhoto(picture, caption=caption, parse_mode=ParseMode.HTML),
            chat_id=record.chat_id, message_id=shown.message_id, reply_markup=keyboard)
    except BadRequest as error:   # deleted: the next tap tries again
        if not is_not_modified(error):
            await store.tournament.unshown(record.chat_id, shown.message_id)
    return True


async def withdraw_command(update: Update, context: Context) -> None:
    """``/withdraw``: the sender leaves the chat's running tournament; a chat
    admin's ``/withdraw`` in reply to a player's message withdraws that player.
    Either is asked once more (**🏳 Withdraw for good**, :func:`_withdrawn`)."""
    sent = await _in_group(update, context)
    if sent is None:
        return
    tr, chat, user = sent
    store = get_store(context)
    target = replied_user(update.effective_message) or user
    record = await _newest(store, chat.id, target.id, thread_of(update.effective_message))
    if record is None:
        await reply(update, tr.gettext(NO_TOURNAMENT))
        return
    if target.id != user.id and not await is_chat_admin(context, chat, user.id):
        await reply(update, tr.gettext(NOT_YOURS))
        return
    try:
        rules.withdraw(record, target.id, clock.now())   # asked only if it may be done
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    text, markup = present.withdraw_prompt(tr, record, target.id)
    await reply(update, text, reply_markup=markup)


async def league_command(update: Update, context: Context) -> None:
    """``/league``: the running named season's table, else this month's;
    ``/league 2026-11`` or ``/league Winter cup``: a month's or a kept
    season's; ``/league start Winter cup`` (whoever may create tournaments
    here: /settings) and ``/league end`` (its starter or a chat admin): a named
    season; ``/league erase Winter cup``: a chat admin erases an ended one."""
    sent = await _in_group(update, context)
    if sent is None:
        return
    tr, chat, user = sent
    store = get_store(context)
    args = args_of(context)
    word = args[0].lower() if args else ""
    now = clock.now()
    try:
        admin = word in league.WORDS and await is_chat_admin(context, chat, user.id)
        if word in league.WORDS:
            settings = await chat_settings(context, chat.id)
            if settings.tournaments == "admins" and not admin:
                raise Refusal(ADMINS_SEASONS)
        if word == "start":
            season = league.started(new_game_id(), league.season_name(args[1:]), user.id, now)
            season = await service.start_season(store, chat.id, season)
            await reply(update, tr.gettext(SEASON_STARTED, name=html_text(season.name)))
            return
        if word == "erase":
            season = await service.erase_season(store, chat.id, " ".join(args[1:]), admin)
            await reply(update, tr.gettext(league.ERASED, name=html_text(season.name)))
            return
        if word == "end":
            season = await service.end_season(store, chat.id, user.id, admin, now)
            rows, who = await service.season_table(store, chat.id, season)
            await reply(update, present.league_message(tr, season.name, rows, who,
                                                       present.season_dates(tr, season)))
            return
        running, kept, _ = await store.tournament.league.seasons(chat.id)
        asked = " ".join(args)
        named = league.named(kept, asked) if args else running
        if named is not None:
            rows, who = await service.season_table(store, chat.id, named)
            await reply(update, present.league_message(tr, named.name, rows, who,
                                                       present.season_dates(tr, named)))
            return
        try:
            month = league.month_named(asked) if args else league.month(now)
        except SeasonError:
            if league.MONTH.fullmatch(asked):
                raise Refusal(BAD_MONTH) from None
            raise Refusal(league.NO_SUCH_SEASON, name=clean(asked, league.SEASON_NAME),
                          names=", ".join(s.name for s in kept) or "—") from None
        rows, who = await service.month_table(store, chat.id, month)
        await reply(update, present.league_message(tr, month.name, rows, who))
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))


# ---------------------------------------------------------------- buttons


async def on_tournament_button(update: Update, context: Context) -> None:
    """Join, Leave, ▶ Start, ✖ Cancel on the lobby; 🔄 Standings, 🏳 Withdraw."""
    query = update.callback_query
    assert query is not None and query.message is not None
    tr = await translator_for(update, context)
    data = await parse_tap(query, tr)
    if data is None or not await own_button(query, tr):  # a tap may edit its message
        return
    chat = query.message.chat
    store = get_store(context)
    user = query.from_user
    record: TournamentRecord | None = None
    try:
        record = await store.tournament.load(chat.id, data.id)
        if record is None or (data.action in LOBBY_ACTIONS and record.message_id is not None
                              and query.message.message_id != record.message_id):
            raise Refusal(STALE)   # another tournament's button, not on its lobby
        asked = query.message if isinstance(query.message, Message) else None
        if data.action is ButtonAction.STANDINGS:
            await query.answer()
            if asked is not None and asked.message_id != record.message_id \
                    and await store.tournament.shown(chat.id, asked.message_id) \
                    and await _redraw_standings(context, tr, record, asked):
                return   # 🔄 under standings the bot posted: in place (the lobby's
                # or a game board's 📋 Standings post them)
            await _post_standings(context, tr, record, thread_of(asked))   # where it was asked
            return
        if data.action is ButtonAction.QUIT:   # asked once more, if it may be done
            rules.withdraw(record, user.id, clock.now())
            await query.answer()
            text, markup = present.withdraw_prompt(tr, record, user.id)
            await context.bot.send_message(chat.id, text, reply_markup=markup,
                                           message_thread_id=thread_of(asked))
            return
        change = await _change(context, data, record, user.id, display_name(user), chat)
        changed = await service.commit_tournament(store, chat.id, data.id, change)
    except Refusal as refusal:
        await query.answer(alert_text(tr, refusal), show_alert=True)
        if record is not None and data.action is ButtonAction.END and not record.status.is_open:
            await _redraw_prompt(context, query, tr, record)   # over already: no button left on it
        return
    await query.answer()
    if data.action is ButtonAction.QUIT_SURE and changed is not None:   # the prompt says it
        gone = record.entrants[data.args[0]].name
        with contextlib.suppress(BadRequest):  # deleted
            await query.edit_message_text(tr.gettext(WITHDRAWN_NOW, name=html_text(gone)))
    if data.action is ButtonAction.END and changed is not None:
        await _redraw_prompt(context, query, tr, changed[1])
    if changed is not None and changed[1] is not changed[0]:
        # in the chat's language, not the tapper's (as process draws it)
        await _redraw_lobby(context, await _chat_translator(context, changed[1]), changed[1])
        if data.action not in (ButtonAction.JOIN, ButtonAction.LEAVE):   # a lobby waits on
            await process(context, chat.id, data.id)


async def _redraw_prompt(context: Context, query: CallbackQuery, tr: Translator,
                         record: TournamentRecord) -> None:
    text, markup = present.cancel_prompt(tr, record)
    if isinstance(query.message, Message):
        await _edit(context, query.message.chat.id, query.message.message_id, text, markup)


async def _edit(context: Context, chat_id: int, message_id: int, text: str,
                markup: InlineKeyboardMarkup | None) -> None:
    """Edit a tournament's message, unless the bot made it show exactly that
    already: the Bot API refuses such an edit ("message is not modified"), as
    the lobby of a cancelled tournament was, redrawn by the tap and by the end."""
    store = get_store(context)
    if not await store.tournament.shows(chat_id, message_id, _digest(text, markup)):
        return
    try:
        await context.bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                            reply_markup=markup)
    except BadRequest as error:   # deleted (or shown already: kept so)
        if not is_not_modified(error):
            await store.tournament.unshown(chat_id, message_id)


async def _change(context: Context, data: Callback, record: TournamentRecord, user_id: int,
                  name: str, chat: Chat) -> service.Change:
    """The rule a button asks for, with what it needs read first."""
    action = data.action
    if action is ButtonAction.JOIN:
        return lambda r, now: rules.join(r, user_id, name, now)
    if action is ButtonAction.LEAVE:
        return lambda r, now: rules.leave(r, user_id, now)
    if action is ButtonAction.START:
        ratings = await service.ratings(get_store(context), record)
        return lambda r, now: rules.start(r, user_id, ratings, now)
    if action is ButtonAction.QUIT_SURE:   # the player's own confirmation, or an admin's
        if data.args[0] >= len(record.entrants):
            raise Refusal(STALE)
        target = record.entrants[data.args[0]].user_id
        if target != user_id and not await is_chat_admin(context, chat, user_id):
            raise Refusal(NOT_YOURS)
        return lambda r, now: rules.withdraw(r, target, now)
    if action in (ButtonAction.DROP, ButtonAction.END):
        admin = await is_chat_admin(context, chat, user_id)
        return lambda r, now: rules.cancel(r, user_id, admin, now)
    raise Refusal(STALE)


# ---------------------------------------------------------------- the job


LANES = "tournament_lanes"
"""bot_data: chat id -> the tournaments its lane has still to process, in order."""


async def tick_job(context: Context) -> None:
    """The repeating job: every tournament whose wake-up is due is handed to
    its chat's lane (:func:`_lane`), and the job returns at once.  A chat's
    work is posted at its chat's pace (20 messages a minute in a group): done
    by the job itself, one 64-player round held up every other chat's
    tournaments for minutes (the job runs one at a time)."""
    store = context.bot_data.get("store")
    if store is None:  # Redis not open yet
        return
    lanes: dict[int, dict[str, None]] = context.bot_data.setdefault(LANES, {})
    for chat_id, tournament_id in await store.tournament.claim(clock.now()):
        waiting = lanes.get(chat_id)
        if waiting is not None:   # its lane runs: it takes this one next
            waiting.setdefault(tournament_id, None)
            continue
        lanes[chat_id] = {tournament_id: None}
        ops.off_slot(_lane(context, lanes, chat_id))


async def _lane(context: Context, lanes: dict[int, dict[str, None]], chat_id: int) -> None:
    """Process a chat's due tournaments one after another (one chat's work in
    order), beside every other chat's lane; ends when none is left."""
    waiting = lanes[chat_id]
    try:
        while waiting:
            tournament_id = next(iter(waiting))
            del waiting[tournament_id]
            try:
                await process(context, chat_id, tournament_id)
            except Exception:  # one tournament's failure (Telegram down) holds up no other
                log.exception("tournament %s:%s", chat_id, tournament_id)
    finally:
        del lanes[chat_id]


async def process(context: Context, chat_id: int, tournament_id: str) -> None:
    """Do what the tournament waits for: start it at its time, decide a
    round whose deadline passed, tell the chat a new round and post its
    games' boards, post the end; then set its next wake-up."""
    store = get_store(context)
    record = await store.tournament.load(chat_id, tournament_id)
    if record is None:  # moved with its chat to a supergroup: woken there
        await store.tournament.forget(chat_id, tournament_id)
        return
    tr = await _chat_translator(context, record)
    now = clock.now()
    if record.status is Status.LOBBY and record.start_at is not None and now >= record.start_at:
        ratings = await service.ratings(store, record)
        record = await _commit(store, record, lambda r, at: r if r.status is not Status.LOBBY
                               else rules.start_due(r, ratings, at))
        await _redraw_lobby(context, tr, record)
    current = record.rounds[-1] if record.rounds else None
    if record.status is Status.ACTIVE and current is not None and current.deadline is not None \
            and now >= current.deadline and not current.done:
        record = await _deadline(context, tr, record)
    if record.status is Status.ACTIVE:
        record = await _post_round(context, tr, record)
    await _close_forfeited(context, tr, record)
    if not record.status.is_open and not record.closed:
        record = await _post_end(context, tr, record)
    await store.tournament.reschedule(record, service.next_wake(record, clock.now()))
    # a change meanwhile (a game's end) woke it sooner, and the line above
    # replaced that wake-up: set it again (never later than one set since)
    latest = await store.tournament.load(chat_id, tournament_id)
    if latest is not None and latest.version != record.version:
        await store.tournament.wake(latest, service.next_wake(latest, clock.now()))


async def _commit(store: Store, record: TournamentRecord, change: service.Change, *,
                  matches: tuple[str, ...] = ()) -> TournamentRecord:
    changed = await service.commit_tournament(store, record.chat_id, record.tournament_id,
                                              change, matches=matches)
    return record if changed is None else changed[1]


async def _chat_translator(context: Context, record: TournamentRecord) -> Translator:
    settings = await chat_settings(context, record.chat_id)
    return await board_translator(context, settings, await addressee_translator(
        context, record.created_by, record.chat_id))


async def _redraw_lobby(context: Context, tr: Translator, record: TournamentRecord) -> None:
    if record.message_id is None:
        return
    text, markup = present.lobby_message(tr, record)
    await _edit(context, record.chat_id, record.message_id, text, markup)


async def _post_round(context: Context, tr: Translator, record: TournamentRecord
                      ) -> TournamentRecord:
    """Tell the chat the round's pairings (once), then make and post each game.
    Two workers at it at once (a button's and the wake-up's) post each once:
    whoever is second leaves it to the first (``first_to``), and the record
    keeps the tournament awake until it is done (``next_wake``)."""
    store = get_store(context)
    number = record.rounds[-1].number
    if record.announced < number and await store.tournament.first_to(
            record.chat_id, f"{record.tournament_id}:round:{number}"):
        boards = await _chat_translator(context, record)
        await context.bot.send_message(record.chat_id, present.round_message(tr, record, boards),
                                       message_thread_id=record.thread_id)
        byes = tuple(p.first for p in record.rounds[-1].pairings if p.second is None)
        await _tell_privately(context, record, byes, None)   # the others with their boards
        record = await _commit(store, record, lambda r, at: r if r.announced >= number
                               else r.model_copy(update={"announced": number}))
    for pairing in record.rounds[-1].pairings:
        if service.needs_game(pairing):
            record = await _post_game(context, tr, record, pairing)
    return record


async def _post_game(context: Context, tr: Translator, record: TournamentRecord,
                     pairing: Pairing) -> TournamentRecord:
    """Make a pairing's game (its id follows from the pairing: made once),
    post its board (whoever is first to), and name it in the tournament with
    its match once it is posted."""
    store = get_store(context)
    number = record.rounds[-1].number
    game = service.new_game(record, pairing, get_dealer(context))
    try:
        game = await store.games.save(game, 0, limited=False)
    except VersionConflict:  # made before (a retry): post it if it was not
        game = await store.games.load_game(record.chat_id, game.game_id) or game
    if game.board_message_id is None:
        if not await store.tournament.first_to(record.chat_id, f"{game.game_id}:board"):
            return record   # another worker posts it, and names it then
        game = await repost(context, tr, game, strip_old=False)
        if game.board_message_id is not None:
            # its whole commitment kept in a message never edited, before the
            # ▶ Start whose tap is mixed in (the board keeps only 12 digits then)
            await announce(context, tr, None, game)
            await _tell_privately(context, record, pairing.players, game)
    match = service.match_of(game)

    def attach(r: TournamentRecord, at: float) -> TournamentRecord:
        if r.status is not Status.ACTIVE or r.rounds[-1].number != number:
            return r   # cancelled, or the round was decided meanwhile
        now_at = next(p for p in r.rounds[-1].pairings if p.board == pairing.board)
        if not service.needs_game(now_at):
            return r
        return rules.attach_game(r, pairing.board, game.game_id, at)

    after = await _commit(store, record, attach, matches=(match,) if match else ())
    if not any(p.game_id == game.game_id for each in after.rounds for p in each.pairings):
        await _close(context, tr, game)   # nobody will play it: no live ▶ Start is left
    return after


async def _tell_privately(context: Context, record: TournamentRecord,
                          players: tuple[int, ...], game: GameRecord | None) -> None:
    """A player who started the bot is told their pairing (their ``game``'s,
    or their bye) in private too."""
    store = get_store(context)
    link = None if game is None else game_link(game)
    boards = await _chat_translator(context, record)  # the games' boards are drawn in it
    for user_id in players:
        if not await store.prefs.has_started(user_id):
            continue
        tr = await addressee_translator(context, user_id, user_id)
        text = present.pairing_notice(tr, record, user_id, boards)
        if text is None:
            continue
        label = tr.gettext("Open the game")
        markup = None if link is None else InlineKeyboardMarkup(
            [[InlineKeyboardButton(label, url=link)]])
        try:
            sent = await context.bot.send_message(user_id, text, reply_markup=markup)
        except (Forbidden, BadRequest) as error:
            if not unreachable(error):
                raise
            await store.prefs.forget_started(user_id)
            continue
        if game is not None and link is not None:   # follows the board posted anew (▶ Start)
            await store.board.link(game.ref, user_id, sent.message_id, label)


async def _deadline(context: Context, tr: Translator, record: TournamentRecord
                    ) -> TournamentRecord:
    """The round's deadline passed: games being played end on time (booked
    as any game), games nobody started close, and every game not over gets
    its result; the next round is paired in the same change."""
    store = get_store(context)
    number = record.rounds[-1].number
    for pairing in record.rounds[-1].pairings:
        if pairing.result is not None:
            continue
        game = await service.latest_game(store, record.chat_id, pairing.game_id)
        if game is None:
            continue
        if game.status is Status.ACTIVE:
            await _end_on_time(context, tr, game)
        elif game.status is Status.LOBBY:  # nobody tapped ▶ Start: it closes
            await _close(context, tr, game)
    record = await store.tournament.load(record.chat_id, record.tournament_id) or record
    if record.status is not Status.ACTIVE or record.rounds[-1].number != number:
        return record
    verdicts = await service.verdicts(store, record)

    def decide(r: TournamentRecord, at: float) -> TournamentRecord:
        current = r.rounds[-1]
        waiting = {p.board for p in current.pairings if p.result is None}
        if r.status is not Status.ACTIVE or current.number != number or not waiting:
            return r
        return rules.adjudicate(r, {b: verdicts[b] for b in waiting}, at)

    return await _commit(store, record, decide)


async def _close(context: Context, tr: Translator, game: GameRecord) -> None:
    """Close a game's lobby nobody may start any more (its pairing was decided)."""
    closed = game.model_copy(update={"status": Status.CANCELLED})
    with contextlib.suppress(VersionConflict):
        await edit(context, tr, await saving.save(get_store(context), game, closed))


async def _close_forfeited(context: Context, tr: Translator, record: TournamentRecord) -> None:
    """The boards of the last rounds' games decided without being played (a
    withdrawal, a no-show) close at once, also a game being played (its match
    ends unbooked: a forfeit is no game, and nobody may resign or move in it
    later, which once booked a rated result over the forfeit); a cancelled
    tournament's close if nobody started them (games being played go on)."""
    store = get_store(context)
    cancelled = record.status is Status.CANCELLED
    for each in record.rounds[-2:]:
        for pairing in each.pairings:
            if pairing.game_id is None or (pairing.result is None and not cancelled) \
                    or (pairing.result is not None
                        and pairing.result.decision is Decision.PLAYED):
                continue
            if pairing.result is not None:   # forfeited: its match's game now, whatever it is
                game = await service.latest_game(store, record.chat_id, pairing.game_id)
                if game is not None and service.forfeitable(game):
                    await _forfeit(context, tr, game)
                continue
            game = await store.games.load_game(record.chat_id, pairing.game_id)
            if game is not None and game.status is Status.LOBBY:
                await _close(context, tr, game)


async def _forfeit(context: Context, tr: Translator, game: GameRecord) -> None:
    """Close a game (its match) its pairing's forfeit decided: nothing booked,
    its board redrawn without buttons (bot/present/board.py says why)."""
    store = get_store(context)

    async def load() -> GameRecord | None:
        return await store.games.load_game(game.chat_id, game.game_id)

    try:
        changed = await saving.commit_game(store, load, service.forfeited,
                                           retries=service.RETRIES)
    except Refusal:
        return
    if changed is not None and changed[1] is not changed[0]:
        await edit(context, tr, changed[1])


async def _end_on_time(context: Context, tr: Translator, game: GameRecord) -> None:
    """A game being played at the deadline: lost on time by the player it
    waits for, saved (and booked) as any game's end, its board redrawn."""
    store = get_store(context)

    async def load() -> GameRecord | None:
        return await store.games.load_game(game.chat_id, game.game_id)

    try:
        changed = await saving.commit_game(store, load, service.timed_out)
    except Refusal:
        return
    if changed is not None and changed[1] is not changed[0]:
        await edit(context, tr, changed[1])


async def _post_end(context: Context, tr: Translator, record: TournamentRecord
                    ) -> TournamentRecord:
    """Post the final standings (or that it was cancelled), once."""
    store = get_store(context)
    if not await store.tournament.first_to(record.chat_id, f"{record.tournament_id}:end"):
        return record   # another worker posts it
    if record.status is Status.FINISHED:
        await context.bot.send_message(record.chat_id,
                                       present.final_message(tr, record, nets(record)),
                                       message_thread_id=record.thread_id)
    await _redraw_lobby(context, tr, record)
    return await _commit(store, record,
                         lambda r, at: r if r.closed else r.model_copy(update={"closed": True}))
