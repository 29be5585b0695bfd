"""Who may answer a settle request, and the request each answer makes.

``/settle`` opens a :class:`SettleRequest`: without a reply it offers the
requester a choice (a player they have a balance with, or a payment of the
settle-up plan), then the other player confirms or either of the two says
no.  The balance itself changes only in the store's one script
(:meth:`bot.store.ledger.Ledger.settle`), which checks it is still the one confirmed.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.rules.ledger import debts
from bot.rules.settleplan import (
    Ledger,
    direct_change,
    planned_for,
    requested_transfer,
    still_planned,
)
from bot.vocab.i18n import N_
from bot.vocab.records import SettleRequest
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import clean

GONE = N_("This settle request is no longer open.")
NO_BALANCE = N_("You have no open balance in this chat.")
OUTDATED = N_("This payment is no longer in the settle-up plan: the ledger changed since the "
              "request. Nothing was booked; see /ledger and ask again with /settle.")


class Outdated(Refusal):
    """A planned payment the ledger no longer owes: the request is dropped and
    its buttons removed (it can never be right again)."""

    def __init__(self) -> None:
        super().__init__(OUTDATED)
MAX_CANDIDATES = 20
"""Buttons offered by /settle without a reply (the callback index stays small)."""


def pair_request(chat_id: int, requester: int, other: int, amount: int,
                 names: Mapping[int, str]) -> SettleRequest:
    """``/settle`` in reply to ``other``'s message: their balance ``amount``
    (positive: owed to the requester) for ``other`` to confirm."""
    if not amount:
        raise Refusal(N_("Nothing to settle between you and {name}."), name=clean(names[other]))
    return SettleRequest(chat_id=chat_id, requester=requester, other=other, amount=amount,
                         names={requester: names[requester], other: names[other]})


def choice_request(chat_id: int, requester: int, ledger: Ledger, names: Mapping[int, str]
                   ) -> tuple[SettleRequest, dict[int, int]]:
    """``/settle`` without a reply: the request that offers the requester a
    player they have a balance with, or a payment of the settle-up plan they
    make or receive (up to :data:`MAX_CANDIDATES` of each), and the
    requester's balances (positive: owed to them); :class:`Refusal` when they
    have none.

    >>> request, balances = choice_request(-1, 1, {(1, 2): -5, (2, 3): 4}, {1: "Ann"})
    >>> request.candidates, balances, request.names
    ((2,), {2: -5}, {1: 'Ann', 2: '2'})
    """
    planned = tuple(direct_change(t, requester) for t in planned_for(ledger, requester))
    balances: dict[int, int] = {}
    for debt in debts(ledger):
        if requester in (debt.debtor, debt.creditor):
            counterpart = debt.creditor if debt.debtor == requester else debt.debtor
            balances[counterpart] = debt.amount if debt.creditor == requester else -debt.amount
    if not balances:
        raise Refusal(NO_BALANCE)
    candidates = tuple(balances)[:MAX_CANDIDATES]
    planned = planned[:MAX_CANDIDATES]
    request = SettleRequest(chat_id=chat_id, requester=requester, candidates=candidates,
                            planned=planned,
                            names={uid: names.get(uid, str(uid)) for uid in (
                                requester, *candidates, *(other for other, _ in planned))})
    return request, balances


def pick(request: SettleRequest, user_id: int, index: int, *, planned: bool
         ) -> tuple[int, int | None]:
    """The requester's choice ``index``: (the other player, the planned
    payment's change of the balance, or None for settling the whole balance)."""
    if user_id != request.requester:
        raise Refusal(N_("Only {name} chooses here."),
                      name=clean(request.names[request.requester]))
    offered = request.planned if planned else request.candidates
    if request.other is not None or index >= len(offered):
        raise Refusal(GONE)
    if planned:
        return request.planned[index]
    return request.candidates[index], None


def chosen(request: SettleRequest, other: int, amount: int, change: int | None,
           ledger: Ledger) -> SettleRequest:
    """The request once the requester chose ``other`` (their balance now is
    ``amount``, ``ledger`` the chat's ledger now): the other player is asked to
    confirm.  A planned payment the ledger no longer owes is :class:`Outdated`
    (the store checks it again when it is confirmed)."""
    if change is not None:
        if not still_planned(ledger, requested_transfer(request.requester, other, change)):
            raise Outdated()
        return request.model_copy(update={"other": other, "amount": amount, "change": change})
    if not amount:
        raise Refusal(N_("Nothing to settle with {name} any more."),
                      name=clean(request.names[other]))
    return request.model_copy(update={"other": other, "amount": amount})


def may_refuse(request: SettleRequest, user_id: int) -> None:
    """Either of the two players may say no."""
    if user_id not in (request.requester, request.other):
        raise Refusal(N_("Only the two players answer this."))


def may_confirm(request: SettleRequest, user_id: int) -> None:
    """Only the other player confirms, once there is one."""
    if request.other is None:
        raise Refusal(GONE)
    if user_id != request.other:
        message = (N_("Waiting for {name} to confirm.") if user_id == request.requester
                   else N_("Only {name} can confirm."))
        raise Refusal(message, name=clean(request.names[request.other]))


def with_balance(request: SettleRequest, balance: int) -> SettleRequest:
    """The request as the balance really is (it changed since the request)."""
    return request.model_copy(update={"amount": balance, "change": None})
