"""Playing the computer through the buttons, in process (bot/rules/computer.py,
bot/edge/handlers/computer.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from telegram.ext import CallbackContext

from bot.edge.handlers import computer as computer_turns
from bot.rules import computer, matchstate, play, seats
from bot.service import saving
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import COMPUTER_USER_IDS, GameRecord, Status
from engine import legal_turns
from tests.bot.conftest import World
from tests.bot.driver import Driver, game_board
from tests.botapi.model import Chat, User
from tests.conftest import chat_game


async def _start(world: World, chat: Chat, user: User, command: str) -> GameRecord:
    """``user`` starts a game against the computer: its record, under way."""
    answer = await world.start_computer(chat, user, command)
    assert not answer.show_alert, answer
    record = await chat_game(world.store, chat.id)
    assert record is not None and record.status is Status.ACTIVE
    return record


async def _played_out(world: World, command: str) -> tuple[Chat, User, GameRecord]:
    """Alice, alone in a group, plays ``command``'s game against the computer
    to its end: the group, Alice and the finished record."""
    alice = world.server.add_user("Alice")
    club = world.server.add_group("Club", members=[alice])
    await _start(world, club, alice, command)
    await asyncio.to_thread(Driver(world.server, club, (alice, alice)).play)
    done = await chat_game(world.store, club.id)
    assert done is not None and done.status is Status.FINISHED
    return club, alice, done


@pytest.mark.parametrize("variant", ["long", "backgammon"])
async def test_whole_game_against_the_easy_bot(world: World, variant: str) -> None:
    s = world.server
    alice, eve = s.add_user("Alice"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, eve])
    await _start(world, club, alice, f"/new {variant} bot level=easy")
    record = await chat_game(world.store, club.id)
    assert record is not None and record.status is Status.ACTIVE
    assert [p.user_id for p in record.players] == [alice.id, COMPUTER_USER_IDS["easy"]]
    assert record.options.stake_per_point == 0 and record.options.time_control is None
    driver = Driver(s, club, (alice, alice), intruder=eve)
    final = await asyncio.to_thread(driver.play)
    assert "wins" in final.content, final.content
    done = await chat_game(world.store, club.id)
    assert done is not None and done.status is Status.FINISHED


async def _stats_text(world: World, chat: object, user: object) -> str:
    sent = await world.send(chat, user, "/stats")  # type: ignore[arg-type]
    return (await world.reply(chat, sent, None)).content  # type: ignore[arg-type]


async def test_stats_against_the_bot_are_apart_per_level_and_unrated(world: World) -> None:
    club, alice, _ = await _played_out(world, "/new long bot level=easy")
    text = await _stats_text(world, club, alice)
    assert "Long nardy against the bot (easy)" in text, text
    assert "Rating" not in text, text  # no rating against a machine
    stats = await world.store.ledger.player_stats(club.id)
    assert [(st.user_id, st.versus) for st in stats] == [(alice.id, "bot-easy")]  # none for it


async def test_stake_and_clock_are_refused_for_a_bot_game(world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    sent = await world.send(club, alice, "/new long bot stake=10")
    answer = await world.reply(club, sent, "never staked")
    assert answer.reply_to == sent.message_id
    assert await chat_game(world.store, club.id) is None
    sent = await world.send(club, alice, "/new long bot level=hard")
    await world.reply(club, sent, "level is easy, medium, strong, best or auto")
    # the chat's own stake and clock do not apply to the bot
    await world.send(club, alice, "/stake 10")
    await world.idle()
    await _start(world, club, alice, "/new backgammon bot")
    record = await chat_game(world.store, club.id)
    assert record is not None and record.options.computer == "medium"
    assert record.options.stake_per_point == 0 and record.options.time_control is None


async def test_the_bots_turn_is_one_board_edit_and_others_cannot_tap(world: World) -> None:
    s = world.server
    alice, eve = s.add_user("Alice"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, eve])
    await _start(world, club, alice, "/new backgammon bot level=strong")
    for _ in range(4):  # a few turns at the strong level
        record = await chat_game(world.store, club.id)
        assert record is not None and seats.waiting_user(record) == alice.id
        bot_moves = len(matchstate.table_of(record).game.events)
        while True:
            board = game_board(s, club)
            assert board is not None
            data = next(d for row in board.buttons for _, d in row
                        if d.split(":")[3] in ("c", "m", "r", "t"))
            eve_answer = await world.tap(club, eve, board, data)
            assert eve_answer.show_alert  # not hers to tap
            edits = s.message(club.id, board.message_id).edits
            assert not (await world.tap(club, alice, board, data)).show_alert
            if data.split(":")[3] == "c":
                break
        # the confirm and the bot's whole turn (roll, maybe cube, steps) are ONE edit
        assert s.message(club.id, board.message_id).edits == edits + 1
        after = await chat_game(world.store, club.id)
        assert after is not None
        if after.status is not Status.ACTIVE:
            break
        assert seats.waiting_user(after) == alice.id
        assert len(matchstate.table_of(after).game.events) > bot_moves + 1


async def test_the_lobby_button_seats_the_bot(world: World) -> None:
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    club = s.add_group("Club", members=[alice, bob])
    sent = await world.send(club, alice, "/new long")
    lobby = await world.reply(club, sent, "New game")
    await world.tap(club, alice, lobby, text="✋ Join")
    answer = await world.tap(club, bob, lobby, text="🤖 Play the bot")
    assert answer.show_alert and "tap ✋ Join" in (answer.text or "")
    await world.tap(club, alice, lobby, text="🤖 Play the bot")
    record = await chat_game(world.store, club.id)
    assert record is not None and record.status is Status.ACTIVE
    assert [p.name for p in record.players] == ["Alice", "🤖 Nardy bot (medium)"]
    assert seats.waiting_user(record) == alice.id


async def test_a_private_chat_game_against_the_bot(world: World) -> None:
    s = world.server
    alice = s.add_user("Alice", language_code="ru")
    chat = s.private_chat(alice)
    await _start(world, chat, alice, "/new long bot")
    record = await chat_game(world.store, chat.id)
    assert record is not None and record.players[1].name == "🤖 Бот-нардист (средний)"
    board = await asyncio.to_thread(Driver(s, chat, (alice, alice)).play, 30, stop_early=True)
    assert board.buttons


async def _strand(world: World, chat_id: int, age: float = 0.0) -> None:
    """Play the person's turn straight into the store, as if the process died
    after saving it and before the bot thought: the game waits for the bot
    (since ``age`` seconds; the sweep leaves alone what is younger than 5 s)."""
    record = await chat_game(world.store, chat_id)
    assert record is not None
    person = record.players[0].user_id
    new = record
    while seats.waiting_user(new) == person:
        game = matchstate.table_of(new).game
        if game.turn is None:
            new = play.apply_game(new, person, Callback.game(new.game_id, 0, ButtonAction.ROLL))
            continue
        turn = legal_turns(game.turn_start, game.turn.dice)[0]
        for step in turn.steps:
            if matchstate.table_of(new).game.turn.is_complete:  # the forced rest played itself
                break
            new = play.apply_game(new, person, Callback.game(
                new.game_id, 0, ButtonAction.STEP, step.source, step.target, step.die))
        new = play.apply_game(new, person, Callback.game(new.game_id, 0, ButtonAction.CONFIRM))
    new = new.model_copy(update={"updated_at": time.time() - age})
    stuck = await saving.save(world.store, record, new)
    assert computer.waiting_for_computer(stuck)


async def _unstuck(world: World, chat_id: int, tries: int = 1) -> None:
    for _ in range(tries):
        record = await chat_game(world.store, chat_id)
        assert record is not None
        if not computer.waiting_for_computer(record):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the game still waits for the bot")


async def test_a_stuck_bot_turn_resumes_on_a_tap_and_the_person_cannot_play_it(
        world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, "/new long bot level=easy")
    board = game_board(s, club)
    assert board is not None
    await _strand(world, club.id)
    # the board still shows Alice's old buttons: her tap is refused, and the bot goes on
    answer = await world.tap(club, alice, board, board.buttons[-1][-1][1])
    assert answer.show_alert
    await _unstuck(world, club.id)
    record = await chat_game(world.store, club.id)
    assert record is not None and seats.waiting_user(record) == alice.id
    await world.idle()
    fresh = game_board(s, club)
    assert fresh is not None and f":{record.version}:" in fresh.buttons[0][0][1]


async def test_a_stuck_bot_turn_resumes_on_board(world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, "/new backgammon bot level=easy")
    await _strand(world, club.id)
    await world.send(club, alice, "/board")
    await world.idle()
    await _unstuck(world, club.id)


@pytest.fixture
def fast_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NARDY_COMPUTER_SWEEP", "0.5")


async def test_a_stuck_bot_turn_resumes_by_itself(fast_sweep: None, world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, "/new long bot level=easy")
    await _strand(world, club.id, age=60)
    await _unstuck(world, club.id, tries=100)  # nobody tapped: the sweep (as at start-up) played it


async def test_a_match_against_the_bot_with_crawford(world: World) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, "/new backgammon bot level=easy match=5")
    crawford_games, reached = 0, False  # reached: a game began with someone at 4 of 5
    for _ in range(12):
        await asyncio.to_thread(Driver(s, club, (alice, alice)).play)
        record = await chat_game(world.store, club.id)
        assert record is not None and record.status is Status.FINISHED
        table = matchstate.table_of(record)
        crawford_games += table.game.crawford
        result = table.game.result
        assert result is not None
        before = list(table.score)
        before[result.winner] -= result.points
        reached = reached or 4 in before
        if table.match_over:
            break
        await world.idle()
        board = game_board(s, club)
        assert board is not None
        # Next game: Alice offers, the bot accepts at once (and opens if it starts)
        await world.tap(club, alice, board, text="Next game")
        record = await chat_game(world.store, club.id)
        assert record is not None and record.status is Status.ACTIVE, s.transcript(club)
    # the dice (the Start tap's id) decide whether anyone reached 4: then exactly one Crawford game
    assert max(table.score) >= 5 and crawford_games == int(reached), table.score
    assert table.crawford_done == reached


async def test_a_dead_worker_leaves_the_game_waiting_and_the_next_tap_goes_on(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.edge.handlers import computer as computer_turns

    monkeypatch.setattr(computer_turns, "_POOL", None)  # a pool of this test's own
    computer_turns.MOVES.clear()  # no answer kept from another test: the bot must think
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, "/new long bot level=easy")
    workers = computer_turns.pool()
    await asyncio.get_running_loop().run_in_executor(workers, int)  # its worker is up
    for process in list(workers._processes.values()):  # type: ignore[attr-defined]
        process.kill()  # the worker dies (out of memory, killed) between two turns
    await asyncio.sleep(0.5)
    for _ in range(20):  # Alice plays her turn; at her Confirm the bot cannot think
        record = await chat_game(world.store, club.id)
        assert record is not None
        if computer.waiting_for_computer(record):
            break
        board = game_board(s, club)
        assert board is not None
        data = next(d for row in board.buttons for _, d in row if d.split(":")[3] in "cmsr")
        assert not (await world.tap(club, alice, board, data)).show_alert
    else:
        raise AssertionError("Alice's turn never ended")
    assert computer_turns._POOL is not workers  # the broken pool is dropped
    board = game_board(s, club)
    assert board is not None
    answer = await world.tap(club, alice, board, board.buttons[0][0][1])
    assert answer.show_alert  # not her turn: and the bot goes on, with a new worker
    await _unstuck(world, club.id)


@pytest.mark.parametrize(("variant", "level"),
                         [("long", "strong"), ("backgammon", "medium"), ("backgammon", "best")])
async def test_turns_at_the_other_levels(world: World, variant: str, level: str) -> None:
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, f"/new {variant} bot level={level}")
    driver = Driver(s, club, (alice, alice))
    await asyncio.to_thread(driver.play, 6, stop_early=True)  # a few turns: the game still on
    record = await chat_game(world.store, club.id)
    assert record is not None and record.options.computer == level
    assert seats.waiting_user(record) == alice.id and driver.refused == 0


# ---------------------------------------------------------------- fair use of the chat's limit


async def test_one_person_cannot_fill_the_chat_with_games_against_the_bot(world: World) -> None:
    """Issue 21, item 5: ``/new long bot`` six times filled MAX_CHAT_GAMES.
    Games against the computer count against a per-person limit (one at a
    time by default), by command and by a lobby's 🤖 Play the bot."""
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob")
    club = s.add_group("Club", members=[alice, bob])
    await _start(world, club, alice, "/new long bot level=easy")
    for command in ("/new long bot", "/new backgammon bot level=strong"):
        sent = await world.send(club, alice, command)
        await world.reply(club, sent, "playing the bot here already")
    assert await world.store.games.live_count(club.id) == 1
    sent = await world.send(club, alice, "/new backgammon")  # her own lobby: the same limit
    lobby = await world.reply(club, sent, "New game")
    answer = await world.tap(club, alice, lobby, text="🤖 Play the bot")
    assert answer.show_alert and "playing the bot here already" in (answer.text or "")
    assert (await world.store.games.load_game(club.id, lobby_of(world,
                                                                lobby))).status is Status.LOBBY
    await _start(world, club, bob, "/new long bot level=easy")  # everyone has their own
    assert await world.store.games.live_count(club.id) == 3


