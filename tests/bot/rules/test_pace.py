"""Chat play at Telegram's pace (issue 35) in the rules: without Confirm a
completed turn hands the dice over at once and, where the opponent's roll
is no choice, that roll is made in the same change (with the match's fair
dice, exactly the roll Confirm would have made) and closes the take-back;
a step that leaves one way to finish plays the rest and hands over too; and
every turn played since the last board a player acted on is told on the
board (the opening and forced turns included).  Pure rules."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.present.board import board_message, told_turns
from bot.present.keyboards import game_keyboard
from bot.rules.autoplay import double_offered
from bot.rules.dice import fair_dice
from bot.rules.matchstate import table_of
from bot.rules.play import apply_game, confirms_turns, offered_turns
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import GameRecord, Status
from engine.dice import check_game
from engine.game import Action, Phase
from engine.position import Variant
from tests.bot.rules.test_autoplay import EN, _started, _user
from tests.botapi.keyboards import MAX_BUTTONS, MAX_CALLBACK_DATA, MAX_ROW_BUTTONS


def _tap(record: GameRecord, action: ButtonAction, *args: int, confirm: bool) -> GameRecord:
    data = Callback.game(record.game_id, record.version, action, *args)
    return apply_game(record, _user(record), data, confirm=confirm)


def _moves(record: GameRecord) -> int:
    return sum(e.action is Action.MOVE for e in table_of(record).game.events)


def _at_whole_turns(variant: Variant, **options: object) -> GameRecord:
    for seed in range(60):
        record = _started(variant, seed, **options)
        if offered_turns(table_of(record).game):
            return record
    raise AssertionError("no whole-turn buttons in 60 games")


def test_long_nardy_turn_handed_over_rolls_for_the_opponent_in_the_same_change() -> None:
    record = _at_whole_turns(Variant.LONG)
    mover = _user(record)
    after = _tap(record, ButtonAction.TURN, 0, confirm=False)
    game = table_of(after).game
    assert after.takeback_by is None  # the roll, seen by all, confirmed the turn
    assert after.status is Status.ACTIVE and _user(after) != mover
    assert game.phase is Phase.MOVE  # the opponent's dice and their move buttons
    # the very roll a Confirm tap would have made: the committed seed, the same index
    confirmed = _tap(_tap(record, ButtonAction.TURN, 0, confirm=True), ButtonAction.CONFIRM,
                     confirm=True)
    assert table_of(confirmed).game == game
    assert confirmed.dice == after.dice


def test_where_the_opponent_may_double_the_turn_waits_for_their_tap_and_may_be_taken_back(
        ) -> None:
    for seed in range(60):
        record = _started(Variant.BACKGAMMON, seed)
        if not offered_turns(table_of(record).game):
            continue
        after = _tap(record, ButtonAction.TURN, 0, confirm=False)
        game = table_of(after).game
        if game.phase is Phase.ROLL:
            break
    else:
        raise AssertionError("no opponent offered Double in 60 games")
    assert double_offered(game, table_of(after).score)
    assert after.takeback_by == _user(record)
    back = apply_game(after, _user(record), Callback.game(after.game_id, after.version,
                                                          ButtonAction.UNDO), confirm=False)
    assert table_of(back).game == table_of(record).game and back.takeback_by is None


def test_the_step_that_completes_a_turn_hands_it_over() -> None:
    """Long nardy: the last step hands over and rolls for the opponent (it
    waited at Confirm before issue 35, one group message more a turn)."""
    for seed in range(60):
        record = _started(Variant.LONG, seed)
        game = table_of(record).game
        assert game.turn is not None
        step = min(game.turn.distinct_steps, key=lambda s: (s.source, s.die))
        stepped = _tap(record, ButtonAction.STEP, step.source, step.target, step.die,
                       confirm=False)
        turn = table_of(stepped).game.turn
        assert turn is not None and turn.played == (step,)
        if not turn.forced_steps:  # a choice left: the board asks again
            last = min(turn.distinct_steps, key=lambda s: (s.source, s.die))
            break
    else:
        raise AssertionError("no turn of two choices in 60 games")
    done = _tap(stepped, ButtonAction.STEP, last.source, last.target, last.die, confirm=False)
    assert _moves(done) > _moves(record) and done.takeback_by is None
    assert table_of(done).game.phase is Phase.MOVE and _user(done) != _user(record)
    # with Confirm (a staked game in a chat that asks for it) the turn waits, as before
    kept = _tap(stepped, ButtonAction.STEP, last.source, last.target, last.die, confirm=True)
    assert _moves(kept) == _moves(record) and table_of(kept).game.turn.is_complete  # type: ignore[union-attr]


def test_a_step_that_leaves_one_way_to_finish_plays_it_and_hands_over() -> None:
    for seed in range(60):
        record = _started(Variant.LONG, seed)
        game = table_of(record).game
        assert game.turn is not None
        step = next((s for s in sorted(game.turn.distinct_steps, key=lambda s: (s.source, s.die))
                     if game.turn.play(s).forced_steps), None)
        if step is not None:
            break
    else:
        raise AssertionError("no step leaving one result in 60 games")
    after = _tap(record, ButtonAction.STEP, step.source, step.target, step.die, confirm=False)
    # one tap: the step, the forced rest, the hand-over and the opponent's roll
    assert after.takeback_by is None
    mine = next(e for e in table_of(after).game.events[len(table_of(record).game.events):]
                if e.action is Action.MOVE)
    assert mine.steps[0] == step and len(mine.steps) >= 2
    assert table_of(after).game.phase is Phase.MOVE and _user(after) != _user(record)


def test_staked_games_hand_over_too_unless_the_chat_asks_for_confirm() -> None:
    staked = _started(Variant.LONG, 1, stake_per_point=5)
    assert not confirms_turns(staked)  # the default: no Confirm message a turn
    assert confirms_turns(staked, "staked") and confirms_turns(staked, "always")
    assert not confirms_turns(_started(Variant.LONG, 1), "staked")


def test_the_opening_and_both_forced_first_turns_are_told() -> None:
    """The issue's board: "Laura's turn with 2-4 was forced … ➡ Борис to move"
    although Борис had already moved.  Now the board tells the opening roll
    and both forced first turns, each with its dice, oldest first."""
    record = _started(Variant.LONG, 5)
    game = table_of(record).game
    assert [e.side for e in game.events if e.action is Action.MOVE] == [
        game.opening.starter, game.opening.starter.opponent]  # type: ignore[union-attr]
    text = board_message(EN, record, style="text").text
    opening = text.index("Opening roll:")
    forced = [m.start() for m in re.finditer(r"(Bob|Ann)'s turn with \d-\d was forced: ", text)]
    assert len(forced) == 2 and opening < forced[0] < forced[1] < text.index("➡"), text
    first, second = (re.search(rf"{name}'s turn with", text) for name in ("Ann", "Bob"))
    assert first and second


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from([Variant.LONG,
                                                             Variant.BACKGAMMON]))
def test_every_turn_is_told_on_the_board_after_it(seed: int, variant: Variant) -> None:
    """Whatever the taps, every confirmed turn since the board a player last
    acted on is told on the next board (the turn the tap played and the
    forced ones the bot played after it, several in a row included), each
    with its roll."""
    rng = random.Random(seed)
    record = _started(variant, seed % 97)
    seen = 0
    for _ in range(160):
        if record.status is not Status.ACTIVE:
            break
        game = table_of(record).game
        told = told_turns(game)
        moves = [e for e in game.events if e.action is Action.MOVE]
        assert len(told) >= len(moves) - seen, (len(told), len(moves), seen)
        assert all(t.dice is not None for t in told[-(len(moves) - seen) or len(told):])
        text = board_message(EN, record, style="text").text
        for turn in told:
            name = "Ann" if turn.side.value == 0 else "Bob"
            assert re.search(rf"{name} (played|rolled) \d-\d|{name}'s turn with \d-\d", text), text
        seen = len(moves)
        record = _next(record, rng)


def _next(record: GameRecord, rng: random.Random) -> GameRecord:
    """A player's tap without Confirm: a whole turn, a step, Roll."""
    game = table_of(record).game
    if game.phase is Phase.ROLL:
        return _tap(record, ButtonAction.ROLL, confirm=False)
    if game.phase is not Phase.MOVE:
        return _tap(record, ButtonAction.TAKE, confirm=False)
    offered = offered_turns(game)
    if offered and rng.random() < 0.7:
        return _tap(record, ButtonAction.TURN, rng.randrange(len(offered)), confirm=False)
    assert game.turn is not None
    if game.turn.is_complete:
        return _tap(record, ButtonAction.CONFIRM, confirm=False)
    step = rng.choice(sorted(game.turn.distinct_steps, key=lambda s: (s.source, s.die)))
    return _tap(record, ButtonAction.STEP, step.source, step.target, step.die, confirm=False)


