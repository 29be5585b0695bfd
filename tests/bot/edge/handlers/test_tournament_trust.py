"""Tournaments a club can trust (issue 36): limits that hold under commands and
taps sent at once, a forfeit that closes its game, fair dice in every round
and one chat's tournament work that never waits for another's; through the
real handlers and the local Bot API server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import BaseRateLimiter, CallbackContext

from bot.edge.handlers import tournament as handler
from bot.rules import tournament as rules
from bot.rules.matchstate import table_of
from bot.rules.play import resign_cost
from bot.rules.seats import player_on
from bot.service import saving
from bot.service import tournament as service
from bot.store import Store
from bot.vocab import clock as clocks
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import FORFEITED, Refusal
from bot.vocab.tournament import Decision
from tests.bot.conftest import World, running_world
from tests.bot.edge.handlers import test_tournament as base
from tests.bot.edge.handlers.test_tournament import Clock, club

clock = base.clock   # the test clock fixture, the tournament job off


async def _open_ones(world: World, chat_id: int) -> list[object]:
    return [t for t in await base._all(world.store, chat_id) if t.status.is_open]


async def test_one_member_sending_tournament_at_once_makes_one_lobby(world: World,
                                                                    clock: Clock) -> None:
    c = club(world, 2)
    for _ in range(8):
        world.server.user_sends(c.chat, c.players[0], "/tournament rr")
    await world.idle()
    assert len(await _open_ones(world, c.chat.id)) == 1
    refused = [m for m in world.server.messages(c.chat) if m.by_bot
               and "lobby open already" in (m.text or "")]
    assert len(refused) == 7, world.server.transcript(c.chat)


async def test_members_sending_tournament_at_once_keep_the_chats_limit(world: World,
                                                                      clock: Clock) -> None:
    c = club(world, 14)
    for player in c.players:
        world.server.user_sends(c.chat, player, "/tournament swiss")
    await world.idle()
    assert len(await _open_ones(world, c.chat.id)) == rules.actions.MAX_OPEN
    full = [m for m in world.server.messages(c.chat) if m.by_bot
            and "tournaments open already" in (m.text or "")]
    assert len(full) == 14 - rules.actions.MAX_OPEN, world.server.transcript(c.chat)


async def test_a_lobby_admits_every_join_up_to_its_cap_however_many_at_once(
        world: World, clock: Clock) -> None:
    c = club(world, 66)
    sent = await world.send(c.chat, c.players[0], "/tournament swiss")
    lobby = await world.reply(c.chat, sent, "Tournament")
    taps = [world.server.user_taps(c.chat, player, lobby, text="✋ Join") for player in c.players]
    answers = [await tap.wait_answer_async(60) for tap in taps]
    await world.idle()
    record = await base.current(world, c)
    assert record.status is Status.LOBBY and len(record.entrants) == 64
    alerts = [a.text for a in answers if a.show_alert]
    assert len(alerts) == 2 and all("full" in (text or "") for text in alerts), alerts


async def test_a_forfeited_game_being_played_closes_and_books_nothing(world: World,
                                                                     clock: Clock) -> None:
    """Bob withdrew while his game was being played: the standings said he
    lost it by forfeit, but the board kept its buttons, and his resignation
    then booked a rated "Eve beat Bob".  Now the game closes at once."""
    c = club(world, 4)
    record = await base.tournament(world, c, "swiss rounds=2 backgammon")
    pairing = record.rounds[-1].pairings[0]
    assert pairing.game_id is not None and pairing.second is not None
    board = base.board_of(world, c, pairing.game_id)
    start = base.button(world, board, ButtonAction.START)
    assert start is not None
    await world.tap(c.chat, c.user(pairing.first), board, start)
    game = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert game is not None and game.status is Status.ACTIVE
    bob = c.user(pairing.second)
    board = base.board_of(world, c, game.game_id)   # the board in play (the lobby is gone)
    resign = [d for _, d in world.buttons(board)
              if Callback.parse(d).action in (ButtonAction.MENU, ButtonAction.RESIGN)]
    assert resign, board.content
    # Bob withdraws (what /withdraw and 🏳 Withdraw do once confirmed)
    await service.commit_tournament(world.store, c.chat.id, record.tournament_id,
                                    lambda r, now: rules.withdraw(r, bob.id, now))
    await handler.process(CallbackContext(world.app), c.chat.id, record.tournament_id)
    await world.idle()
    record = await base.current(world, c)
    decided = next(p for p in record.rounds[0].pairings if p.board == pairing.board)
    assert decided.result is not None and decided.result.decision is Decision.FORFEIT
    closed = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert closed is not None and closed.status is Status.CANCELLED
    shown = world.server.message(c.chat.id, board.message_id)
    assert "decided by forfeit" in (shown.caption or shown.text or ""), shown.content
    assert not [d for _, d in world.buttons(shown) if d.startswith(("g:", "l:"))]
    for data in resign:   # the buttons it had: refused, nothing changes
        await world.tap(c.chat, bob, shown, data, strict=False)
    assert await world.store.games.load_game(c.chat.id, pairing.game_id) == closed
    history = await world.store.ledger.history(c.chat.id)   # noted cancelled, unrated
    assert history and all(h.rating_changes is None and h.points == 0 and h.winner is None
                           for h in history), history
    assert not await world.store.ledger.ledger(c.chat.id)
    assert decided.result.winner == pairing.first


async def _game_being_played(world: World, c: base.Club
                             ) -> tuple[str, GameRecord, int, int]:
    """A 4-player Swiss's first game started: (tournament id, the game, its
    first player's id, the second's)."""
    record = await base.tournament(world, c, "swiss rounds=2 backgammon")
    pairing = record.rounds[-1].pairings[0]
    assert pairing.game_id is not None and pairing.second is not None
    board = base.board_of(world, c, pairing.game_id)
    start = base.button(world, board, ButtonAction.START)
    assert start is not None
    await world.tap(c.chat, c.user(pairing.first), board, start)
    game = await world.store.games.load_game(c.chat.id, pairing.game_id)
    assert game is not None and game.status is Status.ACTIVE
    return record.tournament_id, game, pairing.first, pairing.second


async def _resign(world: World, game: GameRecord, user_id: int) -> None:
    """``user_id`` resigns ``game`` (what Resign does once tapped)."""
    side = next(p.side for p in game.players if p.user_id == user_id)
    assert player_on(game, side).user_id == user_id

    async def load() -> GameRecord | None:
        return await world.store.games.load_game(game.chat_id, game.game_id)

    await saving.commit_game(world.store, load, lambda r, now: resign_cost(r, side, 1)[0])


async def test_a_resignation_between_a_withdrawal_and_its_close_books_nothing(
        world: World, clock: Clock) -> None:
    """The withdrawal is saved, its game is closed right after: a
    resignation accepted in between once booked a rated "Eve beat Bob" over
    the forfeit.  The booking's own write finds the match forfeited."""
    c = club(world, 4)
    tournament_id, game, first, bob = await _game_being_played(world, c)
    await service.commit_tournament(world.store, c.chat.id, tournament_id,
                                    lambda r, now: rules.withdraw(r, bob, now))
    with pytest.raises(Refusal) as refused:   # before the close (handler.process)
        await _resign(world, game, bob)
    assert refused.value.message == FORFEITED
    still = await world.store.games.load_game(c.chat.id, game.game_id)
    assert still is not None and still.status is Status.ACTIVE
    assert not await world.store.ledger.history(c.chat.id)
    await handler.process(CallbackContext(world.app), c.chat.id, tournament_id)
    await world.idle()
    closed = await world.store.games.load_game(c.chat.id, game.game_id)
    assert closed is not None and closed.status is Status.CANCELLED
    history = await world.store.ledger.history(c.chat.id)   # the close: cancelled, unrated
    assert history and all(h.rating_changes is None and h.winner is None for h in history)
    record = await base.current(world, c)
    decided = record.rounds[0].pairings[0]
    assert decided.result is not None and decided.result.decision is Decision.FORFEIT
    assert decided.result.winner == first