def lobby_of(world: World, message: object) -> str:
    """The game id a lobby message's buttons name."""
    data = next(d for _, d in world.buttons(message) if d.startswith("l:"))  # type: ignore[arg-type]
    return data.split(":")[1]


async def test_a_bystander_cannot_turn_someone_elses_lobby_into_a_bot_game(
        world: World) -> None:
    """Issue 21, item 5: a bystander's 🤖 Play the bot on Alice's fresh staked
    lobby deleted it and gave them an unstaked game.  Only whoever opened the
    lobby (or sits in it) may; anyone else is told to open their own."""
    s = world.server
    alice, eve = s.add_user("Alice"), s.add_user("Eve")
    club = s.add_group("Club", members=[alice, eve])
    sent = await world.send(club, alice, "/new long stake=10")
    lobby = await world.reply(club, sent, "New game")
    before = await world.store.games.load_game(club.id, lobby_of(world, lobby))
    answer = await world.tap(club, eve, lobby, text="🤖 Play the bot")
    assert answer.show_alert and "not yours" in (answer.text or "")
    assert await world.store.games.load_game(club.id, lobby_of(world, lobby)) == before
    assert before is not None and before.options.stake_per_point == 10
    assert not (await world.tap(club, alice, lobby, text="🤖 Play the bot")).show_alert
    record = await chat_game(world.store, club.id)
    assert record is not None and record.players[0].name == "Alice"