@pytest.mark.parametrize("variant", [Variant.LONG, Variant.BACKGAMMON])
def test_the_rolls_made_by_themselves_verify(variant: Variant) -> None:
    """Every throw of a game played without Confirm (rolled at the hand-over)
    is its index's throw of the committed seed and mix, as the verifier
    (engine.dice) recomputes it: nothing about the dice changed."""
    rng = random.Random(3)
    record = _started(variant, 11)
    for _ in range(300):
        if record.status is not Status.ACTIVE:
            break
        record = _next(record, rng)
    assert record.dice is not None
    checks = check_game(fair_dice(record.dice, table_of(record).number), table_of(record).game)
    assert len(checks) > 20 and all(c.found is None or c.found == c.expected for c in checks)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from([Variant.LONG,
                                                             Variant.BACKGAMMON]))
def test_every_keyboard_of_a_game_fits_telegrams_limits(seed: int, variant: Variant) -> None:
    """More whole-turn buttons (:data:`bot.rules.play.WHOLE_TURNS`) stay
    within Telegram's inline keyboard: 100 buttons, 8 a row, 64-byte data
    (what tests/botapi/keyboards.py enforces as the Bot API does)."""
    rng = random.Random(seed)
    record = _started(variant, seed % 89)
    widest = 0
    for _ in range(120):
        if record.status is not Status.ACTIVE:
            break
        markup = game_keyboard(EN, record, table_of(record), ui=None, source=None)
        rows = markup.inline_keyboard if markup is not None else ()
        widest = max(widest, sum(len(row) for row in rows))
        assert sum(len(row) for row in rows) <= MAX_BUTTONS
        assert all(len(row) <= MAX_ROW_BUTTONS for row in rows)
        assert all(1 <= len(str(b.callback_data).encode()) <= MAX_CALLBACK_DATA
                   for row in rows for b in row)
        record = _next(record, rng)
    assert widest > 4


