"""Money and standings: /stake, /ledger, /history, /settle (and its buttons), /stats, /top.

The bot never handles money: the ledger only remembers who owes whom in the
chat's own unit.  Balances change in two ways only: a finished game books
its stake atomically with its end (bot/rules/ledger.py), and /settle zeroes one
pair's balance when the other player confirms exactly that balance.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from html import escape

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    Update,
)

from ai import Level
from bot.edge.handlers.common import (
    Context,
    DefaultOption,
    addressee_translator,
    args_of,
    default_option_command,
    display_name,
    get_store,
    own_button,
    parse_tap,
    refusal_text,
    replied_user,
    reply,
    translator_for,
)
from bot.present.keyboards import settle_answer_keyboard, settle_choice_keyboard
from bot.present.ledger import owes_line, pays_line
from bot.present.names import KIND_NAMES, mention, variant_name
from bot.rules import computer
from bot.rules.ledger import Debt, debts, deviation_of, ledger_table, summed
from bot.rules.options import MAX_STAKE, VARIANT_WORDS, OptionError, parse_new_args
from bot.rules.ratings import is_provisional, shown
from bot.rules.settle import (
    GONE,
    Outdated,
    choice_request,
    chosen,
    may_confirm,
    may_refuse,
    pair_request,
    pick,
    plan,
    with_balance,
)
from bot.store import PlanChanged, Store, StoreError
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import HistoryEntry, PlayerStats, SettleRequest
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import clean, html_text
from engine.position import Side, Variant
from engine.scoring import ResultKind

BALANCE_CHANGED = N_("The balance changed since the request; nothing was booked.")
PROVISIONAL = N_("? — provisional: too few rated games to be sure of the rating yet.")
HISTORY_DEFAULT = 10
HISTORY_MAX = 50
TOP_SIZE = 10


def _chat_id(update: Update) -> int:
    chat = update.effective_chat
    assert chat is not None
    return chat.id


async def names_in(store: Store, chat_id: int) -> dict[int, str]:
    """The names players had in their latest games here (stats, then history)."""
    names: dict[int, str] = {}
    for entry in reversed(await store.ledger.history(chat_id)):
        names.update((p.user_id, p.name) for p in entry.players)
    names.update((s.user_id, s.name) for s in await store.ledger.player_stats(chat_id) if s.name)
    return names


# ---------------------------------------------------------------- /stake


def _stake_of(args: list[str]) -> int:
    """/stake's N: a whole number from 0 to :data:`MAX_STAKE`, else ValueError."""
    try:
        if len(args) == 1:
            return parse_new_args([f"stake={args[0]}"])[1].stake_per_point
    except OptionError:
        pass
    raise ValueError(args)


STAKE = DefaultOption(
    name="stake_per_point",
    parse=_stake_of,
    usage=lambda tr: tr.gettext("Use /stake N with a whole number from 0 to {high}, "
                                "for example /stake 10.", high=MAX_STAKE),
    not_admin=N_("Only chat admins can change the chat's stake."),
    shown=lambda tr, n: tr.gettext("Stake in this chat: {n} per point (for /new without stake=). "
                                   "Change it with /stake N; 0 plays for nothing.", n=n),
    changed=lambda tr, n: tr.gettext("New games here are played for {n} per point.", n=n),
    admin_first=True,  # before the value: it is not theirs
)


async def stake(update: Update, context: Context) -> None:
    await default_option_command(update, context, STAKE)


# ---------------------------------------------------------------- /ledger and /history


