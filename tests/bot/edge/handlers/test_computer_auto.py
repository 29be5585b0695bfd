"""``level=auto`` through the buttons (issue 38): the computer sits down at the
level the person's standing gives, each finished game at auto moves the
standing once (a duplicate delivery of its last tap, a retried hook: no
more), a rematch stays at auto at the new level, and /stats shows it."""

from __future__ import annotations

import functools

from ai import Level
from bot.rules import computer, matchstate, seats
from bot.service.ending import after_end
from bot.vocab.callbacks import ButtonAction, Callback, CallbackDataError
from bot.vocab.records import COMPUTER_USER_IDS, Status
from engine.position import Variant
from tests.bot.conftest import World
from tests.bot.driver import game_board, start_button
from tests.bot.edge.handlers.test_computer import _played_out, _start
from tests.botapi.model import Chat, User
from tests.conftest import chat_game


async def _resign(world: World, chat: Chat, user: User) -> int:
    """The person offers the biggest resignation on their turn (the bot takes
    it: nothing is worth more to it); returns the resigning tap's update id."""
    record = await chat_game(world.store, chat.id)
    assert record is not None and seats.waiting_user(record) == user.id
    board = game_board(world.server, chat)
    assert board is not None
    menu = world.find(board, lambda _t, d: _is(d, ButtonAction.MENU))[1]
    await world.tap(chat, user, board, menu)
    resigns = [d for _, d in world.buttons(board) if _is(d, ButtonAction.RESIGN)]
    tap = world.server.user_taps(chat, user, board, resigns[-1])
    answer = await tap.wait_answer_async()
    await world.idle()
    assert not answer.show_alert, answer
    return tap.update_id


def _is(data: str | None, action: ButtonAction) -> bool:
    try:
        return data is not None and Callback.parse(data).action is action
    except CallbackDataError:
        return False


async def _stats(world: World, chat: Chat, user: User) -> str:
    sent = await world.send(chat, user, "/stats")
    return (await world.reply(chat, sent, "Level now")).content


async def test_a_game_at_auto_moves_the_level_once_and_the_rematch_follows(
        world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    record = await _start(world, club, alice, "/new long bot auto")
    assert record.options.computer == "auto"
    assert [(p.user_id, p.name) for p in record.players] == [
        (alice.id, "Alice"), (COMPUTER_USER_IDS["medium"], "🤖 Nardy bot (auto: medium)")]
    assert await world.store.computer.standing(alice.id, Variant.LONG) is None
    last_tap = await _resign(world, club, alice)
    ended = await chat_game(world.store, club.id)
    assert ended is not None and ended.status is Status.FINISHED
    after = await world.store.computer.standing(alice.id, Variant.LONG)
    assert after is not None
    assert (after.rung, after.games, after.wins) == (
        computer.AUTO_START - computer.AUTO_STEP, 1, 0)
    assert computer.auto_level(after.rung) is Level.EASY
    # the last tap delivered again, and the end's hook run again (a retried update): once
    s.redeliver(last_tap)
    await world.idle()
    await after_end(world.store, ended)
    assert await world.store.computer.standing(alice.id, Variant.LONG) == after
    text = await _stats(world, club, alice)
    assert "Long nardy against the bot at auto" in text, text
    assert "Level now: easy" in text and "Games at auto, in every chat: 1, won 0" in text, text
    assert "Long nardy against the bot (medium)" in text, text  # the game, at the level it was
    # a rematch is at auto again, at the level the lost game gave
    board = game_board(s, club)
    assert board is not None
    await world.tap(club, alice, board, text="Rematch")
    rematch = await chat_game(world.store, club.id)
    assert rematch is not None and rematch.game_id != ended.game_id
    assert rematch.status is Status.LOBBY and rematch.options.computer == "auto"
    assert [(p.user_id, p.name) for p in rematch.players] == [
        (alice.id, "Alice"), (COMPUTER_USER_IDS["easy"], "🤖 Nardy bot (auto: easy)")]
    fresh = game_board(s, club)
    data = None if fresh is None else start_button(fresh)
    assert fresh is not None and data is not None
    assert not (await world.tap(club, alice, fresh, data)).show_alert
    started = await chat_game(world.store, club.id)
    assert started is not None and started.status is Status.ACTIVE
    assert computer.computer_seat(started) == rematch.players[1]
    # the rematch's end moves it again (and only its own end)
    await _resign(world, club, alice)
    again = await world.store.computer.standing(alice.id, Variant.LONG)
    assert again is not None and (again.rung, again.games) == (
        computer.AUTO_START - 2 * computer.AUTO_STEP, 2)


async def test_the_next_game_sits_at_the_level_the_results_gave(world: World) -> None:
    """Wins in one chat raise the level the bot plays the person at everywhere;
    a fixed level is not moved by them, and a cancelled game at auto moves nothing."""
    s = world.server
    alice = s.add_user("Alice")
    club, other = s.add_group("Club", members=[alice]), s.add_group("Other", members=[alice])
    for n in range(5):  # five wins at auto: two levels up and a half
        await world.store.computer.move(alice.id, Variant.BACKGAMMON, f"-1:0:won{n}",
                                        functools.partial(computer.auto_moved, user_id=alice.id,
                                                          variant=Variant.BACKGAMMON,
                                                          person_won=True))
    record = await _start(world, other, alice, "/new backgammon bot level=auto")
    assert record.players[1].name == "🤖 Nardy bot (auto: best)"
    assert record.players[1].user_id == COMPUTER_USER_IDS["best"]
    sent = await world.send(other, alice, "/cancel")
    await world.reply(other, sent, "cancelled")
    assert (await chat_game(world.store, other.id)).status is Status.CANCELLED  # type: ignore[union-attr]
    standing = await world.store.computer.standing(alice.id, Variant.BACKGAMMON)
    assert standing is not None and standing.games == 5  # the cancelled game: nothing
    fixed = await _start(world, club, alice, "/new backgammon bot strong")
    assert fixed.options.computer == "strong"
    assert fixed.players[1].name == "🤖 Nardy bot (strong)"
    await _resign(world, club, alice)
    assert await world.store.computer.standing(alice.id, Variant.BACKGAMMON) == standing


async def test_a_whole_game_at_auto_played_out(world: World) -> None:
    """Borne off to the end, whoever wins: the standing moves by the result."""
    _, alice, done = await _played_out(world, "/new backgammon bot auto")
    result = matchstate.table_of(done).game.result
    assert result is not None
    won = done.players[0].side is result.winner
    standing = await world.store.computer.standing(alice.id, Variant.BACKGAMMON)
    assert standing is not None and (standing.games, standing.wins) == (1, int(won))
    assert standing.rung == computer.auto_rung(computer.AUTO_START, won)


async def test_its_name_and_stats_in_the_chats_language(world: World) -> None:
    s = world.server
    alice = s.add_user("Alice", language_code="ru")
    chat = s.private_chat(alice)
    record = await _start(world, chat, alice, "/new long bot auto")
    assert record.players[1].name == "🤖 Бот-нардист (авто: средний)"
    await _resign(world, chat, alice)
    sent = await world.send(chat, alice, "/stats")
    text = (await world.reply(chat, sent, "Уровень сейчас")).content
    assert "Уровень сейчас: лёгкий" in text, text
    assert "Игр на auto во всех чатах: 1, побед 0" in text, text
