"""A chat whose flood bucket is spent holds up nobody else (issue 21 §2):
the message waits in its chat's outbox (bot/edge/outbox.py), the handler
gives its update slot back (bot/edge/ops.py ``handle_in_slot``), the chat's
turns go round robin over its games, and stale texts are dropped.  Order and
outcome only: the limiter's clock and sleep are injected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import bot.edge.app
from bot.edge.limits import SharedRateLimiter, Window
from bot.edge.outbox import ChatOutbox, StaleMessage
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab.records import ChatSettings, settings_key
from tests.bot.conftest import World, running_world
from tests.bot.driver import game_board, pick


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Gate:
    """An injected sleep that returns only when the test opens the gate."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)
        await self.opened.wait()


@pytest.fixture
async def gated(store: Store, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[World, SharedRateLimiter, Gate]]:
    # one update slot: a handler that held its slot while waiting for the
    # bucket would hold up every other update (64 slots fill the same way)
    monkeypatch.setattr(bot.edge.app, "CONCURRENT_UPDATES", 1)
    gate = Gate()
    limiter = SharedRateLimiter(clock=Clock(), sleep=gate, group=Window(5, 500.0),
                                overall=Window(1000, 1.0))
    limiter.attach(store.flood)
    async with running_world(store, limiter=limiter) as world:
        yield world, limiter, gate


async def test_a_tap_elsewhere_is_answered_while_a_chats_reply_waits_for_its_bucket(
        gated: tuple[World, SharedRateLimiter, Gate]) -> None:
    world, limiter, gate = gated
    s = world.server
    spammer, alice, bob = s.add_user("Mallory"), s.add_user("Alice"), s.add_user("Bob")
    flooded, other = s.add_group("A", members=[spammer]), s.add_group("B", members=[alice, bob])
    await world.store.games.update(settings_key(other.id), lambda _s: ChatSettings(
        chat_id=other.id, board_style="text"))
    for _ in range(5):  # chat A's bucket is spent (the clock stands still)
        assert await limiter.acquire(flooded.id) == 0
    sent = s.user_sends(flooded, spammer, "/rules")
    await s.wait_for_async(lambda: gate.slept or None)  # A's reply waits for a token

    asked = s.user_sends(other, alice, "/new long")
    lobby = await s.wait_message_async(other, "New game", since=asked)
    answer = await asyncio.wait_for(
        s.user_taps(other, bob, lobby, text="✋ Join").wait_answer_async(5), 10)
    assert answer is not None
    assert s.newest_message(flooded, lambda m: m.by_bot) is None  # A still waits
    assert limiter.outbox.waiting(flooded.id) == 1

    gate.opened.set()
    await s.wait_message_async(flooded, since=sent)  # then A's reply goes out
    assert limiter.outbox.waiting(flooded.id) == 0


@dataclass
class Booked:
    """A reserved time (bot.edge.outbox.Booking) that notes whether it was
    given back, and when its message came back."""

    wait: float
    released: list[float] = field(default_factory=list)
    settled: list[float] = field(default_factory=list)

    async def release(self) -> None:
        self.released.append(self.wait)

    async def settle(self, at: float) -> None:
        self.settled.append(at)


async def _take(outbox: ChatOutbox, chat: int, lane: str, **kw: Any) -> None:
    """Wait for a turn and send nothing in it."""
    async with outbox.turn(chat, lane, **kw):
        pass


async def test_a_chats_turns_go_round_robin_over_its_games() -> None:
    async def spent(_chat: object) -> Booked:
        return Booked(3.0)  # every turn must be waited for

    async def instant(_seconds: float) -> None:
        await asyncio.sleep(0)

    outbox = ChatOutbox(spent, sleep=instant)
    served: list[str] = []

    async def send(lane: str, n: int) -> None:
        async with outbox.turn(-1, lane):
            served.append(f"{lane}{n}")

    # game x redraws five times before games y and z ask once each
    tasks = [asyncio.create_task(send("x", n)) for n in range(5)]
    await asyncio.sleep(0)
    tasks += [asyncio.create_task(send(lane, 0)) for lane in ("y", "z")]
    await asyncio.gather(*tasks)
    assert served[:3] == ["x0", "y0", "z0"]  # nobody waits behind x's queue
    assert served[3:] == ["x1", "x2", "x3", "x4"]


async def test_a_stale_text_is_dropped_and_parks_its_handler() -> None:
    clock = Clock()
    gate = Gate()

    async def spent(_chat: object) -> Booked:
        return Booked(60.0)

    outbox = ChatOutbox(spent, sleep=gate, clock=clock)
    parked: list[str] = []
    board = asyncio.create_task(_take(outbox, -1, "game", park=lambda: parked.append("board")))
    notice = asyncio.create_task(_take(outbox, -1, "user", park=lambda: parked.append("notice"),
                                             stale_after=30))
    while len(gate.slept) < 1:
        await asyncio.sleep(0)
    assert sorted(parked) == ["board", "notice"]  # both give their update slots back
    clock.now += 61
    gate.opened.set()
    await board
    with pytest.raises(StaleMessage):
        await notice
    assert outbox.dropped == 1
    assert outbox.waiting(-1) == 0


async def test_a_time_nobody_takes_is_given_back() -> None:
    """Every waiter went stale (or gave up) while its time came: the time is
    released for the chat's next message instead of idling the budget."""
    clock = Clock()
    gate = Gate()
    booked: list[Booked] = []

    async def spent(_chat: object) -> Booked:
        booked.append(Booked(60.0))
        return booked[-1]

    outbox = ChatOutbox(spent, sleep=gate, clock=clock)
    notice = asyncio.create_task(_take(outbox, -1, "user", stale_after=30))
    while not gate.slept:
        await asyncio.sleep(0)
    clock.now += 61
    gate.opened.set()
    with pytest.raises(StaleMessage):
        await notice
    assert [b.released for b in booked] == [[60.0]]