async def ledger(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    store = get_store(context)
    chat_id = _chat_id(update)
    balances = await store.ledger.ledger(chat_id)
    names = await names_in(store, chat_id)
    text = ledger_table(tr, debts(balances), names)
    transfers = plan(balances)
    if transfers:
        payments = [pays_text(tr, Debt(t.debtor, t.creditor, t.amount), names)
                    for t in transfers]
        text += "\n\n" + "\n".join([
            tr.gettext("<b>Settle-up plan</b> (the fewest payments that square everybody):"),
            *payments,
            tr.gettext("Settle a payment of the plan with /settle: the two players confirm.")])
    await reply(update, text)


def _bounded_count(tr: Translator, args: list[str]) -> int | str:
    """/history's N, or the message explaining what N may be."""
    if not args:
        return HISTORY_DEFAULT
    if len(args) == 1 and re.fullmatch("[0-9]{1,3}", args[0]) and 1 <= int(args[0]) <= HISTORY_MAX:
        return int(args[0])
    return tr.gettext("Use /history or /history N with N from 1 to {high}.", high=HISTORY_MAX)


REASONS = {
    "resigned": N_("resigned"),
    "double_passed": N_("double passed"),
    "timeout": N_("on time"),
}


def history_line(tr: Translator, entry: HistoryEntry) -> str:
    """One /history line: date, variant, players, result kind, points, stake."""
    when = datetime.datetime.fromtimestamp(entry.finished_at, datetime.UTC)
    head = f"{when:%Y-%m-%d %H:%M} · {variant_name(tr, entry.variant)}: "
    by_side = {p.side: html_text(p.name) for p in entry.players}
    if entry.winner is None:
        names = " – ".join(html_text(p.name) for p in entry.players)
        return head + tr.gettext("{names}, cancelled", names=names)
    kind = tr.gettext(KIND_NAMES[ResultKind(entry.result)])
    if entry.reason in REASONS:
        kind += f" ({tr.gettext(REASONS[entry.reason])})"
    line = head + tr.ngettext(
        "{winner} beat {loser}: {kind}, {n} point", "{winner} beat {loser}: {kind}, {n} points",
        entry.points, winner=by_side.get(entry.winner, "?"),
        loser=by_side.get(Side(entry.winner).opponent, "?"), kind=kind, n=entry.points)
    if entry.score is not None:
        line += "; " + tr.gettext("match to {n}: {w}–{b}", n=entry.match_length,
                                  w=entry.score[0], b=entry.score[1])
    if entry.stake:
        line += "; " + tr.gettext("booked {amount}", amount=entry.stake)
    return line


async def history(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    count = _bounded_count(tr, args_of(context))
    if isinstance(count, str):
        await reply(update, count)
        return
    entries = await get_store(context).ledger.history(_chat_id(update), count)
    if not entries:
        await reply(update, tr.gettext("No finished games here yet."))
        return
    lines = [tr.gettext("<b>Last games</b>")] + [history_line(tr, e) for e in entries]
    await reply(update, "\n".join(lines))


# ---------------------------------------------------------------- /stats and /top


_LEVEL_ORDER = {f"bot-{level.value}": i for i, level in enumerate(computer.LEVELS)}


def _streak(tr: Translator, streak: int) -> str:
    if streak > 0:
        return tr.ngettext("{n} win", "{n} wins", streak, n=streak)
    if streak < 0:
        return tr.ngettext("{n} loss", "{n} losses", -streak, n=-streak)
    return "—"


def stats_block(tr: Translator, stats: PlayerStats, *, elsewhere: bool = False) -> str:
    """A player's numbers in one variant (mars for long nardy, gammons for backgammon);
    ``elsewhere``: their private and inline games added up (no rating, no streak:
    those are each game's own, bot/store/played.py)."""
    long = stats.variant.value == "long"
    big = tr.gettext("Mars won / lost") if long else tr.gettext("Gammons won / lost")
    triple = tr.gettext("Koks won / lost") if long else tr.gettext("Backgammons won / lost")
    title = variant_name(tr, stats.variant)
    if stats.versus:  # "bot-<level>": games against the computer, apart and unrated
        level = computer.LEVEL_NAMES[Level(stats.versus.removeprefix("bot-"))]
        title = tr.gettext("{variant} against the bot ({level})", variant=title,
                           level=tr.gettext(level))
    if elsewhere:
        title = tr.gettext("{variant}: private and inline games", variant=title)
    lines = [
        f"<b>{escape(title)}</b>",
        tr.gettext("Games: {games}, won {wins}", games=stats.games, wins=stats.wins),
        f"{big}: {stats.gammons_won} / {stats.gammons_lost}",
    ]
    if stats.triples_won or stats.triples_lost:
        lines.append(f"{triple}: {stats.triples_won} / {stats.triples_lost}")
    if elsewhere:
        return "\n".join(lines)
    if not stats.versus:
        # FIBS "experience" is the match points a rating has seen: say so, whole numbers
        sure = deviation_of(stats, clock.now())
        lines.append(tr.gettext("Rating: {rating} (rated points played: {exp})",
                                rating=shown(stats.rating, sure), exp=stats.experience))
        if is_provisional(sure):
            lines.append(tr.gettext(PROVISIONAL))
    lines.append(tr.gettext("Streak: {streak}", streak=_streak(tr, stats.streak)))
    return "\n".join(lines)


async def stats(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    user = replied_user(update.effective_message) or update.effective_user
    chat = update.effective_chat
    assert user is not None and chat is not None
    store = get_store(context)
    mine = [s for s in await store.ledger.player_stats(_chat_id(update))
            if s.user_id == user.id and s.games]
    # in the private chat: also the games outside groups (private and inline ones)
    elsewhere = [s for s in summed(await store.played.stats(user.id)) if s.games] \
        if chat.type == Chat.PRIVATE else []
    name = html_text(display_name(user))
    if not mine and not elsewhere:
        await reply(update, tr.gettext("{name} has no finished games here yet.", name=name))
        return
    mine.sort(key=lambda s: (s.versus != "", s.variant.value, _LEVEL_ORDER.get(s.versus, 0)))
    blocks = [f"<b>{name}</b>"] + [stats_block(tr, s) for s in mine] + [
        stats_block(tr, s, elsewhere=True) for s in elsewhere]
    await reply(update, "\n\n".join(blocks))


def top_table(tr: Translator, all_stats: Iterable[PlayerStats],
              variant: Variant | None = None) -> str:
    """/top: per variant, the chat's rated players by rating."""
    by_variant: dict[Variant, list[PlayerStats]] = {}
    for s in all_stats:
        if s.matches and (variant is None or s.variant is variant):
            by_variant.setdefault(s.variant, []).append(s)
    if not by_variant:
        return tr.gettext("Nobody has a rating here yet: finish a game first.")
    blocks = []
    for var in sorted(by_variant, key=lambda v: v.value, reverse=True):
        ranked = sorted(by_variant[var], key=lambda s: (-s.rating, s.user_id))[:TOP_SIZE]
        rows = [f"{i}. {html_text(s.name or str(s.user_id))} — "
                f"{shown(s.rating, deviation_of(s, clock.now()))} "
                + tr.ngettext("({n} game)", "({n} games)", s.games, n=s.games)
                for i, s in enumerate(ranked, 1)]
        blocks.append("\n".join([f"<b>{escape(variant_name(tr, var))}</b>", *rows]))
    return "\n\n".join(blocks)


async def top(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    args = args_of(context)
    variant = VARIANT_WORDS.get(args[0].lower()) if len(args) == 1 else None
    if args and variant is None:
        await reply(update, tr.gettext("Use /top, /top long or /top backgammon."))
        return
    all_stats = await get_store(context).ledger.player_stats(_chat_id(update))
    await reply(update, top_table(tr, all_stats, variant))


# ---------------------------------------------------------------- /settle


def owes_text(tr: Translator, debt: Debt, names: dict[int, str], *, html: bool = True) -> str:
    """"Bob → Ann 30" (:func:`owes_line`), for an HTML message (``html=False``:
    for a button's plain text)."""
    name = html_text if html else clean
    return owes_line(tr, name(names.get(debt.debtor, str(debt.debtor))),
                     name(names.get(debt.creditor, str(debt.creditor))), debt.amount)


def _debt(request: SettleRequest) -> Debt:
    """The pair's balance as the request saw it, or the planned payment it books."""
    assert request.other is not None
    if request.change is not None:  # the requester's balance changes by it
        if request.change < 0:
            return Debt(request.other, request.requester, -request.change)
        return Debt(request.requester, request.other, request.change)
    if request.amount > 0:
        return Debt(request.other, request.requester, request.amount)
    return Debt(request.requester, request.other, -request.amount)


def prompt(tr: Translator, request: SettleRequest) -> tuple[str, InlineKeyboardMarkup]:
    """The confirmation the other player answers."""
    assert request.other is not None
    names = request.names
    text = "\n".join([
        tr.gettext("{requester} asks to settle up: {owes}.",
                   requester=html_text(names[request.requester]),
                   owes=owes_text(tr, _debt(request), names)),
        tr.gettext("{other}, confirm that it is settled? The balance becomes 0.",
                   other=mention(request.other, names[request.other])),
    ]) if request.change is None else "\n".join([
        tr.gettext("{requester} asks to book a payment of the settle-up plan: {pays}.",
                   requester=html_text(names[request.requester]),
                   pays=pays_text(tr, _debt(request), names)),
        tr.gettext("{other}, confirm that it was paid? Only the balance between you two "
                   "changes, by {amount}.", other=mention(request.other, names[request.other]),
                   amount=abs(request.change)),
    ])
    return text, settle_answer_keyboard(tr, request.request_id)


def pays_text(tr: Translator, payment: Debt, names: dict[int, str], *,
              html: bool = True) -> str:
    """"Bob pays Ann 30" (:func:`pays_line`): a payment of the settle-up plan."""
    name = html_text if html else clean
    return pays_line(tr, name(names.get(payment.debtor, str(payment.debtor))),
                     name(names.get(payment.creditor, str(payment.creditor))), payment.amount)


def choices(tr: Translator, request: SettleRequest, balances: dict[int, int]
            ) -> InlineKeyboardMarkup:
    """One button per player the requester has a balance with, then one per
    payment of the settle-up plan the requester makes or receives."""
    owed = []
    for other in request.candidates:
        debt = (Debt(other, request.requester, balances[other]) if balances[other] > 0
                else Debt(request.requester, other, -balances[other]))
        owed.append(owes_text(tr, debt, request.names, html=False))
    paid = []
    for other, change in request.planned:
        payment = (Debt(other, request.requester, -change) if change < 0
                   else Debt(request.requester, other, change))
        paid.append(pays_text(tr, payment, request.names, html=False))
    return settle_choice_keyboard(tr, request.request_id, owed, paid)


async def settle(update: Update, context: Context) -> None:
    tr = await translator_for(update, context)
    user = update.effective_user
    assert user is not None
    store = get_store(context)
    chat_id = _chat_id(update)
    names = await names_in(store, chat_id)
    names[user.id] = display_name(user)
    other = replied_user(update.effective_message)
    if other is not None and other.id == user.id:
        await reply(update, tr.gettext("Reply to the other player's message to settle "
                                       "with them."))
        return
    try:
        if other is not None:
            names[other.id] = display_name(other)
            request = pair_request(chat_id, user.id, other.id,
                                   await store.ledger.balance(chat_id, user.id, other.id), names)
        else:
            request, balances = choice_request(chat_id, user.id, await store.ledger.ledger(chat_id),
                                               names)
    except Refusal as refusal:
        await reply(update, refusal_text(tr, refusal))
        return
    await store.ledger.put_settle(request)
    if other is not None:  # addressed to the other player, in their language
        addressed = await addressee_translator(context, other.id, chat_id, other.language_code)
        text, keyboard = prompt(addressed, request)
        await reply(update, text, reply_markup=keyboard)
        return
    await reply(update, tr.gettext("Settle up with whom? (Or reply to their message with "
                                   "/settle.)"), reply_markup=choices(tr, request, balances))


async def _edit(query_message: object, context: Context, chat_id: int, text: str,
                keyboard: InlineKeyboardMarkup | None = None) -> None:
    message_id = getattr(query_message, "message_id", None)
    if message_id is not None:
        await context.bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                            reply_markup=keyboard)


async def _choose(query: CallbackQuery, context: Context, tr: Translator,
                  request: SettleRequest, data: Callback) -> None:
    """The requester picked a player, or a payment of the settle-up plan: the
    other player confirms."""
    planned = data.action is ButtonAction.SETTLE_PLAN
    other, change = pick(request, query.from_user.id, data.args[0], planned=planned)
    store = get_store(context)
    amount = await store.ledger.balance(request.chat_id, request.requester, other)
    asked = chosen(request, other, amount, change, await store.ledger.ledger(request.chat_id))
    if not await store.ledger.change_settle(request, asked):
        raise Refusal(GONE)
    await query.answer()
    addressed = await addressee_translator(context, other, request.chat_id)
    await _edit(query.message, context, request.chat_id, *prompt(addressed, asked))


async def _refuse(query: CallbackQuery, context: Context, tr: Translator,
                  request: SettleRequest) -> None:
    user = query.from_user
    may_refuse(request, user.id)
    if not await get_store(context).ledger.change_settle(request, None):
        raise Refusal(GONE)
    await query.answer()
    await _edit(query.message, context, request.chat_id, tr.gettext(
        "{name} said no; nothing was settled.", name=html_text(request.names[user.id])))


async def on_settle_button(update: Update, context: Context) -> None:
    """Choose the other player (requester), confirm or refuse (the other player)."""
    query = update.callback_query
    assert query is not None
    tr = await translator_for(update, context)
    data = await parse_tap(query, tr, GONE)
    if data is None or not await own_button(query, tr):
        return
    request = await get_store(context).ledger.load_settle(_chat_id(update), data.id)
    try:
        if request is None:
            raise Refusal(GONE)
        if data.action in (ButtonAction.SETTLE_PLAN, ButtonAction.SETTLE_WITH):
            await _choose(query, context, tr, request, data)
        elif data.action is ButtonAction.SETTLE_NO:
            await _refuse(query, context, tr, request)
        else:
            await _confirm(query, context, tr, request)
    except Outdated as outdated:  # never right again: dropped, its buttons removed
        if request is not None:
            await get_store(context).ledger.change_settle(request, None)
        await query.answer(tr.gettext(outdated.message), show_alert=True)
        await _edit(query.message, context, _chat_id(update), tr.gettext(outdated.message))
    except Refusal as refusal:
        await query.answer(tr.gettext(refusal.message, **refusal.values), show_alert=True)


async def _confirm(query: CallbackQuery, context: Context, tr: Translator,
                   request: SettleRequest) -> None:
    """The other player confirms: the balance is settled if it is still the one asked."""
    may_confirm(request, query.from_user.id)
    store = get_store(context)
    names = request.names
    try:
        now = await store.ledger.settle(request)
    except PlanChanged:
        raise Outdated() from None
    except StoreError:
        raise Refusal(GONE) from None
    if now is None:
        await query.answer()
    else:  # refused: said where the tap was, and on the message, whose buttons go
        await query.answer(tr.gettext(BALANCE_CHANGED), show_alert=True)
    if now is None and request.change is not None:
        text = tr.gettext("Booked: {pays}. Only the balance between the two changed.",
                          pays=pays_text(tr, _debt(request), names))
    elif now is None:
        text = tr.gettext("Settled: {owes}; the balance is 0.",
                          owes=owes_text(tr, _debt(request), names))
    else:
        await store.ledger.change_settle(request, None)
        changed = with_balance(request, now)
        now_text = owes_text(tr, _debt(changed), names) if now else tr.gettext("nothing")
        text = tr.gettext("The balance changed since the request (now: {now}); nothing was "
                          "settled. Ask again with /settle.", now=now_text)
    await _edit(query.message, context, request.chat_id, text)


