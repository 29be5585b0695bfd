"""The settle-up plan: random ledgers of up to 30 members keep their nets,
need at most n - 1 transfers, and settling the whole plan squares everybody."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.settle import (
    SettlePlanError,
    Transfer,
    applied,
    direct_adjustments,
    direct_change,
    nets,
    plan,
    settle_adjustments,
    settle_all,
)

Ledger = dict[tuple[int, int], int]


@st.composite
def ledgers(draw: st.DrawFn, *, acyclic: bool = False) -> Ledger:
    """Up to 30 members with scattered user ids and random pair balances
    (``acyclic``: only higher ids owe lower ones, so no circle of debts)."""
    members = sorted(draw(st.sets(st.integers(1, 10**10), min_size=2, max_size=30)))
    pairs = [(a, b) for i, a in enumerate(members) for b in members[i + 1:]]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=60))
    low = 1 if acyclic else -500
    return {pair: draw(st.integers(low, 500)) for pair in chosen}


def paid(ledger: Mapping[tuple[int, int], int], transfers: list[Transfer]) -> dict[int, int]:
    """The nets once every transfer was paid."""
    out = nets(ledger)
    for t in transfers:
        out[t.debtor] += t.amount
        out[t.creditor] -= t.amount
    return out


def is_acyclic(ledger: Mapping[tuple[int, int], int]) -> bool:
    graph: dict[int, set[int]] = {}
    for (low, high), balance in ledger.items():
        if balance:
            debtor, creditor = (high, low) if balance > 0 else (low, high)
            graph.setdefault(debtor, set()).add(creditor)
    state: dict[int, int] = {}

    def visit(node: int) -> bool:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1 or (nxt not in state and not visit(nxt)):
                return False
        state[node] = 2
        return True
    return all(visit(node) for node in list(graph) if node not in state)


def test_the_sign_convention() -> None:
    # (1, 2): 30 is the balance of user 1: user 2 owes user 1 thirty
    assert nets({(1, 2): 30}) == {1: 30, 2: -30}
    assert plan({(1, 2): 30}) == [Transfer(2, 1, 30)]
    assert plan({(1, 2): -30}) == [Transfer(1, 2, 30)]


def test_a_chain_is_one_transfer() -> None:
    # 3 owes 2 ten, 2 owes 1 ten: 3 pays 1, and 2 is square
    ledger = {(1, 2): 10, (2, 3): 10}
    assert plan(ledger) == [Transfer(3, 1, 10)]
    assert settle_adjustments(ledger, Transfer(3, 1, 10)) == {(1, 2): -10, (2, 3): -10}


def test_equal_debts_and_credits_are_paired_first() -> None:
    # greedy alone: 10 -> 2 (8), 11 -> 3 (5), 11 -> 1 (3), 10 -> 1 (1): four transfers
    ledger = {(1, 10): 4, (3, 10): 5, (2, 11): 8}
    assert nets(ledger) == {1: 4, 2: 8, 3: 5, 10: -9, 11: -8}
    assert plan(ledger) == [Transfer(11, 2, 8), Transfer(10, 3, 5), Transfer(10, 1, 4)]


def test_unchained_transfer_is_booked_on_its_pair() -> None:
    # 3 owes 1, 4 owes 2 (equal): the plan may pair 3 with 2, who share no chain
    ledger = {(1, 3): 10, (2, 4): 10}
    adjust = settle_adjustments(ledger, Transfer(3, 2, 10))
    assert adjust == {(2, 3): -10}  # 2 now owes 3 ten, 3 still owes 1 ten
    after = applied(ledger, adjust)
    assert nets(after) == {1: 10, 2: 0, 3: 0, 4: -10}
    assert settle_all(after, [Transfer(4, 1, 10)]) == {}  # 4 -> 2 -> 3 -> 1


def test_overshooting_transfers_and_bad_ledgers_are_refused() -> None:
    ledger = {(1, 2): 10}
    with pytest.raises(SettlePlanError):
        settle_adjustments(ledger, Transfer(2, 1, 11))
    with pytest.raises(SettlePlanError):
        settle_adjustments(ledger, Transfer(1, 2, 5))
    with pytest.raises(SettlePlanError):
        nets({(2, 1): 5})
    with pytest.raises(SettlePlanError):
        Transfer(1, 1, 5)
    with pytest.raises(SettlePlanError):
        Transfer(1, 2, 0)


@settings(max_examples=300, deadline=None)
@given(ledgers())
def test_the_plan_squares_everybody_in_at_most_n_minus_1_transfers(ledger: Ledger) -> None:
    net = nets(ledger)
    assert sum(net.values()) == 0
    transfers = plan(ledger)
    members = [member for member, value in net.items() if value]
    assert len(transfers) <= max(len(members) - 1, 0)
    assert all(t.amount > 0 for t in transfers)
    # each transfer goes from a debtor to a creditor, never past their net
    assert all(net[t.debtor] < 0 < net[t.creditor] for t in transfers)
    assert all(value == 0 for value in paid(ledger, transfers).values())
    assert plan(dict(reversed(list(ledger.items())))) == transfers  # deterministic


@settings(max_examples=200, deadline=None)
@given(ledgers())
def test_settling_moves_only_the_two_nets(ledger: Ledger) -> None:
    current = dict(ledger)
    for transfer in plan(ledger):
        before = nets(current)
        acyclic = is_acyclic(current)
        current = applied(current, settle_adjustments(current, transfer))
        after = nets(current)
        for member in set(before) | set(after):
            change = after.get(member, 0) - before.get(member, 0)
            expected = (transfer.amount if member == transfer.debtor
                        else -transfer.amount if member == transfer.creditor else 0)
            assert change == expected, (member, transfer)
        assert not acyclic or is_acyclic(current)  # no circle of debts is made
    assert all(value == 0 for value in nets(current).values())


@settings(max_examples=200, deadline=None)
@given(ledgers(acyclic=True))
def test_settling_the_whole_plan_clears_a_ledger_without_circles(ledger: Ledger) -> None:
    assert settle_all(ledger, plan(ledger)) == {}


@settings(max_examples=100, deadline=None)
@given(ledgers())
def test_settling_only_shrinks_debts_along_chains(ledger: Ledger) -> None:
    """Every change is a debt getting smaller, except at most one pair: the
    transfer's own, when no chain of debts is left."""
    for transfer in plan(ledger)[:3]:
        adjust = settle_adjustments(ledger, transfer)
        own = (min(transfer.debtor, transfer.creditor), max(transfer.debtor, transfer.creditor))
        for pair, change in adjust.items():
            old, new = ledger.get(pair, 0), ledger.get(pair, 0) + change
            if pair != own:
                assert abs(new) < abs(old) and old * new >= 0, (pair, old, new)