async def test_messages_without_a_spent_bucket_do_not_park(store: Store) -> None:
    limiter = SharedRateLimiter(group=Window(3, 60.0), overall=Window(1000, 1.0))
    limiter.attach(store.flood)
    calls: list[Any] = []

    async def send(text: str) -> bool:
        calls.append(text)
        return True

    for n in range(3):
        assert await limiter.process_request(send, (f"m{n}",), {}, "sendMessage",
                                             {"chat_id": -7}, None) is True
    assert calls == ["m0", "m1", "m2"] and limiter.outbox.waiting(-7) == 0


async def test_two_games_in_one_group_share_its_budget_neither_starves(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24: with the group's bucket spent, a member's burst of commands and the
    redraws of two games' taps wait together; the tokens then go round robin over
    the games' boards and the member's replies, so neither game's redraw waits
    behind the burst or behind the other game (order, not time: the clock stands
    still and the limiter's sleep is a gate)."""
    monkeypatch.setattr(bot.edge.app, "CONCURRENT_UPDATES", 1)
    gate = Gate()
    gate.opened.set()  # open while the games start (the clock stands still: every
    limiter = SharedRateLimiter(clock=Clock(), sleep=gate, group=Window(5, 500.0),  # token
                                overall=Window(1000, 1.0))                          # waits)
    limiter.attach(store.flood)
    async with running_world(store, limiter=limiter) as world:
        s = world.server
        alice, bob, carol, dave, mallory = (s.add_user(n) for n in
                                            ("Alice", "Bob", "Carol", "Dave", "Mallory"))
        chat = s.add_group("Club", members=[alice, bob, carol, dave, mallory])
        await world.store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
            chat_id=chat.id, board_style="text"))
        boards = {}
        for first, second in ((alice, bob), (carol, dave)):
            sent = await world.send(chat, first, "/new long")
            lobby = await world.reply(chat, sent, "New game")
            await world.tap(chat, first, lobby, text="✋ Join")
            await world.tap(chat, second, s.message(chat.id, lobby.message_id), text="✋ Join")
            await world.idle()
            board = game_board(s, chat)
            assert board is not None and board.message_id not in boards
            boards[board.message_id] = (first, second)
        await world.idle()
        gate.opened.clear()  # from here every message waits at the gate
        asked = len(gate.slept)
        for _ in range(4):  # Mallory's burst first
            s.user_sends(chat, mallory, "/rules")
        await s.wait_for_async(lambda: limiter.outbox.waiting(chat.id) >= 1 or None)
        taps = []
        for message_id, players in boards.items():
            board = s.message(chat.id, message_id)
            record = next(g for g in await world.store.games.chat_games(chat.id)
                          if g.board_message_id == message_id)
            mover = next(p for p in players if p.id == waiting_user(record))
            data = pick(board)
            assert data is not None
            tap = s.user_taps(chat, mover, board, data)
            await tap.wait_answer_async(10)
            taps.append(tap)
        await s.wait_for_async(lambda: limiter.outbox.waiting(chat.id) == 6 or None,
                               description="the burst and both redraws waiting")
        assert len(gate.slept) > asked
        mark = len(s.requests())
        gate.opened.set()
        await s.wait_for_async(lambda: limiter.outbox.waiting(chat.id) == 0 or None)
        await world.idle()
        sent = [(r.method, r.params.get("message_id")) for r in s.requests()[mark:]
                if str(r.params.get("chat_id")) == str(chat.id)
                and r.method.lower().startswith(("send", "edit"))]
        edited = [i for i, (method, _m) in enumerate(sent) if method.lower().startswith("edit")]
        assert sorted(sent[i][1] for i in edited) == sorted(boards), sent  # both redrawn
        assert len(sent) == 6, sent  # and each of Mallory's replies
        # round robin: each game's redraw within the first two rounds, ahead of the rest
        # of her burst (which lane a round starts with depends on when each joined the
        # rotation); first come, first served would put both after all four replies
        assert edited[0] <= 1 and edited[-1] <= 3, sent


async def test_a_chats_next_time_is_booked_once_its_message_came_back() -> None:
    """The outbox holds a chat's turn while its request is on its way and
    books the next time only after it came back, noting when it did (the
    limiter moves the message's entry there: bot/edge/limits.py)."""
    clock = Clock()
    booked: list[Booked] = []

    async def free(_chat: object) -> Booked:
        booked.append(Booked(0.0))
        return booked[-1]

    outbox = ChatOutbox(free, clock=clock)
    back = asyncio.Event()
    order: list[str] = []

    async def first() -> None:
        async with outbox.turn(-1, "game"):
            order.append("first sent")
            await back.wait()  # the request is on its way
            clock.now += 7.5   # and comes back late
        order.append("first back")

    async def second() -> None:
        async with outbox.turn(-1, "user"):
            order.append("second sent")

    tasks = [asyncio.create_task(first())]
    await asyncio.sleep(0)
    tasks.append(asyncio.create_task(second()))
    for _ in range(20):
        await asyncio.sleep(0)
    assert order == ["first sent"] and len(booked) == 1  # the next time is not booked yet
    back.set()
    await asyncio.gather(*tasks)
    assert order == ["first sent", "first back", "second sent"]
    assert booked[0].settled == [1_000_007.5] and booked[0].released == []
