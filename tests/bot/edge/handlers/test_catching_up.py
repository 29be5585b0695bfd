"""Taps on an older drawing of the board's own message (issue 24 §2): while a
board's redraw is on its way (the group's flood budget paces it), the
players still see, and tap, its previous keyboard.  Such a tap is applied
when its button means the same now and is still legal, else answered "the
board is catching up", never "out of date"; a tap on another, older message
still is.  The older drawing is simulated by tapping the data it was drawn
with (``strict=False``) after the newer state was saved."""

from __future__ import annotations

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.rules.matchstate import table_of
from bot.rules.seats import waiting_user
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import CATCHING_UP, STALE
from engine.game import Action, Game, Phase
from engine.position import Step
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import Table, _record, _setup, _start
from tests.botapi.model import Message, User


def _order(step: Step) -> tuple[int, int, int]:
    return step.source, step.target, step.die


def _step(record: GameRecord, version: int, step: Step) -> str:
    return Callback.game(record.game_id, version, ButtonAction.STEP, *_order(step)).format()


def _pairs(game: Game) -> tuple[Step, Step, Step] | None:
    """Steps ``a``, ``b``, ``c`` legal now, where after ``a`` the turn goes
    on, ``b`` is still legal and ``c`` is not."""
    for a in sorted(game.legal_steps, key=_order):
        after = game.play_step(a)
        if after.phase is not Phase.MOVE or after.turn is None or after.turn.is_complete:
            continue
        kept = sorted(game.legal_steps & after.legal_steps, key=_order)
        gone = sorted(game.legal_steps - after.legal_steps, key=_order)
        if kept and gone:
            return a, kept[0], gone[0]
    return None


def _mover(t: Table, record: GameRecord) -> User:
    return t.alice if waiting_user(record) == t.alice.id else t.bob


async def _at_a_step_choice(world: World, t: Table) -> tuple[GameRecord, tuple[Step, Step, Step]]:
    """Play on (Confirm, whole turns, steps, Roll) until the mover has steps
    :func:`_pairs` finds."""
    for _ in range(400):
        record = await _record(world, t)
        assert record.status is Status.ACTIVE
        game = table_of(record).game
        if game.phase is Phase.MOVE and game.turn is not None and not game.turn.played:
            found = _pairs(game)
            if found is not None:
                return record, found
        board = world.board(t.chat)
        actions = {d.split(":")[3]: d for _, d in world.buttons(board)}
        data = next(actions[a] for a in ("c", "h", "m", "s", "r", "t") if a in actions)
        await world.tap(t.chat, _mover(t, record), board, data)
    raise AssertionError("no position with such steps")


async def _one_step_played(world: World
                           ) -> tuple[Table, GameRecord, tuple[Step, Step, Step], Message]:
    """A game at a step choice (its record then, and :func:`_pairs`' steps) in
    which the mover played ``a``: its board's drawing before that step is
    what the players may still see."""
    t = _setup(world)
    await _start(world, t)
    record, steps = await _at_a_step_choice(world, t)
    board = world.board(t.chat)
    answer = await world.tap(t.chat, _mover(t, record), board,
                             _step(record, record.version, steps[0]), strict=False)
    assert not answer.show_alert, answer
    return t, record, steps, board


async def test_a_step_still_legal_on_the_older_drawing_is_played(world: World) -> None:
    t, record, (a, b, _c), board = await _one_step_played(world)
    mover = _mover(t, record)
    answer = await world.tap(t.chat, mover, board, _step(record, record.version, b),
                             strict=False)
    assert not answer.show_alert, answer
    after = await _record(world, t)
    game = table_of(after).game
    turn = game.turn
    # b played after a: still in the turn, or (it completed the turn) handed over
    if turn is not None and turn.start == table_of(record).game.turn.start:  # type: ignore[union-attr]
        assert turn.played[:2] == (a, b), turn
    else:
        last = next(e for e in reversed(game.events) if e.action is Action.MOVE)
        assert last.steps[:2] == (a, b), last
    assert after.version == record.version + 2


async def test_a_tap_no_longer_meant_is_told_the_board_catches_up(world: World) -> None:
    t, record, (_a, _b, c), board = await _one_step_played(world)
    mover = _mover(t, record)
    played = await _record(world, t)
    for data in (_step(record, record.version, c),  # legal then, not now
                 Callback.game(record.game_id, record.version, ButtonAction.UNDO).format()):
        answer = await world.tap(t.chat, mover, board, data, strict=False)
        assert answer.show_alert and answer.text == CATCHING_UP, (data, answer)
    assert (await _record(world, t)).version == played.version  # nothing changed


