"""Fewer taps (issue 14 §1) in the rules: the roll and forced turns are made
by themselves, whole turns are one tap, steps with the same result one
button, and a staked double asks to confirm.  Pure rules: no store, no server."""

from __future__ import annotations

import random
import re
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.present.board import board_message
from bot.present.keyboards import game_keyboard
from bot.rules.autoplay import advance, clearly_behind
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import table_of
from bot.rules.options import parse_new_args
from bot.rules.play import RUNS, WHOLE_TURNS, apply_game, offered_turns
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import Refusal
from engine.choices import forced_turn, turn_choices
from engine.game import Action, Game, GameOptions, Phase
from engine.position import Side, Variant
from tests.bot.rules.test_finishes import _reachable

ANN, BOB = 101, 202
PLAYERS = (Player(user_id=ANN, name="Ann", side=Side.WHITE),
           Player(user_id=BOB, name="Bob", side=Side.BLACK))
EN = translator("en")


def _started(variant: Variant, seed: int, **options: object) -> GameRecord:
    record = GameRecord(chat_id=-5, variant=variant, players=PLAYERS,
                        options=TableOptions(koks=False, **options))  # type: ignore[arg-type]
    return start_game(record, Dealer.for_tests(seed))


def _user(record: GameRecord) -> int:
    side = table_of(record).game.to_act
    return ANN if side is Side.WHITE else BOB


def _tap(record: GameRecord, action: ButtonAction, *args: int) -> GameRecord:
    data = Callback.game(record.game_id, record.version, action, *args)
    return apply_game(record, _user(record), data)  # the dice: the record's fair dice


def _actions(record: GameRecord) -> list[tuple[str, str]]:
    markup = game_keyboard(EN, record, table_of(record), ui=None, source=None)
    assert markup is not None
    return [(b.text, str(b.callback_data).split(":")[3])
            for row in markup.inline_keyboard for b in row]


def _one_tap(record: GameRecord, rng: random.Random) -> GameRecord:
    """A player's tap: a whole turn when offered, else a step; Confirm; Roll."""
    actions = [a for _, a in _actions(record)]
    game = table_of(record).game
    if "c" in actions:
        return _tap(record, ButtonAction.CONFIRM)
    if "h" in actions:
        return _tap(record, ButtonAction.TURN, rng.randrange(len(offered_turns(game))))
    if "m" in actions or "s" in actions:
        assert game.turn is not None
        step = rng.choice(sorted(game.turn.distinct_steps, key=lambda s: (s.source, s.die)))
        return _tap(record, ButtonAction.STEP, step.source, step.target, step.die)
    return _tap(record, ButtonAction.ROLL)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from([Variant.LONG, Variant.BACKGAMMON]))
def test_a_player_is_only_ever_shown_a_choice(seed: int, variant: Variant) -> None:
    """Whatever the dice, the stored game never waits on a roll that is the
    only choice nor on a forced turn; the keyboard offers one button per
    distinct step and whole turns (or, after a step, ways to finish the turn)
    only when there are 2..WHOLE_TURNS of them (at a turn's start, else up to
    RUNS runs)."""
    rng = random.Random(seed)
    record = _started(variant, seed, cube=False)
    for _ in range(60):
        if record.status is not Status.ACTIVE:
            break
        game = table_of(record).game
        assert game.only_action is None, game.only_action
        assert game.phase is Phase.MOVE  # no cube: the roll is never a choice
        turn = game.turn
        assert turn is not None
        actions = _actions(record)
        steps = [text for text, a in actions if a == "m"]
        assert len(steps) <= len(turn.distinct_steps)
        wholes = [text[2:] for text, a in actions if a == "h"]
        if not turn.played:
            choices = turn_choices(turn.start, turn.dice)
            if len(choices) > WHOLE_TURNS:  # then only runs: one checker carried by the roll
                choices = tuple(c for c in choices if len(c.steps) >= 2 and all(
                    b.source == a.target for a, b in pairwise(c.steps)))[:RUNS]
            assert wholes == [c.notation(numbering=game.to_act) for c in choices]
        else:  # the ways to finish it from here, by brute force over the engine's steps
            ends = _reachable(game)
            assert len(wholes) == (len(ends) if 2 <= len(ends) <= WHOLE_TURNS else 0), \
                (wholes, ends)
        record = _one_tap(record, rng)


def test_long_nardy_first_turns_are_forced_and_shown_as_such() -> None:
    """Every long nardy first turn is forced except 3-3: a new game starts at
    the first real choice, and the caption says the last turn was forced."""
    record = _started(Variant.LONG, 5)
    game = table_of(record).game
    moves = [e for e in game.events if e.action is Action.MOVE]
    assert len(moves) == 2 and game.phase is Phase.MOVE
    text = board_message(EN, record, style="text").text
    # the forced turn names the roll that forced it (issue 26)
    assert re.search(r"(Bob|Ann)'s turn with \d-\d was forced: ", text), text