async def test_a_resignation_tapped_in_that_moment_is_told_and_books_nothing(
        world: World, clock: Clock) -> None:
    """The same moment through the real buttons: the accepted resignation's
    tap is answered that the game is decided by forfeit (before, a Refusal
    from the booking went unanswered), and nothing is booked."""
    c = club(world, 4)
    tournament_id, game, _, bob = await _game_being_played(world, c)
    await service.commit_tournament(world.store, c.chat.id, tournament_id,
                                    lambda r, now: rules.withdraw(r, bob, now))
    mover = table_of(game).game.to_act
    assert mover is not None
    board = base.board_of(world, c, game.game_id)
    offer = Callback.game(game.game_id, game.version, ButtonAction.RESIGN, 1).format()
    await world.tap(c.chat, c.user(player_on(game, mover).user_id), board, offer, strict=False)
    offered = await world.store.games.load_game(c.chat.id, game.game_id)
    assert offered is not None and offered.version > game.version
    board = base.board_of(world, c, game.game_id)
    accept = Callback.game(game.game_id, offered.version, ButtonAction.ACCEPT).format()
    answer = await world.tap(c.chat, c.user(player_on(game, mover.opponent).user_id), board,
                             accept, strict=False)
    assert "decided by forfeit" in (answer.text or ""), answer
    still = await world.store.games.load_game(c.chat.id, game.game_id)
    assert still is not None and still.status is Status.ACTIVE
    assert not await world.store.ledger.history(c.chat.id)


