"""Every flow and every refusal, through the real handlers and the local Bot API server."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from telegram.ext import CallbackQueryHandler, CommandHandler

from bot.edge.handlers import menu
from bot.edge.handlers.board import PING_DELAY
from bot.rules.chatsettings import with_setting
from bot.rules.matchstate import table_of
from bot.vocab.callbacks import ButtonAction, Callback, Kind
from bot.vocab.records import Status, settings_key
from engine.game import Action, Phase
from tests.bot.conftest import World
from tests.bot.driver import game_board
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game


@dataclass
class Table:
    chat: Chat
    alice: User
    bob: User
    eve: User


def _setup(world: World, **group: object) -> Table:
    s = world.server
    alice, bob, eve = s.add_user("Alice"), s.add_user("Bob"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, bob, eve], **group)  # type: ignore[arg-type]
    return Table(club, alice, bob, eve)


async def _start(world: World, t: Table, args: str = "long") -> Message:
    sent = await world.send(t.chat, t.alice, f"/new {args}")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    return world.board(t.chat)


async def _record(world: World, t: Table):  # type: ignore[no-untyped-def]
    record = await chat_game(world.store, t.chat.id)
    assert record is not None
    return record


async def _mover(world: World, t: Table) -> tuple[User, User]:
    record = await _record(world, t)
    side = table_of(record).game.to_act
    first = next(p.user_id for p in record.players if p.side is side)
    return (t.alice, t.bob) if first == t.alice.id else (t.bob, t.alice)


def _data(world: World, board: Message, action: str) -> str:
    return world.find(board, lambda _text, data: data.split(":")[3] == action)[1]


async def _play_until(world: World, t: Table, ready: Callable[[User], bool]) -> Message:
    """Play on (confirm, step, roll) until Double is offered to a player ``ready`` accepts."""
    while True:
        board = world.board(t.chat)
        actions = [d.split(":")[3] for _, d in world.buttons(board)]
        mover, _ = await _mover(world, t)
        if "d" in actions and ready(mover):
            return board
        action = next(a for a in ("c", "m", "h", "r") if a in actions)
        await world.tap(t.chat, mover, board, _data(world, board, action))


async def _at_roll(world: World, t: Table) -> Message:
    """A backgammon game (cube on) played on until a player has Roll (and
    Double) to choose from: a long nardy game rolls by itself (bot/rules/autoplay.py)."""
    await _start(world, t, "backgammon")
    return await _play_until(world, t, lambda _mover: True)


# ---------------------------------------------------------------- lobby and /new


async def test_unknown_option_lists_the_valid_ones(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new speed=3")
    reply = await world.reply(t.chat, sent)
    assert "Unknown option speed=3" in reply.text and "match=…" in reply.text
    assert await chat_game(world.store, t.chat.id) is None


async def test_bad_option_value_is_explained(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new match=0")
    reply = await world.reply(t.chat, sent)
    assert "match needs a whole number from 1 to 25" in reply.text


async def test_lobby_variant_join_twice_leave_and_start(world: World) -> None:
    world.app.bot_data[PING_DELAY] = 0  # the ping at once (test_turn_pings.py: later)
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new")
    lobby = await world.reply(t.chat, sent, "New game: Long nardy")
    await world.tap(t.chat, t.alice, lobby, text="Backgammon")
    assert "New game: Backgammon" in world.server.message(t.chat.id, lobby.message_id).text
    answer = await world.tap(t.chat, t.eve, lobby, text="Long nardy")
    assert answer.show_alert and "Only the players" in (answer.text or "")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    again = await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    assert again.show_alert and "joined already" in (again.text or "")
    await world.tap(t.chat, t.alice, lobby, text="Leave")
    assert "Joined" not in world.server.message(t.chat.id, lobby.message_id).text
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    board = world.board(t.chat)  # a picture board replaces the lobby message
    assert "Backgammon" in board.content and "Opening roll" in board.content
    assert (await _record(world, t)).status is Status.ACTIVE
    # the player to move is pinged by a separate message mentioning them
    ping = world.server.last_message(t.chat)
    assert ping is not None and "your turn" in ping.text
    assert any(e["type"] == "text_mention" for e in ping.entities)


async def test_new_while_a_game_runs_opens_another_lobby(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t)
    sent = await world.send(t.chat, t.eve, "/new backgammon")
    lobby = await world.reply(t.chat, sent, "New game")
    assert lobby.message_id != board.message_id
    kept = world.server.message(t.chat.id, board.message_id)
    assert kept.buttons and kept.content == board.content  # the game goes on, untouched
    assert await world.store.games.live_count(t.chat.id) == 2


async def test_lobby_close_by_creator_and_not_by_others(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new")
    lobby = await world.reply(t.chat, sent, "New game")
    answer = await world.tap(t.chat, t.eve, lobby, text="Close")
    assert answer.show_alert
    await world.tap(t.chat, t.alice, lobby, text="Close")
    assert "closed" in world.server.message(t.chat.id, lobby.message_id).text
    assert (await _record(world, t)).status is Status.CANCELLED


# ---------------------------------------------------------------- who may tap


async def test_intruder_and_waiting_player_are_refused(world: World) -> None:
    t = _setup(world)
    board = await _at_roll(world, t)
    before = await _record(world, t)
    mover, other = await _mover(world, t)
    roll = _data(world, board, "r")
    intruder = await world.tap(t.chat, t.eve, board, roll)
    assert intruder.show_alert and intruder.text == "You are not playing in this game."
    waiting = await world.tap(t.chat, other, board, roll)
    assert waiting.show_alert and waiting.text == "It is not your turn."
    assert (await _record(world, t)).version == before.version
    ok = await world.tap(t.chat, mover, board, roll)
    assert not ok.show_alert
    assert (await _record(world, t)).version == before.version + 1


async def test_stale_forged_and_duplicated_taps_change_nothing(world: World) -> None:
    t = _setup(world)
    board = await _at_roll(world, t)
    mover, _ = await _mover(world, t)
    roll = _data(world, board, "r")
    await world.tap(t.chat, mover, board, roll)
    version = (await _record(world, t)).version
    # Roll again from the older drawing of this board: not twice, and no blame
    stale = await world.tap(t.chat, mover, board, roll, strict=False)
    assert stale.show_alert and "catching up" in (stale.text or "")
    forged = await world.tap(t.chat, mover, board, "g:zzzz:1:r", strict=False)
    assert forged.show_alert
    garbage = await world.tap(t.chat, mover, board, "hello", strict=False)
    assert garbage.show_alert and "does not work" in (garbage.text or "")
    wrong_args = Callback.game((await _record(world, t)).game_id, version, ButtonAction.STEP,
                               24, 1, 6).format()
    bad_step = await world.tap(t.chat, mover, board, wrong_args, strict=False)
    assert bad_step.show_alert
    assert (await _record(world, t)).version == version
    # a step tapped, then the same update delivered again: applied once
    fresh = world.server.message(t.chat.id, board.message_id)
    step = _data(world, fresh, "m")
    tap = world.server.user_taps(t.chat, mover, fresh, step)
    await tap.wait_answer_async()
    await world.idle()
    world.server.redeliver(tap.update_id)
    await world.idle()
    await asyncio.sleep(0.2)
    record = await _record(world, t)
    assert record.version == version + 1
    assert len(table_of(record).game.turn.played) == 1  # type: ignore[union-attr]


async def test_two_taps_at_once_apply_once(world: World) -> None:
    t = _setup(world)
    board = await _at_roll(world, t)
    mover, _ = await _mover(world, t)
    roll = _data(world, board, "r")
    version = (await _record(world, t)).version
    taps = [world.server.user_taps(t.chat, mover, board, roll) for _ in range(4)]
    answers = [await tap.wait_answer_async() for tap in taps]
    await world.idle()
    assert sum(not a.show_alert for a in answers) == 1, answers
    assert (await _record(world, t)).version == version + 1


# ---------------------------------------------------------------- moving


async def test_steps_undo_confirm_and_source_selection(world: World) -> None:
    world.app.bot_data[PING_DELAY] = 0  # the ping at once, and deleted once its player acts
    t = _setup(world)
    # Confirm asked after every turn (without it, a turn stepped to its end where the
    # next roll is a tap anyway is handed over at once: test_confirm_optional.py)
    await world.store.games.update(settings_key(t.chat.id), lambda s: with_setting(
        s, t.chat.id, "confirm_turns", "always"))
    board = await _at_roll(world, t)
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "r"))
    board = world.server.message(t.chat.id, board.message_id)
    assert "to move" in board.content
    step = _data(world, board, "m")
    await world.tap(t.chat, mover, board, step)
    board = world.server.message(t.chat.id, board.message_id)
    assert any(text.endswith("Undo") for text, _ in world.buttons(board))
    await world.tap(t.chat, mover, board, _data(world, board, "u"))
    board = world.server.message(t.chat.id, board.message_id)
    assert not any(text.endswith("Undo") for text, _ in world.buttons(board))
    # play the turn to the end; nothing reaches the opponent before Confirm
    pings = len(world.server.messages(t.chat))
    while not any(d.split(":")[3] == "c" for _, d in world.buttons(board)):
        await world.tap(t.chat, mover, board, _data(world, board, "m"))
        board = world.server.message(t.chat.id, board.message_id)
    assert len(world.server.messages(t.chat)) == pings
    early = await world.tap(t.chat, other, board, _data(world, board, "c"))
    assert early.show_alert
    await world.tap(t.chat, mover, board, _data(world, board, "c"))
    record = await _record(world, t)
    assert table_of(record).game.phase is Phase.ROLL
    ping = world.server.last_message(t.chat)
    assert ping is not None and "your turn" in ping.text and other.first_name in ping.text
    # the ping disappears once the other player acts
    board = world.server.message(t.chat.id, board.message_id)
    await world.tap(t.chat, other, board, _data(world, board, "r"))
    assert world.server.message(t.chat.id, ping.message_id).deleted


async def test_source_then_target_when_many_steps(world: World,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # fewer direct buttons than the bot's 12, so a point's targets show up soon
    monkeypatch.setattr("bot.present.keyboards.DIRECT_LIMIT", 4)
    t = _setup(world)
    board = await _start(world, t, "backgammon")
    # play until some keyboard offers a source button, then use it
    for _ in range(200):
        board = world.board(t.chat)
        datas = [d for _, d in world.buttons(board)]
        mover, _ = await _mover(world, t)
        source = next((d for d in datas if d.split(":")[3] == "s"), None)
        if source is not None:
            await world.tap(t.chat, mover, board, source)
            targets = [d for _, d in world.buttons(board)]
            point = int(source.split(":")[4])
            assert all(d.split(":")[3] in ("m", "b", "o") for d in targets)
            assert all(int(d.split(":")[4]) == point for d in targets if d.split(":")[3] == "m")
            await world.tap(t.chat, mover, board, _data(world, board, "b"))
            assert [d for _, d in world.buttons(board)] == datas
            return
        action = next(a for a in ("c", "m", "r", "t") if any(d.split(":")[3] == a for d in datas))
        await world.tap(t.chat, mover, board, _data(world, board, action))
    pytest.fail("no source selection offered in 200 taps")


# ---------------------------------------------------------------- cube and resignation


async def test_double_take_and_pass(world: World) -> None:
    t = _setup(world)
    await _start(world, t, "backgammon")
    # the starter plays the opening roll in backgammon; then the other may double
    board = await _play_until(world, t, lambda _mover: True)
    doubler, taker = await _mover(world, t)
    await world.tap(t.chat, doubler, board, _data(world, board, "d"))
    board = world.board(t.chat)
    assert "doubled to 2" in board.content
    wrong = await world.tap(t.chat, doubler, board, _data(world, board, "t"))
    assert wrong.show_alert
    await world.tap(t.chat, taker, board, _data(world, board, "t"))
    record = await _record(world, t)
    game = table_of(record).game
    assert game.cube is not None and game.cube.value == 2 and game.cube.owner is not None
    # the doubler rolls now; play to the taker's turn and let the taker redouble
    board = await _play_until(world, t, lambda mover: mover is taker)
    await world.tap(t.chat, taker, board, _data(world, board, "d"))
    board = world.board(t.chat)
    await world.tap(t.chat, doubler, board, _data(world, board, "p"))
    board = world.board(t.chat)
    assert "Are you sure" in board.content
    await world.tap(t.chat, doubler, board, _data(world, board, "b"))
    await world.tap(t.chat, doubler, board, _data(world, board, "p"))
    await world.tap(t.chat, doubler, board, _data(world, board, "P"))
    board = world.board(t.chat)
    assert "the double was passed, 2 points" in board.content
    assert [text for text, _ in world.buttons(board)] == [
        "Rematch", "New game", "🎲 Verify", "📊 Analysis"]
    record = await _record(world, t)
    assert record.status is Status.FINISHED
    history = await world.store.ledger.history(t.chat.id)
    assert history[0].points == 2


async def test_resign_offer_declined_then_accepted(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t)
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    menu = [text for text, _ in world.buttons(board)]
    assert menu[:2] == ["Resign: oin", "Resign: mars"]
    await world.tap(t.chat, mover, board, _data(world, board, "R"))
    board = world.board(t.chat)
    assert "offers to resign (oin)" in board.content
    self_accept = await world.tap(t.chat, mover, board, _data(world, board, "a"))
    assert self_accept.show_alert
    await world.tap(t.chat, other, board, _data(world, board, "x"))
    assert "to move" in world.board(t.chat).content  # the roll was made by itself
    board = world.board(t.chat)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, world.find(board, lambda x, _: x == "Resign: mars")[1])
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    board = world.board(t.chat)
    assert "wins by resignation: mars, 2 points" in board.content


# ---------------------------------------------------------------- after the game


async def test_rematch_and_new_game_after_the_end(world: World) -> None:
    world.app.bot_data[PING_DELAY] = 0  # the offer's ping at once
    t = _setup(world)
    board = await _start(world, t)
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, _data(world, board, "R"))
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    first = await _record(world, t)
    refused = await world.tap(t.chat, t.eve, board, _data(world, board, "A"))
    assert refused.show_alert
    # a rematch is an offer: one tap starts nothing
    await world.tap(t.chat, other, board, _data(world, board, "A"))
    offered = await _record(world, t)
    assert (offered.game_id, offered.status, offered.rematch_by) == (
        first.game_id, Status.FINISHED, other.id)
    board = world.board(t.chat)
    assert f"{other.first_name} offers a rematch. {mover.first_name}: accept" in board.content
    assert [text for text, _ in world.buttons(board)] == [
        "Accept", "Decline", "Withdraw the offer", "New game", "🎲 Verify", "📊 Analysis"]
    ping = world.server.last_message(t.chat)
    assert ping is not None and "your opponent offers a rematch" in ping.text
    assert mover.first_name in ping.text
    # the offerer neither accepts nor declines his own offer, the opponent does not
    # withdraw it, nobody else touches it
    for user, action in ((other, "a"), (other, "x"), (mover, "e"), (t.eve, "a"),
                         (t.eve, "x"), (t.eve, "e")):
        answer = await world.tap(t.chat, user, board, _data(world, board, action))
        assert answer.show_alert, (user.first_name, action)
    assert await _record(world, t) == offered
    # withdrawn, offered again, declined, offered again, accepted
    await world.tap(t.chat, other, board, _data(world, board, "e"))
    assert (await _record(world, t)).rematch_by is None
    assert world.server.message(t.chat.id, ping.message_id).deleted
    await world.tap(t.chat, other, board, _data(world, board, "A"))
    await world.tap(t.chat, mover, board, _data(world, board, "x"))
    declined = await _record(world, t)
    assert declined.rematch_by is None and declined.status is Status.FINISHED
    assert [text for text, _ in world.buttons(board)] == [
        "Rematch", "New game", "🎲 Verify", "📊 Analysis"]
    await world.tap(t.chat, mover, board, _data(world, board, "A"))
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    second = await _record(world, t)
    assert second.status is Status.ACTIVE and second.game_id != first.game_id
    assert "➡" in world.board(t.chat).content
    # the finished board keeps its result and only its 📊 Analysis; the new game has its
    # own message
    kept = world.server.message(t.chat.id, board.message_id)
    assert not kept.deleted and kept.buttons == [[("📊 Analysis", f"an:{first.game_id}")]], kept
    assert "wins by resignation" in kept.content and "offers a rematch" not in kept.content
    assert world.board(t.chat).message_id != board.message_id
    # New game after the end: the lobby is a new message too, the result stays
    new_board = world.board(t.chat)
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, new_board, _data(world, new_board, "o"))
    await world.tap(t.chat, mover, new_board, _data(world, new_board, "R"))
    await world.tap(t.chat, other, new_board, _data(world, new_board, "a"))
    await world.tap(t.chat, t.eve, new_board, _data(world, new_board, "N"))
    kept = world.server.message(t.chat.id, new_board.message_id)
    assert not kept.deleted and "wins by resignation" in kept.content
    assert [text for row in kept.buttons for text, _ in row] == ["📊 Analysis"]
    assert "New game" in world.board(t.chat).content


async def test_match_score_and_next_game(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t, "long match=3 stake=5")
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, world.find(board, lambda x, _: x == "Resign: mars")[1])
    await world.tap(t.chat, mover, board, _data(world, board, "G"))  # staked: Yes, resign
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    board = world.board(t.chat)
    assert "Match to 3" in board.content
    # no New game while the match is not over: nobody wipes it, not even a player
    assert [text for text, _ in world.buttons(board)] == ["Next game", "📊 Analysis"]
    # a match books its stake once, when it ends (bot/rules/ledger.py)
    assert await world.store.ledger.balance(t.chat.id, other.id, mover.id) == 0
    between = await _record(world, t)
    forged = Callback.game(between.game_id, between.version, ButtonAction.NEW).format()
    for user in (t.eve, mover, other):
        refused = await world.tap(t.chat, user, board, forged, strict=False)
        assert refused.show_alert and "A match is being played here" in (refused.text or "")
    refused = await world.tap(t.chat, t.eve, board, _data(world, board, "A"))
    assert refused.show_alert and refused.text == "You are not playing in this game."
    # /new opens another lobby beside the match, which stays as it was
    sent = await world.send(t.chat, t.eve, "/new backgammon")
    await world.reply(t.chat, sent, "New game")
    record = await world.store.games.load_game(t.chat.id, between.game_id)
    assert record == between and record.is_live
    assert table_of(record).score in ((2, 0), (0, 2))
    # the next game: one player offers, the other accepts
    board = game_board(world.server, t.chat, game_id=between.game_id)
    assert board is not None
    await world.tap(t.chat, mover, board, _data(world, board, "A"))
    assert "offers the next game" in world.server.message(t.chat.id, board.message_id).content
    assert (await _record(world, t)).status is Status.FINISHED
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    ended = await world.store.games.load_game(t.chat.id, between.game_id)
    assert ended is not None and ended.next_game is not None and not ended.is_live
    record = await world.store.games.load_game(t.chat.id, ended.next_game)  # type: ignore[assignment]
    assert record is not None and record.status is Status.ACTIVE
    game = table_of(record).game
    # long nardy: the player who was second starts the next game, without an opening roll
    # (and rolls by itself: the first roll is the game's first event)
    assert game.opening is None and game.events[0].action is Action.ROLL
    assert table_of(record).score in ((2, 0), (0, 2))


async def _between_games(world: World, t: Table) -> tuple[User, User]:
    """A match to 3 for a stake of 5 after its first game (a mars: 2-0)."""
    board = await _start(world, t, "long match=3 stake=5")
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, world.find(board, lambda x, _: x == "Resign: mars")[1])
    await world.tap(t.chat, mover, board, _data(world, board, "G"))  # staked: Yes, resign
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    assert (await _record(world, t)).status is Status.FINISHED
    return mover, other


async def test_a_match_between_games_ends_by_both_players_and_books_nothing(
        world: World) -> None:
    t = _setup(world)
    mover, other = await _between_games(world, t)
    match = await _record(world, t)
    sent = await world.send(t.chat, t.eve, "/cancel")
    assert "not playing" in (await world.reply(t.chat, sent)).text
    sent = await world.send(t.chat, mover, "/cancel")
    await world.reply(t.chat, sent, "Cancel proposed")
    board = world.board(t.chat)
    assert "proposes to end the match; nothing is booked" in board.content
    # keep playing: the match goes on
    await world.tap(t.chat, other, board, _data(world, board, "K"))
    assert (await _record(world, t)).cancel_by is None
    assert [text for text, _ in world.buttons(world.board(t.chat))] == ["Next game", "📊 Analysis"]
    # both agree: the match ends, nothing is booked, and the chat is free again
    sent = await world.send(t.chat, other, "/cancel")
    await world.reply(t.chat, sent, "Cancel proposed")
    board = world.board(t.chat)
    await world.tap(t.chat, mover, board, _data(world, board, "C"))
    ended = await _record(world, t)
    assert ended.game_id == match.game_id and ended.status is Status.CANCELLED
    assert await world.store.ledger.ledger(t.chat.id) == {}
    assert [(h.game_id, h.stake) for h in await world.store.ledger.history(t.chat.id)] == [
        (match.game_id, 0)]
    sent = await world.send(t.chat, t.eve, "/new backgammon")
    await world.reply(t.chat, sent, "New game: Backgammon")
    assert (await _record(world, t)).status is Status.LOBBY


async def test_an_admin_ends_a_match_between_games_alone(world: World) -> None:
    t = _setup(world)
    world.server.set_admins(t.chat, t.eve)
    await _between_games(world, t)
    sent = await world.send(t.chat, t.eve, "/cancel")
    await world.reply(t.chat, sent, "The game was cancelled.")
    assert (await _record(world, t)).status is Status.CANCELLED
    assert await world.store.ledger.ledger(t.chat.id) == {}


async def test_the_waiting_player_cannot_change_the_movers_keyboard(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t)
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    menu = world.buttons(board)
    for action in ("b", "R", "C"):  # the mover's menu: Back, Resign, Propose to cancel
        answer = await world.tap(t.chat, other, board, _data(world, board, action))
        assert answer.show_alert and "/cancel" in (answer.text or ""), answer
        assert world.buttons(board) == menu
    await world.tap(t.chat, mover, board, _data(world, board, "b"))
    answer = await world.tap(t.chat, other, board, _data(world, board, "o"))
    assert answer.show_alert and "your own board (/games)" in (answer.text or "")
    assert not any(text.startswith("Resign") for text, _ in world.buttons(board))
    # what the alert offers works: /cancel proposes to cancel
    sent = await world.send(t.chat, other, "/cancel")
    await world.reply(t.chat, sent, "Cancel proposed")
    assert (await _record(world, t)).cancel_by == other.id


async def test_a_variant_change_unseats_who_joined_the_other_game(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.eve, "/new long stake=10")
    lobby = await world.reply(t.chat, sent, "New game: Long nardy")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.eve, lobby, text="Backgammon")
    record = await _record(world, t)
    assert record.variant.value == "backgammon" and record.players == ()
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    record = await _record(world, t)
    assert record.status is Status.LOBBY and [p.name for p in record.players] == ["Bob"]


# ---------------------------------------------------------------- commands


async def test_board_reposts_and_old_buttons_are_stale(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t)
    more = _data(world, board, "o")
    sent = await world.send(t.chat, t.bob, "/board")
    fresh = await world.reply(t.chat, sent, "➡", match=lambda m: m.message_id != board.message_id)
    mover, _ = await _mover(world, t)
    stale = await world.tap(t.chat, mover, board, more, strict=False)
    assert stale.show_alert and "out of date" in (stale.text or "")
    ok = await world.tap(t.chat, mover, fresh, _data(world, fresh, "o"))
    assert not ok.show_alert


async def test_deleted_board_is_posted_again(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t)
    # an admin deleted the board: the bot's own deleteMessage does what a user's would
    from telegram import Bot

    async with Bot(world.server.token or "", base_url=world.server.base_url) as bot:
        await bot.delete_message(t.chat.id, board.message_id)
    sent = await world.send(t.chat, t.alice, "/cancel")  # redraws the board
    fresh = await world.reply(t.chat, sent, "proposes to cancel")
    assert fresh.message_id != board.message_id and fresh.buttons
    assert (await _record(world, t)).board_message_id == fresh.message_id


async def test_cancel_needs_both_players_or_an_admin(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    sent = await world.send(t.chat, t.eve, "/cancel")
    assert "not playing" in (await world.reply(t.chat, sent)).text
    sent = await world.send(t.chat, t.alice, "/cancel")
    await world.reply(t.chat, sent, "Cancel proposed")
    board = world.board(t.chat)
    assert "proposes to cancel" in board.content
    # the proposal is what waits, for Bob: no "➡ … to move" beside it (issue 37)
    arrowed = [line for line in board.content.splitlines() if line.startswith("➡")]
    assert len(arrowed) == 1 and "Bob: accept or decline" in arrowed[0], board.content
    self_agree = await world.tap(t.chat, t.alice, board, _data(world, board, "C"))
    assert self_agree.show_alert
    await world.tap(t.chat, t.bob, board, _data(world, board, "K"))
    assert (await _record(world, t)).cancel_by is None
    sent = await world.send(t.chat, t.alice, "/cancel")
    await world.reply(t.chat, sent, "Cancel proposed")
    sent = await world.send(t.chat, t.bob, "/cancel")
    await world.reply(t.chat, sent, "The game was cancelled.")
    assert (await _record(world, t)).status is Status.CANCELLED
    assert (await world.store.ledger.history(t.chat.id))[0].result == "cancelled"


async def test_admin_cancels_alone(world: World) -> None:
    t = _setup(world)
    world.server.set_admins(t.chat, t.eve)
    await _start(world, t)
    sent = await world.send(t.chat, t.eve, "/cancel")
    await world.reply(t.chat, sent, "The game was cancelled.")
    assert (await _record(world, t)).status is Status.CANCELLED


async def test_export_sends_a_mat_file(world: World) -> None:
    t = _setup(world)
    await _start(world, t, "backgammon match=5")
    sent = await world.send(t.chat, t.alice, "/export")
    document = await world.reply(t.chat, sent, match=lambda m: m.document is not None)
    body = (document.document_bytes or b"").decode()
    assert " 5 point match" in body and "Alice : 0" in body and "Bob : 0" in body
    assert (document.document_name or "").endswith(".mat")


async def test_help_rules_and_no_game(world: World) -> None:
    t = _setup(world)
    for command, text in (("/help", "/new"), ("/rules", "Long nardy"),
                          ("/board", "no game here"), ("/cancel", "no game here")):
        sent = await world.send(t.chat, t.alice, command)
        assert text in (await world.reply(t.chat, sent)).text


async def test_language_follows_the_user_and_lang_fixes_it(world: World) -> None:
    s = world.server
    ivan = s.add_user("Ivan", language_code="ru")
    ona = s.add_user("Ona", language_code="lt")
    club = s.add_group("Club", members=[ivan, ona], owner=ona)
    sent = await world.send(club, ivan, "/new")
    assert "Новая игра" in (await world.reply(club, sent)).text
    sent = await world.send(club, ona, "/lang")
    menu = await world.reply(club, sent)
    refused = await world.tap(club, ivan, menu, text="Lietuvių")
    assert refused.show_alert  # only admins fix the chat language
    await world.tap(club, ona, menu, text="Lietuvių")
    sent = await world.send(club, ivan, "/help")
    assert "Nardai" in (await world.reply(club, sent)).text or "nard" in (
        await world.reply(club, sent)).text.lower()
    assert (await world.store.games.chat_settings(club.id)).language == "lt"


async def test_commands_are_registered_per_language(world: World) -> None:
    for code in ("", "ru", "lt"):
        names = [c["command"] for c in world.server.commands(language_code=code)]
        assert {"new", "board", "cancel", "export", "help", "rules", "lang"} <= set(names)
    ru = {c["command"]: c["description"] for c in world.server.commands(language_code="ru")}
    assert ru["board"] != "Show the current board again"


async def test_every_button_is_routed_by_its_kind_not_by_handler_order(world: World) -> None:
    """No catch-all: each callback handler has its kind's pattern, and data of
    no kind gets an answer (an alert) from the fallback."""
    patterns = [h.pattern.pattern for handlers in world.app.handlers.values() for h in handlers
                if isinstance(h, CallbackQueryHandler)]
    assert None not in patterns
    for kind in Kind:
        assert sum(bool(re.match(p, f"{kind.value}:x")) for p in patterns) == 1
    t = _setup(world)
    board = await _start(world, t)
    answer = await world.tap(t.chat, t.alice, board, "zz:forged", strict=False)
    assert answer.show_alert


async def test_one_command_table_drives_menu_handlers_and_help(world: World) -> None:
    """The menu, the registered commands and /help come from one table: every
    command in the menu answers, and /help names each of them."""
    t = _setup(world)
    offered = [c["command"] for c in world.server.commands()]
    assert offered == [c.name for c in menu.COMMANDS if c.menu is not None]
    sent = await world.send(t.chat, t.alice, "/help")
    help_text = (await world.reply(t.chat, sent)).text
    assert [name for name in offered if f"/{name}" not in help_text] == []
    registered = {name for handlers in world.app.handlers.values() for h in handlers
                  if isinstance(h, CommandHandler) for name in h.commands}
    assert registered == {c.name for c in menu.COMMANDS}


def test_every_kind_of_button_is_routed_by_one_table_row(world: World) -> None:
    """menu.BUTTONS routes each Kind to exactly one handler, and those rows are
    what is registered: a new kind left out of the table would be answered by
    buttons.on_other only."""
    routed = [kind for _, kinds in menu.BUTTONS for kind in kinds]
    assert sorted(routed) == sorted(Kind) and len(routed) == len(set(routed))
    registered = [h.callback for handlers in world.app.handlers.values() for h in handlers
                  if isinstance(h, CallbackQueryHandler)]
    assert registered[:len(menu.BUTTONS)] == [callback for callback, _ in menu.BUTTONS]


# ---------------------------------------------------------------- chats


async def test_migrated_group_keeps_its_game(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    old = await _record(world, t)
    supergroup = world.server.migrate_chat(t.chat)
    await world.idle()
    await asyncio.sleep(0.2)
    moved = await chat_game(world.store, supergroup.id)
    assert moved is not None and moved.game_id == old.game_id
    sent = await world.send(supergroup, t.alice, "/board")
    assert "➡" in (await world.reply(supergroup, sent)).content


async def test_forum_topics_have_their_own_games(world: World) -> None:
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    forum = s.add_group("Forum", members=[alice, bob], forum=True)
    one, two = s.create_topic(forum, "One"), s.create_topic(forum, "Two")
    for topic in (one, two):
        sent = await world.send(forum, alice, "/new", thread_id=topic)
        lobby = await world.reply(forum, sent, "New game")
        assert lobby.thread_id == topic
    assert await chat_game(world.store, forum.id, one) is not None
    assert await chat_game(world.store, forum.id, two) is not None


async def test_removed_bot_keeps_the_game(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    world.server.kick_bot(t.chat, by=t.alice)
    await world.idle()
    world.server.add_bot(t.chat, by=t.alice)
    await world.idle()
    sent = await world.send(t.chat, t.alice, "/board")
    assert "➡" in (await world.reply(t.chat, sent)).content


async def test_a_tap_reads_the_chat_settings_once(world: World,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The translator, the board's style and its language come from one read
    of the chat's settings per update (bot/edge/handlers/common.py), on its
    own or with the tapped game's."""
    t = _setup(world)
    board = await _start(world, t)
    mover, _ = await _mover(world, t)
    reads: list[int] = []
    read, read_with = world.store.games.chat_settings, world.store.games.load_with_settings

    async def counted(chat_id: int):  # type: ignore[no-untyped-def]
        reads.append(chat_id)
        return await read(chat_id)

    async def counted_with(chat_id: int, game_id: str):  # type: ignore[no-untyped-def]
        reads.append(chat_id)
        return await read_with(chat_id, game_id)

    monkeypatch.setattr(world.store.games, "chat_settings", counted)
    monkeypatch.setattr(world.store.games, "load_with_settings", counted_with)
    actions = [d.split(":")[3] for _, d in world.buttons(board)]
    action = next(a for a in ("c", "m", "h", "r") if a in actions)
    answer = await world.tap(t.chat, mover, board, _data(world, board, action))
    assert not answer.show_alert
    assert world.board(t.chat).revision > board.revision  # the board was redrawn
    assert reads == [t.chat.id]
