"""The ledger: /stake, /ledger, /history.

The bot never handles money: the ledger only remembers who owes whom in the
chat's own unit.  Balances change in two ways only: a finished game books
its stake atomically with its end (bot/rules/ledger.py), and /settle
(bot/edge/handlers/settle.py) zeroes one pair's balance, or books a payment
of the settle-up plan, when the other player confirms it.
"""

from __future__ import annotations

import datetime
import re

from telegram import Update

from bot.edge.handlers.common import (
    Context,
    DefaultOption,
    args_of,
    chat_id_of,
    default_option_command,
    get_store,
    names_in,
    reply,
    translator_for,
)
from bot.present.ledger import pays_text
from bot.present.names import KIND_NAMES, variant_name
from bot.rules.ledger import Debt, debts, ledger_table, without_cycles
from bot.rules.options import MAX_STAKE, OptionError, parse_new_args
from bot.rules.settle import plan
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import HistoryEntry
from bot.vocab.usertext import html_text
from engine.position import Side
from engine.scoring import ResultKind

HISTORY_DEFAULT = 10
HISTORY_MAX = 50


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
    chat_id = chat_id_of(update)
    balances = await store.ledger.ledger(chat_id)
    names = await names_in(store, chat_id)
    text = ledger_table(tr, without_cycles(debts(balances)), names)
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
    entries = await get_store(context).ledger.history(chat_id_of(update), count)
    if not entries:
        await reply(update, tr.gettext("No finished games here yet."))
        return
    lines = [tr.gettext("<b>Last games</b>")] + [history_line(tr, e) for e in entries]
    await reply(update, "\n".join(lines))