def test_the_computers_turns_are_told_with_the_persons_turn_before_them() -> None:
    """Against the computer the person's Confirm is followed by the
    computer's turn (and any forced turn after it) on one board edit: the
    board tells them all, from the person's last chosen turn on."""
    from ai import Level
    from bot.rules import computer
    from bot.rules.dice import Dealer
    from bot.rules.lobby import start_game
    from bot.vocab.records import Player, TableOptions
    from engine.position import Side

    robot = computer.user_id(Level.MEDIUM)
    players = (Player(user_id=101, name="Ann", side=Side.WHITE),
               Player(user_id=robot, name="Robot", side=Side.BLACK))
    seen = 0
    for seed in range(40):
        record = start_game(GameRecord(chat_id=-5, variant=Variant.LONG, players=players,
                                       options=TableOptions(koks=False)), Dealer.for_tests(seed))
        rng = random.Random(seed)
        for _ in range(60):
            game = table_of(record).game
            if record.status is not Status.ACTIVE or game.to_act is None:
                break
            user = 101 if game.to_act is Side.WHITE else robot
            moves = [e for e in game.events if e.action is Action.MOVE]
            record = _next_as(record, user, rng)
            after = [e for e in table_of(record).game.events if e.action is Action.MOVE]
            if user != robot or len(after) < len(moves) + 1:
                continue
            # the robot's tap confirmed its turn: every turn since Ann's chose one is told
            told = told_turns(table_of(record).game, Side.BLACK)
            assert len(told) >= len(after) - len(moves)
            text = board_message(EN, record, style="text").text
            assert re.search(r"Robot (played|rolled) \d-\d|Robot's turn with \d-\d", text), text
            if told[0].side is Side.WHITE and len(told) >= 2:
                assert re.search(r"Ann (played|rolled) \d-\d|Ann's turn with \d-\d", text), text
                seen += 1
        if seen >= 3:
            return
    raise AssertionError("the person's turn was never told beside the computer's")


def _next_as(record: GameRecord, user: int, rng: random.Random) -> GameRecord:
    """A tap by ``user`` with Confirm (a game against the computer asks it)."""
    game = table_of(record).game

    def tap(action: ButtonAction, *args: int) -> GameRecord:
        data = Callback.game(record.game_id, record.version, action, *args)
        return apply_game(record, user, data, confirm=True)

    if game.phase is Phase.ROLL:
        return tap(ButtonAction.ROLL)
    assert game.turn is not None
    if game.turn.is_complete:
        return tap(ButtonAction.CONFIRM)
    offered = offered_turns(game)
    if offered:
        return tap(ButtonAction.TURN, rng.randrange(len(offered)))
    step = rng.choice(sorted(game.turn.distinct_steps, key=lambda s: (s.source, s.die)))
    return tap(ButtonAction.STEP, step.source, step.target, step.die)
