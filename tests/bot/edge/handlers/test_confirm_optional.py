"""Confirm after a completed turn is a chat setting (issues 24 §2 and 35):
``/settings`` "Confirm: never" (the default), "staked games", "always".
Without Confirm the completed turn hands the dice over at once.  Where the
opponent's roll is no choice (long nardy) it is made at once, on the same
board edit, and confirms the turn.  Where it is a tap of theirs (Roll or
Double) it waits for that tap, and until then the mover takes the turn back
with one tap (the engine's ``take_back_turn``): back at its start, the same
dice, nobody having seen the next roll."""

from __future__ import annotations

import pytest

from bot.rules.chatsettings import with_setting
from bot.rules.matchstate import table_of
from bot.rules.seats import waiting_user
from bot.vocab.records import GameRecord, Status, settings_key
from bot.vocab.refusals import NOT_YOUR_TURN, THEIR_BUTTONS
from engine.game import Action, Phase
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import Table, _record, _setup, _start
from tests.botapi.model import User

TAKE_BACK = "↶ Take my turn back"


def _mover(t: Table, record: GameRecord) -> User:
    return t.alice if waiting_user(record) == t.alice.id else t.bob


def _rolls(record: GameRecord) -> int:
    return sum(e.action is Action.ROLL for e in table_of(record).game.events)


async def _at_whole_turns(world: World, t: Table) -> GameRecord:
    """Play on until the mover is offered whole-turn buttons."""
    for _ in range(400):
        record = await _record(world, t)
        assert record.status is Status.ACTIVE
        board = world.board(t.chat)
        actions = {d.split(":")[3]: d for _, d in world.buttons(board)}
        if "h" in actions:
            return record
        data = next(actions[a] for a in ("c", "m", "s", "r", "t") if a in actions)
        await world.tap(t.chat, _mover(t, record), board, data)
    raise AssertionError("no whole-turn buttons")


async def _whole_turn(world: World, t: Table, record: GameRecord) -> GameRecord:
    board = world.board(t.chat)
    data = next(d for _, d in world.buttons(board) if d.split(":")[3] == "h")
    answer = await world.tap(t.chat, _mover(t, record), board, data)
    assert not answer.show_alert, answer
    return await _record(world, t)


async def test_without_confirm_the_turn_is_handed_over_and_taken_back(world: World) -> None:
    t = _setup(world)
    # staked: Double is offered whenever the cube allows (nobody is judged behind),
    # so the opponent's roll is a tap of theirs; Confirm is not asked by default
    await _start(world, t, "backgammon stake=1")
    before = await _at_whole_turns(world, t)
    mover = _mover(t, before)
    other = t.bob if mover is t.alice else t.alice
    after = await _whole_turn(world, t, before)
    game = table_of(after).game
    assert after.takeback_by == mover.id and waiting_user(after) == other.id
    assert game.phase is Phase.ROLL and _rolls(after) == _rolls(before)  # no roll seen yet
    board = world.board(t.chat)
    texts = [text for text, _ in world.buttons(board)]
    assert "🎲 Roll" in texts and TAKE_BACK in texts and "✓ Confirm" not in texts
    refused = await world.tap(t.chat, other, board, text=TAKE_BACK)
    assert refused.show_alert and "Only the player who moved" in (refused.text or "")
    answer = await world.tap(t.chat, mover, board, text=TAKE_BACK)  # one tap
    assert not answer.show_alert, answer
    back = await _record(world, t)
    assert table_of(back).game == table_of(before).game and back.takeback_by is None
    assert waiting_user(back) == mover.id
    # handed over again; the opponent's first tap (Roll) closes the window
    await _whole_turn(world, t, back)
    board = world.board(t.chat)
    answer = await world.tap(t.chat, other, board, text="🎲 Roll")
    assert not answer.show_alert, answer
    rolled = await _record(world, t)
    assert rolled.takeback_by is None and _rolls(rolled) == _rolls(before) + 1
    assert TAKE_BACK not in [text for text, _ in world.buttons(board)]
    late = f"g:{rolled.game_id}:{rolled.version}:u"
    answer = await world.tap(t.chat, mover, board, late, strict=False)
    assert answer.show_alert and answer.text in (NOT_YOUR_TURN, THEIR_BUTTONS), answer
    assert (await _record(world, t)).version == rolled.version


def _group_messages(world: World, t: Table) -> int:
    """The messages the bot sent or edited in the group (what its budget counts)."""
    return sum(1 for r in world.server.requests()
               if r.method.lower().startswith(("send", "edit"))
               and r.params.get("chat_id") in (t.chat.id, str(t.chat.id)))  # type: ignore[union-attr]