def test_autoplay_off_rolls_but_leaves_forced_turns_to_the_player() -> None:
    record = _started(Variant.LONG, 5, autoplay=False)
    game = table_of(record).game
    assert game.phase is Phase.MOVE and not game.turn.played  # type: ignore[union-attr]
    assert forced_turn(game.turn.start, game.turn.dice) is not None  # type: ignore[union-attr]
    assert game.only_action is Action.MOVE  # left to the purist
    assert not [e for e in game.events if e.action is Action.MOVE]


def test_advance_plays_a_forced_game_end_by_itself() -> None:
    """A run of forced turns is played through, to the end of the game if need be."""
    dice = random.Random(3)
    game = advance(Game.new(GameOptions.long()), lambda g: g.roll(dice))
    assert game.only_action is None


def test_a_whole_turn_is_one_tap_and_waits_at_confirm() -> None:
    for seed in range(40):
        record = _started(Variant.BACKGAMMON, seed, cube=False)
        offered = offered_turns(table_of(record).game)
        if offered:
            break
    else:
        raise AssertionError("no roll with 2..8 results in 40 games")
    last = len(offered) - 1
    after = _tap(record, ButtonAction.TURN, last)
    game = table_of(after).game
    assert game.turn is not None and game.turn.is_complete
    assert game.turn.position == offered[last].position and game.to_act is table_of(
        record).game.to_act  # not confirmed: Undo is still one tap away
    assert {a for _, a in _actions(after)} >= {"u", "c"}
    for bad in (last + 1, 99):
        with pytest.raises(Refusal):
            _tap(record, ButtonAction.TURN, bad)
    first = offered[0].steps[0]  # once a step is played, only the ways to finish it
    stepped = _tap(record, ButtonAction.STEP, first.source, first.target, first.die)
    with pytest.raises(Refusal):
        _tap(stepped, ButtonAction.TURN, len(offered_turns(table_of(stepped).game)))


def test_a_staked_double_asks_to_confirm() -> None:
    for seed in range(60):
        record = _started(Variant.BACKGAMMON, seed, stake_per_point=5)
        rng = random.Random(seed)
        for _ in range(6):
            game = table_of(record).game
            if game.phase is Phase.ROLL:
                break
            record = _one_tap(record, rng)
        game = table_of(record).game
        if game.phase is Phase.ROLL and not clearly_behind(game.position):
            break  # (without a stake, a player clearly behind is not offered Double)
    assert table_of(record).game.phase is Phase.ROLL
    assert _tap(record, ButtonAction.DOUBLE) is record  # only the keyboard changes
    markup = game_keyboard(EN, record, table_of(record), ui=ButtonAction.DOUBLE, source=None)
    assert markup is not None
    assert [b.text for row in markup.inline_keyboard for b in row] == ["Yes, double", "« Back"]
    doubled = _tap(record, ButtonAction.DOUBLE_SURE)
    assert table_of(doubled).game.phase is Phase.DOUBLE
    free = record.model_copy(update={"options": record.options.model_copy(
        update={"stake_per_point": 0})})
    assert table_of(_tap(free, ButtonAction.DOUBLE)).game.phase is Phase.DOUBLE  # one tap for fun
    with pytest.raises(Refusal):
        _tap(free, ButtonAction.DOUBLE_SURE)


def test_new_takes_autoplay_off() -> None:
    assert parse_new_args(["autoplay=off"])[1].autoplay is False
    assert parse_new_args([])[1].autoplay is True
    assert TableOptions.model_validate({}).autoplay is True  # records saved before it


def test_the_rest_of_a_turn_with_one_result_left_is_played_and_undone_in_one_tap() -> None:
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
    after = _tap(record, ButtonAction.STEP, step.source, step.target, step.die)
    turn = table_of(after).game.turn
    assert turn is not None and turn.is_complete and turn.played[0] == step
    assert {a for _, a in _actions(after)} >= {"u", "c"}  # Confirm stays the player's
    undone = _tap(after, ButtonAction.UNDO)
    assert table_of(undone).game.turn.played == ()  # type: ignore[union-attr]
    purist = record.model_copy(update={"options": record.options.model_copy(
        update={"autoplay": False})})
    by_hand = _tap(purist, ButtonAction.STEP, step.source, step.target, step.die)
    assert table_of(by_hand).game.turn.played == (step,)  # type: ignore[union-attr]


@pytest.mark.parametrize(("lang", "word"), [("ru", "выброс"), ("lt", "išmesta")])
def test_whole_turn_buttons_say_off_in_the_players_language(lang: str, word: str) -> None:
    """A whole turn bearing off is labelled with the board's word for off
    (English "off" leaked into ru/lt buttons)."""
    rng = random.Random(7)
    record = _started(Variant.BACKGAMMON, 7)
    for _ in range(5000):
        if table_of(record).game.phase is Phase.OVER:
            record = _started(Variant.BACKGAMMON, rng.randrange(10_000))
        labels = [text for text, action in _actions(record) if action == "h"]
        if any("off" in text for text in labels):
            break
        record = _one_tap(record, rng)
    else:
        raise AssertionError("no whole turn bearing off came up")
    markup = game_keyboard(translator(lang), record, table_of(record), ui=None, source=None)
    assert markup is not None
    local = [b.text for row in markup.inline_keyboard for b in row
             if str(b.callback_data).split(":")[3] == "h"]
    assert local == [text.replace("off", word) for text in labels]
