"""/settle: who pays whom so that a chat is square, and the requests that
settle a balance.

**The requests.** ``/settle`` opens a :class:`SettleRequest`: without a reply
it offers the requester a choice (a player they have a balance with, or a
payment of the settle-up plan), then the other player confirms or either of
the two says no (who may answer, and the request each answer makes: the
functions at the end).  The balance itself changes only in the store's one
script (:meth:`bot.store.ledger.Ledger.settle`), which checks it is still the
one confirmed.

**The settle-up plan** of a chat: who pays whom so that everybody is square,
with few transfers, and what settling one planned transfer does to the ledger.
Pure (no Redis, no Telegram).  The ledger is the store's: ``{(low, high):
balance}`` with ``low < high`` user ids (the Redis field ``"<low>:<high>"``),
the balance of ``low``:

* ``balance > 0``: ``high`` owes ``low`` that much;
* ``balance < 0``: ``low`` owes ``high`` ``-balance``.

A member's **net** is what the others owe them minus what they owe: positive
for a creditor, negative for a debtor; the nets add up to zero.

**The plan** (:func:`plan`): first every debtor whose debt equals some
creditor's credit pays that creditor (one transfer squares two members),
then, repeatedly, the largest debtor pays the largest creditor the smaller of
the two amounts (ties by the lower user id).  Each transfer squares at least
one member and the last squares two, so a chat with ``n`` members whose net
is not zero needs at most ``n - 1`` transfers.  (The true minimum is a hard
problem in general; this is the usual greedy answer.)

**Settling a planned transfer** (:func:`direct_change`): when the debtor
has paid the creditor, the amount is booked on their own pair only (a
ledger record changes only by its two players' actions, docs/stakes.md):
the debtor's net rises by it, the creditor's falls by it and every other
member's net stays what it was, so the rest of the plan still holds.

>>> ledger = {(1, 2): 30, (2, 3): 10}   # 2 owes 1 30; 3 owes 2 10
>>> nets(ledger)
{1: 30, 2: -20, 3: -10}
>>> plan(ledger)
[Transfer(debtor=2, creditor=1, amount=20), Transfer(debtor=3, creditor=1, amount=10)]
>>> direct_adjustments(Transfer(3, 1, 10))   # 3 pays 1: booked on their pair
{(1, 3): -10}
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass

from bot.rules.ledger import debts
from bot.vocab.i18n import N_
from bot.vocab.records import SettleRequest, planned_payment
from bot.vocab.refusals import Refusal
from bot.vocab.usertext import clean

Ledger = Mapping[tuple[int, int], int]


class SettlePlanError(ValueError):
    """A ledger or a transfer that the plan cannot work with."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """``debtor`` pays ``creditor`` ``amount`` (> 0)."""

    debtor: int
    creditor: int
    amount: int

    def __post_init__(self) -> None:
        if self.debtor == self.creditor or self.amount <= 0:
            raise SettlePlanError(f"not a transfer: {self.debtor} -> {self.creditor} "
                                  f"{self.amount}")


def _pairs(ledger: Ledger) -> list[tuple[int, int, int]]:
    """The non-zero balances as (low, high, balance), checked."""
    out = []
    for (low, high), balance in ledger.items():
        if not low < high:
            raise SettlePlanError(f"a ledger pair is (low id, high id), got ({low}, {high})")
        if balance:
            out.append((low, high, balance))
    return out


def nets(ledger: Ledger) -> dict[int, int]:
    """Each member's net (positive: is owed), for every member of a non-zero
    pair, by user id."""
    out: dict[int, int] = {}
    for low, high, balance in _pairs(ledger):
        out[low] = out.get(low, 0) + balance
        out[high] = out.get(high, 0) - balance
    return dict(sorted(out.items()))


def plan(ledger: Ledger) -> list[Transfer]:
    """The transfers that square every member (see the module's description),
    biggest first, then by debtor and creditor id."""
    net = nets(ledger)
    debts = {member: -value for member, value in net.items() if value < 0}
    credits = {member: value for member, value in net.items() if value > 0}
    transfers: list[Transfer] = []
    for debtor in sorted(debts, key=lambda member: (-debts[member], member)):
        creditor = min((c for c, value in credits.items() if value == debts[debtor]),
                       default=None)
        if creditor is not None:
            transfers.append(Transfer(debtor, creditor, debts.pop(debtor)))
            del credits[creditor]
    debtors = [(-value, member) for member, value in debts.items()]
    creditors = [(-value, member) for member, value in credits.items()]
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    while debtors and creditors:
        owed, debtor = heapq.heappop(debtors)
        due, creditor = heapq.heappop(creditors)
        amount = min(-owed, -due)
        transfers.append(Transfer(debtor, creditor, amount))
        if -owed > amount:
            heapq.heappush(debtors, (owed + amount, debtor))
        if -due > amount:
            heapq.heappush(creditors, (due + amount, creditor))
    if debtors or creditors:  # nets always add up to zero
        raise AssertionError("unbalanced nets")
    return sorted(transfers, key=lambda t: (-t.amount, t.debtor, t.creditor))


def _shrink(deltas: dict[tuple[int, int], int], debtor: int, creditor: int,
            amount: int) -> None:
    """Book "debtor owes creditor ``amount`` less" as a change of the low id's balance."""
    if debtor > creditor:  # the balance of the low id (creditor) is what debtor owes it
        key, change = (creditor, debtor), -amount
    else:  # the balance of the low id (debtor) is minus what it owes
        key, change = (debtor, creditor), amount
    deltas[key] = deltas.get(key, 0) + change


def still_planned(ledger: Ledger, transfer: Transfer) -> bool:
    """Whether ``transfer`` is still a payment the plan allows on this ledger:
    the debtor still owes at least ``amount`` net and the creditor is still owed
    at least that.  Booking it then moves both nets towards zero and no net
    changes sign, so no payment can make a debt that no game made.  (The
    store's settle script checks the same inside its compare-and-set,
    bot/store/ledger.py ``_SETTLE``; this is the early answer to a pick.)

    >>> still_planned({(1, 2): 10, (1, 3): -10}, Transfer(2, 3, 10))
    True
    >>> still_planned({(2, 3): 10}, Transfer(2, 3, 10))  # booked already: 3 owes 2
    False
    """
    net = nets(ledger)
    return (-net.get(transfer.debtor, 0) >= transfer.amount
            and net.get(transfer.creditor, 0) >= transfer.amount)


def applied(ledger: Ledger, deltas: Mapping[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """The ledger with the changes added (zero balances dropped)."""
    out = dict(ledger)
    for key, change in deltas.items():
        out[key] = out.get(key, 0) + change
    return {key: value for key, value in sorted(out.items()) if value}


# ---------------------------------------------------------------- what the bot books


def direct_change(transfer: Transfer, requester: int) -> tuple[int, int]:
    """The bot books a settled planned transfer on the debtor-creditor pair
    only (see docs/stakes.md: a ledger record changes only by its two
    players' actions or the rules, so no third party's pair moves).  For
    ``requester`` (one of the two): the other player and what the requester's
    balance with them (what the other owes the requester) changes by.

    Every third party's net and pair balances stay as they were; the
    debtor's net rises and the creditor's falls by the amount, so the rest
    of the plan still holds (the pair's balance may change sign: the plan,
    not the pair, is what squares the chat).

    >>> direct_change(Transfer(3, 1, 10), 1), direct_change(Transfer(3, 1, 10), 3)
    ((3, -10), (1, 10))
    """
    if requester == transfer.creditor:
        return transfer.debtor, -transfer.amount
    if requester == transfer.debtor:
        return transfer.creditor, transfer.amount
    raise SettlePlanError("only the payer or the payee settles a transfer")


def requested_transfer(requester: int, other: int, change: int) -> Transfer:
    """The transfer a request's planned ``(other, change)`` books: the inverse
    of :func:`direct_change`.

    >>> requested_transfer(1, 3, -10), requested_transfer(3, 1, 10)
    (Transfer(debtor=3, creditor=1, amount=10), Transfer(debtor=3, creditor=1, amount=10))
    """
    return Transfer(*planned_payment(requester, other, change))


def direct_adjustments(transfer: Transfer) -> dict[tuple[int, int], int]:
    """:func:`direct_change` as a ledger change (keys ``(low, high)``).

    >>> direct_adjustments(Transfer(3, 1, 10))
    {(1, 3): -10}
    """
    deltas: dict[tuple[int, int], int] = {}
    _shrink(deltas, transfer.debtor, transfer.creditor, transfer.amount)
    return deltas


def planned_for(ledger: Ledger, user: int) -> list[Transfer]:
    """The plan's transfers ``user`` pays or receives."""
    return [t for t in plan(ledger) if user in (t.debtor, t.creditor)]


# ---------------------------------------------------------------- the requests


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