@pytest.mark.parametrize("args", ["long", "long stake=1"])
async def test_a_long_nardy_turn_costs_one_edit_that_shows_the_opponents_roll(
        world: World, args: str) -> None:
    """Staked or not: the whole-turn tap hands over, the opponent's roll is
    made at once and the one board edit shows it with their move buttons;
    no Confirm, no Roll, no take-back (the roll, seen by all, confirmed it)."""
    t = _setup(world)
    await _start(world, t, args)
    before = await _at_whole_turns(world, t)
    await world.idle()
    sent = _group_messages(world, t)
    mover = _mover(t, before)
    after = await _whole_turn(world, t, before)
    await world.idle()
    assert _group_messages(world, t) == sent + 1
    game = table_of(after).game
    assert game.phase is Phase.MOVE and waiting_user(after) != mover.id
    assert after.takeback_by is None and _rolls(after) > _rolls(before)
    board = world.board(t.chat)
    texts = [text for text, _ in world.buttons(board)]
    assert TAKE_BACK not in texts and "✓ Confirm" not in texts and "🎲 Roll" not in texts
    dice = f"{game.dice.first}-{game.dice.second}"  # type: ignore[union-attr]
    assert f"to move: {dice}" in board.content, board.content


async def test_the_chat_setting_asks_confirm_in_staked_games(world: World) -> None:
    t = _setup(world)
    await world.store.games.update(settings_key(t.chat.id), lambda s: with_setting(
        s, t.chat.id, "confirm_turns", "staked"))
    await _start(world, t, "long stake=1")
    before = await _at_whole_turns(world, t)
    after = await _whole_turn(world, t, before)
    turn = table_of(after).game.turn
    assert turn is not None and turn.is_complete and after.takeback_by is None
    assert waiting_user(after) == waiting_user(before)
    assert "✓ Confirm" in [text for text, _ in world.buttons(world.board(t.chat))]


async def test_the_chat_setting_asks_confirm_always(world: World) -> None:
    t = _setup(world)
    await world.store.games.update(settings_key(t.chat.id), lambda s: with_setting(
        s, t.chat.id, "confirm_turns", "always"))
    await _start(world, t)
    before = await _at_whole_turns(world, t)
    after = await _whole_turn(world, t, before)
    assert table_of(after).game.phase is Phase.MOVE and after.takeback_by is None
    assert "✓ Confirm" in [text for text, _ in world.buttons(world.board(t.chat))]


async def _step_until_complete(world: World, t: Table) -> tuple[GameRecord, GameRecord, User]:
    """Play on (Confirm, steps, Roll, Take; never a whole-turn button) until a step
    tap completes a turn; the records before and after that tap, and its mover."""
    for _ in range(600):
        record = await _record(world, t)
        assert record.status is Status.ACTIVE
        board = world.board(t.chat)
        actions = {d.split(":")[3]: d for _, d in world.buttons(board)}
        data = next(actions[a] for a in ("c", "m", "s", "r", "t") if a in actions)
        mover = _mover(t, record)
        answer = await world.tap(t.chat, mover, board, data)
        assert not answer.show_alert, answer
        after = await _record(world, t)
        if data.split(":")[3] == "m" and (_moves(after) > _moves(record) or _complete(after)):
            return record, after, mover
    raise AssertionError("no turn completed by a step")


def _moves(record: GameRecord) -> int:
    return sum(e.action is Action.MOVE for e in table_of(record).game.events)


def _complete(record: GameRecord) -> bool:
    turn = table_of(record).game.turn
    return turn is not None and turn.is_complete


async def test_a_turn_stepped_to_its_end_is_handed_over_where_the_next_roll_is_a_tap(
        world: World) -> None:
    """Backgammon with the cube: the opponent's roll is a tap anyway (Roll or
    Double), so the step that completes the turn hands it over (no Confirm),
    and one tap takes the whole turn back."""
    t = _setup(world)
    await _start(world, t, "backgammon")
    before, after, mover = await _step_until_complete(world, t)
    game = table_of(after).game
    assert game.phase is Phase.ROLL and _moves(after) == _moves(before) + 1, game.phase
    assert after.takeback_by == mover.id
    board = world.board(t.chat)
    answer = await world.tap(t.chat, mover, board, text=TAKE_BACK)
    assert not answer.show_alert, answer
    back = await _record(world, t)
    assert table_of(back).game.phase is Phase.MOVE and _moves(back) == _moves(before)
    assert waiting_user(back) == mover.id


async def test_a_turn_stepped_to_its_end_is_handed_over_and_rolled_for_where_the_roll_is_no_choice(
        world: World) -> None:
    """Long nardy (no cube): the step that completes the turn hands it over
    and the opponent's roll is made at once (it waited at Confirm before
    issue 35, a group message more a turn)."""
    t = _setup(world)
    await _start(world, t, "long")
    before, after, mover = await _step_until_complete(world, t)
    assert _moves(after) > _moves(before) and after.takeback_by is None
    assert waiting_user(after) != mover.id and table_of(after).game.phase is Phase.MOVE
