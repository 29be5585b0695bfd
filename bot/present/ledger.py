"""What a game costs in words: ledger lines (a debt, a payment), a finished
game's booking, a resignation's price on its button."""

from __future__ import annotations

from bot.present.names import KIND_NAMES, side_name
from bot.rules.ledger import Debt, outcome
from bot.rules.play import resign_cost
from bot.vocab.i18n import Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.usertext import clean, html_text
from engine.position import Side


def owes_line(tr: Translator, debtor: str, creditor: str, amount: int) -> str:
    """``"Bob → Ann 30"``: one debt (a balance), the one phrasing of the
    ledger, the settle buttons, request and confirmation (names as given:
    escaped for HTML, or plain for a button)."""
    return tr.gettext("{debtor} → {creditor} {amount}", debtor=debtor, creditor=creditor,
                      amount=amount)


def pays_line(tr: Translator, debtor: str, creditor: str, amount: int) -> str:
    """``"Bob pays Ann 30"``: one transfer, the one phrasing of what the end
    of a staked game books and of the settle-up plan's payments (its list,
    buttons, request and confirmation); names as for :func:`owes_line`."""
    return tr.gettext("{debtor} pays {creditor} {amount}", debtor=debtor, creditor=creditor,
                      amount=amount)


def owes_text(tr: Translator, debt: Debt, names: dict[int, str], *, html: bool = True) -> str:
    """"Bob → Ann 30" (:func:`owes_line`) with the players' names, for an HTML
    message (``html=False``: for a button's plain text)."""
    name = html_text if html else clean
    return owes_line(tr, name(names.get(debt.debtor, str(debt.debtor))),
                     name(names.get(debt.creditor, str(debt.creditor))), debt.amount)


def pays_text(tr: Translator, payment: Debt, names: dict[int, str], *,
              html: bool = True) -> str:
    """"Bob pays Ann 30" (:func:`pays_line`): a payment of the settle-up plan,
    names as for :func:`owes_text`."""
    name = html_text if html else clean
    return pays_line(tr, name(names.get(payment.debtor, str(payment.debtor))),
                     name(names.get(payment.creditor, str(payment.creditor))), payment.amount)


def booked_line(tr: Translator, record: GameRecord) -> str | None:
    """What the end of this game booked in the ledger (``None``: nothing, as
    for a game without stakes or a match game before the match ends)."""
    if record.status is not Status.FINISHED:
        return None
    done = outcome(record)
    if done.result is None or not done.amount:
        return None
    winner = done.result.winner
    return tr.gettext("Booked: {pays}.", pays=pays_line(
        tr, side_name(record, winner.opponent), side_name(record, winner), done.amount))


BUTTON_NAME = 12
"""Characters of a name on a button (the resignation's cost)."""


def resign_cost_label(tr: Translator, record: GameRecord, side: Side, level: int) -> str:
    """The "Yes, resign" button of a staked game: the kind and what accepting
    it books, "Yes, resign (gammon): Bob pays Alice 40" (the kind's multiplier
    times the cube times the stake), or in a match that goes on, the points
    the opponent gets."""
    ended, kind = resign_cost(record, side, level)
    done = outcome(ended)
    result = done.result
    assert result is not None
    name = {p.side: clean(p.name, BUTTON_NAME) for p in record.players}
    what = tr.gettext(KIND_NAMES[kind])
    if done.amount:
        return tr.gettext("Yes, resign ({kind}): {pays}", kind=what, pays=pays_line(
            tr, name[side], name[side.opponent], done.amount))
    return tr.gettext("Yes, resign ({kind}): {name} gets {points}", kind=what,
                      name=name[side.opponent],
                      points=tr.ngettext("{n} point", "{n} points", result.points,
                                         n=result.points))