async def test_a_resignation_before_a_withdrawal_stands(world: World, clock: Clock) -> None:
    """The other order: the game ended by resignation first is booked and
    counts as played; the later withdrawal forfeits only what is left."""
    c = club(world, 4)
    tournament_id, game, first, bob = await _game_being_played(world, c)
    await _resign(world, game, bob)
    await service.commit_tournament(world.store, c.chat.id, tournament_id,
                                    lambda r, now: rules.withdraw(r, bob, now))
    await handler.process(CallbackContext(world.app), c.chat.id, tournament_id)
    await world.idle()
    ended = await world.store.games.load_game(c.chat.id, game.game_id)
    assert ended is not None and ended.status is Status.FINISHED
    history = await world.store.ledger.history(c.chat.id)
    assert len(history) == 1 and history[0].winner is not None and history[0].rating_changes
    record = await base.current(world, c)
    decided = record.rounds[0].pairings[0]
    assert decided.result is not None and decided.result.decision is Decision.PLAYED
    assert decided.result.winner == first


class HeldChat(BaseRateLimiter[None]):
    """A flood limiter that holds every message to one chat until released: a
    group whose big round is being posted at its pace (20 a minute)."""

    def __init__(self) -> None:
        self.chat: int | None = None
        self.released = asyncio.Event()

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, Any]],
                              args: Any, kwargs: dict[str, Any], endpoint: str,
                              data: dict[str, Any], rate_limit_args: None) -> Any:
        if self.chat is not None and data.get("chat_id") == self.chat:
            await self.released.wait()
        return await callback(*args, **kwargs)


async def test_one_chats_slow_round_never_delays_another_chats(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a 64-player round was posted at its group's pace, another group's
    next round waited 77.5 s for it: the job did one tournament after another.
    Here chat A's messages are held (its pace) until chat B's round is posted."""
    held = HeldChat()
    fake = Clock(tmp_path / "offset")
    monkeypatch.setenv(clocks.TEST_CLOCK_ENV, str(fake.path))
    fake.advance(0)
    async with running_world(store, limiter=held) as world:
        for job in world.app.job_queue.get_jobs_by_name(handler.JOB_NAME):
            job.enabled = False
        a, b = club(world, 2), club(world, 2)
        records = []
        for c in (a, b):
            sent = await world.send(c.chat, c.players[0], "/tournament ko start=1h")
            lobby = await world.reply(c.chat, sent, "Tournament")
            for player in c.players:
                await world.tap(c.chat, player, lobby, text="✋ Join")
            records.append(await base.current(world, c))
        fake.advance(3600 + 60)
        due = clocks.now()
        for order, record in enumerate(records):   # A's is handed out first
            await world.store.tournament.reschedule(record, due - 2 + order)
        held.chat = a.chat.id
        job = asyncio.create_task(handler.tick_job(CallbackContext(world.app)))
        try:
            await world.server.wait_message_async(b.chat, "Round 1", timeout=20)
            assert not base.texts(world, a, "Round 1")   # A's still waits for its pace
        finally:
            held.released.set()
        await job
        await world.idle()
        assert [len(base.texts(world, c, "Round 1")) for c in (a, b)] == [1, 1]