@pytest.fixture
def test_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "offset"
    monkeypatch.setenv(clock.TEST_CLOCK_ENV, str(path))
    clock.set_test_offset(path, 0)
    return path


async def test_an_idle_game_against_the_bot_ends_unrated_and_unbooked(
        test_clock: Path, world: World) -> None:
    """Issue 21, item 5: computer games never expired, so only an admin's
    /cancel freed the chat.  After COMPUTER_IDLE_DAYS (7 by default) without
    a change the sweep ends it: cancelled, nothing rated or booked."""
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    await _start(world, club, alice, "/new long bot level=easy")
    record = await chat_game(world.store, club.id)
    assert record is not None and record.status is Status.ACTIVE
    clock.set_test_offset(test_clock, computer.IDLE_DEFAULT - 3600)
    await computer_turns.sweep_job(CallbackContext(world.app))  # type: ignore[arg-type]
    await world.idle()
    assert (await world.store.games.load(record.key)) == await chat_game(world.store, club.id)
    assert (await world.store.games.load(record.key)).status is Status.ACTIVE  # type: ignore[union-attr]
    clock.set_test_offset(test_clock, computer.IDLE_DEFAULT + 60)
    await computer_turns.sweep_job(CallbackContext(world.app))  # type: ignore[arg-type]
    await world.idle()
    ended = await world.store.games.load(record.key)
    assert ended is not None and ended.status is Status.CANCELLED
    assert await world.store.games.live_count(club.id) == 0
    assert await world.store.ledger.player_stats(club.id) == []  # unrated: no stats booked
    assert await world.store.ledger.ledger(club.id) == {}
    await _start(world, club, alice, "/new long bot level=easy")  # her place is free again


async def test_a_lobby_with_the_bot_seated_counts_before_its_start(world: World) -> None:
    """Issue 37 item 6: ``/new long bot`` four times and ▶ Start on each made four
    games against the computer (the rule counted only started games)."""
    s = world.server
    alice = s.add_user("Alice")
    club = s.add_group("Club", members=[alice])
    sent = await world.send(club, alice, "/new long bot")
    await world.reply(club, sent, None)
    for command in ("/new long bot", "/new backgammon bot level=strong"):
        sent = await world.send(club, alice, command)
        await world.reply(club, sent, "playing the bot here already")
    assert await world.store.games.live_count(club.id) == 1
