"""Issue 21, item 1: money is booked only by games and by payments the ledger
still owes at the moment they are booked.

Random sequences of games, /settle requests (the requester's choices as the
bot offers them), picks, confirmations and refusals across 3-5 players run
through the rules (bot/rules/settle.py) and the store's one settle script;
beside them a model books only the games and the confirmations the store
reported booked, and checks each one was owed when it was booked.  So a
request made from an older ledger (issue 21's "Bob pays Carol 10" booked
twice) can never create a debt.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import fakeredis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules.settle import (
    Outdated,
    applied,
    choice_request,
    chosen,
    direct_adjustments,
    may_confirm,
    nets,
    pick,
    requested_transfer,
)
from bot.store import PlanChanged, Store, StoreError
from bot.store.ledger import ledger_field
from bot.vocab.records import (
    GameRecord,
    HistoryEntry,
    Player,
    SettleRequest,
    Status,
    TableOptions,
)
from bot.vocab.refusals import Refusal
from engine.position import Side, Variant

CHAT = -100921

Op = tuple[str, int, int, int]
"""("game", winner, loser, amount), ("open", requester, 0, 0): a /settle, and
for the n-th request opened: ("pick", n, choice, planned), ("confirm", n, 0, 0),
("refuse", n, 0, 0).  Players and choices are indices, taken modulo what there is."""

GAME = st.tuples(st.just("game"), st.integers(0, 4), st.integers(0, 4), st.integers(1, 30))


@st.composite
def sessions(draw: st.DrawFn) -> list[Op]:
    """Rounds of: some games, then one to three requests opened from the same
    ledger, then their picks and answers in any order with games between."""
    ops: list[Op] = []
    opened = 0
    for _ in range(draw(st.integers(1, 4))):
        ops += draw(st.lists(GAME, max_size=3))
        count = draw(st.integers(1, 3))
        ops += [("open", draw(st.integers(0, 4)), 0, 0) for _ in range(count)]
        acts: list[Op] = []
        for n in range(opened, opened + count):
            acts.append(("pick", n, draw(st.integers(0, 3)), draw(st.integers(0, 1))))
            acts.append((draw(st.sampled_from(["confirm", "confirm", "refuse"])), n, 0, 0))
        acts += draw(st.lists(GAME, max_size=2))
        ops += draw(st.permutations(acts))
        opened += count
    return ops


@dataclass
class Model:
    """The ledger as only games and booked confirmations make it."""

    ledger: dict[tuple[int, int], int] = field(default_factory=dict)

    def book(self, deltas: dict[tuple[int, int], int]) -> None:
        self.ledger = applied(self.ledger, deltas)


async def _game(store: Store, model: Model, winner: int, loser: int, amount: int) -> None:
    players = (Player(user_id=winner, name=f"p{winner}", side=Side.WHITE),
               Player(user_id=loser, name=f"p{loser}", side=Side.BLACK))
    record = await store.games.save(GameRecord(
        chat_id=CHAT, variant=Variant.LONG, players=players, status=Status.ACTIVE,
        options=TableOptions(stake_per_point=amount)), 0)
    entry = HistoryEntry(game_id=record.game_id, variant=Variant.LONG, players=players,
                         finished_at=0, winner=Side.WHITE, result="oin", points=1,
                         stake=amount)
    await store.ledger.finish_game(record.model_copy(update={"status": Status.FINISHED}),
                                  record.version, entry, {(winner, loser): amount})
    field_, sign = ledger_field(winner, loser)
    low_high = tuple(map(int, field_.split(":")))
    model.book({(low_high[0], low_high[1]): sign * amount})


async def _pick(store: Store, request: SettleRequest, index: int, planned: bool) -> None:
    """The requester taps a choice, as bot/edge/handlers/settle.py `_choose` does."""
    offered = request.planned if planned else request.candidates
    try:
        other, change = pick(request, request.requester, index % max(1, len(offered)),
                             planned=planned)
        amount = await store.ledger.balance(CHAT, request.requester, other)
        asked = chosen(request, other, amount, change, await store.ledger.ledger(CHAT))
    except Outdated:
        await store.ledger.change_settle(request, None)
        return
    except Refusal:
        return
    await store.ledger.change_settle(request, asked)


async def _confirm(store: Store, model: Model, request: SettleRequest) -> None:
    """The other player confirms; whatever the store books must have been owed."""
    try:
        assert request.other is not None
        may_confirm(request, request.other)
        now = await store.ledger.settle(request)
    except (Refusal, PlanChanged, StoreError):
        return
    if now is not None:
        return  # refused: the balance changed
    field_, sign = ledger_field(request.requester, request.other)
    low, high = map(int, field_.split(":"))
    pair = sign * model.ledger.get((low, high), 0)  # what `other` owes the requester
    if request.change is None:
        assert pair == request.amount, "a whole balance settled that was not the one confirmed"
        model.book({(low, high): -model.ledger.get((low, high), 0)})
        return
    paid = requested_transfer(request.requester, request.other, request.change)
    net = nets(model.ledger)
    assert -net.get(paid.debtor, 0) >= paid.amount, f"{paid} booked, but not owed: {net}"
    assert net.get(paid.creditor, 0) >= paid.amount, f"{paid} booked, but not due: {net}"
    model.book(direct_adjustments(paid))


async def _run(players: int, ops: list[Op]) -> None:
    store = Store(fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer()))
    model = Model()
    requests: list[str | None] = []
    users = list(range(1, players + 1))
    for kind, a, b, c in ops:
        if kind == "game":
            winner, loser = users[a % players], users[b % players]
            if winner != loser:
                await _game(store, model, winner, loser, c)
        elif kind == "open":
            try:
                request, _ = choice_request(CHAT, users[a % players],
                                            await store.ledger.ledger(CHAT),
                                            {})
            except Refusal:
                requests.append(None)
                continue
            await store.ledger.put_settle(request)
            requests.append(request.request_id)
        else:
            request_id = requests[a] if a < len(requests) else None
            stored = (None if request_id is None
                      else await store.ledger.load_settle(CHAT, request_id))
            if stored is None:
                continue
            if kind == "pick":
                await _pick(store, stored, b, bool(c))
            elif kind == "confirm" and stored.other is not None:
                await _confirm(store, model, stored)
            elif kind == "refuse":
                await store.ledger.change_settle(stored, None)
        ledger = await store.ledger.ledger(CHAT)
        assert ledger == model.ledger, (kind, ledger, model.ledger)
        assert sum(nets(ledger).values()) == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(3, 5), ops=sessions())
def test_settling_never_creates_a_debt_and_balances_sum_to_zero(players: int,
                                                                ops: list[Op]) -> None:
    asyncio.run(_run(players, ops))


@pytest.mark.parametrize("picked_before_the_booking", [True, False])
def test_two_requests_of_one_plan_book_its_payment_once(picked_before_the_booking: bool) -> None:
    """Issue 21's case, in the model's terms: Bob(2) → Ann(1) 10, Ann → Carol(3)
    10; Bob opens two requests and books "Bob pays Carol 10" with both."""
    games: list[Op] = [("game", 0, 1, 10), ("game", 2, 0, 10)]
    opens: list[Op] = [("open", 1, 0, 0), ("open", 1, 0, 0)]
    pick_first, pick_second = ("pick", 0, 0, 1), ("pick", 1, 0, 1)
    confirm_first, confirm_second = ("confirm", 0, 0, 0), ("confirm", 1, 0, 0)
    if picked_before_the_booking:
        ops = [*games, *opens, pick_first, pick_second, confirm_first, confirm_second]
    else:
        ops = [*games, *opens, pick_first, confirm_first, pick_second, confirm_second]
    asyncio.run(_run(3, ops))