async def test_an_older_message_is_still_out_of_date(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    record, (a, _b, _c) = await _at_a_step_choice(world, t)
    old = world.board(t.chat)
    await world.send(t.chat, _mover(t, record), "/board")  # posted anew: the old one retires
    await world.idle()
    assert world.board(t.chat).message_id != old.message_id
    answer = await world.tap(t.chat, _mover(t, record), old,
                             _step(record, record.version, a), strict=False)
    assert answer.show_alert and answer.text == STALE, answer


async def test_join_on_the_older_drawing_of_the_lobby_joins(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new long")
    lobby = await world.reply(t.chat, sent, "New game")
    [join] = [d for text, d in world.buttons(lobby) if text == "✋ Join"]
    await world.tap(t.chat, t.alice, lobby, join)
    answer = await world.tap(t.chat, t.bob, lobby, join, strict=False)  # drawn before Alice's
    assert not answer.show_alert, answer
    assert (await _record(world, t)).status is Status.ACTIVE


async def test_a_board_ahead_of_its_record_is_redrawn_from_it(world: World) -> None:
    # issue 37 item 2: a step saved on a Redis master that failed over before
    # replicating it is lost with its board's mark, while the board's message
    # shows it: drawn for a version the record never reached.  Every tap on it,
    # Resign included, was refused for ever; the first one redraws it.
    t = _setup(world)
    await _start(world, t)
    record, (a, _b, _c) = await _at_a_step_choice(world, t)
    name = world.store.keys.record(record.key)
    before = await world.store.redis.hgetall(name)
    board = world.board(t.chat)
    mover = _mover(t, record)
    answer = await world.tap(t.chat, mover, board, _step(record, record.version, a),
                             strict=False)
    assert not answer.show_alert, answer
    await world.idle()
    await world.store.redis.delete(name)  # the failover: the record as it was replicated
    await world.store.redis.hset(name, mapping=before)
    ahead = world.board(t.chat)
    assert {d.split(":")[2] for _, d in world.buttons(ahead)} == {str(record.version + 1)}
    undo = Callback.game(record.game_id, record.version + 1, ButtonAction.UNDO).format()
    answer = await world.tap(t.chat, mover, ahead, undo, strict=False)
    assert answer.show_alert, answer  # refused: it answers a state that is not stored
    await world.idle()
    redrawn = world.board(t.chat)
    assert {d.split(":")[2] for _, d in world.buttons(redrawn)} == {str(record.version)}
    answer = await world.tap(t.chat, mover, redrawn, _step(record, record.version, a),
                             strict=False)  # the game goes on from its record
    assert not answer.show_alert, answer
    assert (await _record(world, t)).version == record.version + 1


async def test_a_tap_on_a_board_whose_post_is_on_its_way_leaves_it_to_that_post(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # A board posted anew (▶ Start in a picture chat, /board) is drawn for the
    # version the save naming it is about to make, and goes out before that
    # save: a quick player taps it while the record still names the old board.
    # The tap is refused, and must leave the boards to the handler posting it:
    # a redraw beside it posted the board twice (a tournament under load).
    t = _setup(world)
    await _start(world, t)
    await world.idle()
    record = await _record(world, t)
    main = (t.chat.id, record.board_message_id)
    await world.store.games.forget_shown(record, main)  # its redraw is what is on its way
    data = Callback.game(record.game_id, record.version + 1, ButtonAction.MENU).format()
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("☰", callback_data=data)]])
    on_its_way = await world.app.bot.send_message(t.chat.id, "the board, posted anew",
                                                  reply_markup=keyboard)
    drawn = ("sendMessage", "sendPhoto", "editMessageText", "editMessageCaption",
             "editMessageMedia", "editMessageReplyMarkup")

    def redraws() -> int:
        return sum(world.server.request_count(method) for method in drawn)

    before = redraws()
    for after_change, redrawn in ((0.4, 0), (-0.4, 0), (5.0, 1)):  # one clock, either way
        monkeypatch.setattr(clock, "now", lambda at=after_change: record.updated_at + at)
        answer = await world.tap(t.chat, _mover(t, record), on_its_way.message_id, data,
                                 strict=False)
        await world.idle()
        assert answer.show_alert, answer   # the record does not name that message yet
        # within the grace nothing is drawn beside the post; past it, the board
        # left behind is (nothing is on its way any more)
        assert redraws() - before == redrawn, (after_change, world.server.requests()[-3:])
        before = redraws()