@settings(max_examples=200, deadline=None)
@given(ledgers(), st.data())
def test_direct_booking_keeps_every_third_party_and_squares_the_chat(
        ledger: Ledger, data: st.DataObject) -> None:
    """What the bot books (docs/stakes.md): each settled planned transfer
    changes only its own pair, by its amount, whichever of the two asked."""
    current = dict(ledger)
    transfers = plan(ledger)
    for transfer in transfers:
        requester = data.draw(st.sampled_from([transfer.debtor, transfer.creditor]))
        other, change = direct_change(transfer, requester)
        deltas = direct_adjustments(transfer)
        low, high = sorted((requester, other))
        assert list(deltas) == [(low, high)]
        # the requester's balance with the other (what they owe the requester)
        assert deltas[(low, high)] == (change if requester == low else -change)
        before, others = nets(current), {k: v for k, v in current.items() if k != (low, high)}
        current = applied(current, deltas)
        after = nets(current)
        for member in set(before) | set(after):
            moved = after.get(member, 0) - before.get(member, 0)
            assert moved == (transfer.amount if member == transfer.debtor else
                             -transfer.amount if member == transfer.creditor else 0)
        # no other pair moved
        assert {k: v for k, v in current.items() if k != (low, high)} == {
            k: v for k, v in others.items() if v}
    assert all(value == 0 for value in nets(current).values())
    assert len(transfers) <= max(len([v for v in nets(ledger).values() if v]) - 1, 0)
