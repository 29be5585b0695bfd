"""The computer's step as a pure function (bot/rules/computer.py): whatever a
person does, one round of the computer leaves the record waiting for the
person (or over) - a game can never be left waiting for the computer."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai import Level
from bot.edge.handlers.computer import MAX_STEPS
from bot.rules import computer, lobby, matchstate, play, seats
from bot.rules.dice import Dealer
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from engine import legal_turns
from engine.game import Phase
from engine.position import Variant

MAX_ROUNDS = MAX_STEPS  # the handler's bound: the person may dance many turns in a row


def _computer_round(record: GameRecord, rng: random.Random) -> GameRecord:
    for _ in range(MAX_ROUNDS):
        step = computer.next_move(record)
        if step is None:
            return record
        if isinstance(step, computer.Question):
            step = computer.buttons_for(record, step, computer.think(step))
        record = computer.press(record, step, Dealer.for_tests(0))
    raise AssertionError("the computer never stops")


def _person_acts(record: GameRecord, person: int, rng: random.Random) -> GameRecord:
    """A random thing the person may do now: roll or double, a legal turn,
    take or pass, offer to resign, propose to cancel."""
    def button(action: ButtonAction, *args: int) -> Callback:
        return Callback.game(record.game_id, 0, action, *args)

    if rng.random() < 0.02:
        return play.apply_game(record, person, button(ButtonAction.CANCEL))
    game = matchstate.table_of(record).game
    side = seats.seat_of(record, person)
    if game.phase is Phase.ROLL:
        if rng.random() < 0.03:
            kinds = play.resign_options(matchstate.table_of(record))
            return play.apply_game(record, person, button(ButtonAction.RESIGN,
                                                             rng.randrange(len(kinds)) + 1))
        if side is not None and game.can_double(side) and rng.random() < 0.2:
            return play.apply_game(record, person, button(ButtonAction.DOUBLE))
        return play.apply_game(record, person, button(ButtonAction.ROLL))
    if game.phase is Phase.DOUBLE:
        action = ButtonAction.TAKE if rng.random() < 0.8 else ButtonAction.PASS_SURE
        return play.apply_game(record, person, button(action))
    assert game.phase is Phase.MOVE and game.turn is not None
    turns = legal_turns(game.turn_start, game.turn.dice)
    for step in rng.choice(turns).steps:
        turn = matchstate.table_of(record).game.turn
        if turn is None or turn.is_complete:  # the forced rest was played by itself
            break
        record = play.apply_game(record, person, button(ButtonAction.STEP, step.source, step.target,
                                                           step.die))
    return play.apply_game(record, person, button(ButtonAction.CONFIRM))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(list(Variant)),
       match=st.sampled_from([1, 3]))
def test_the_computer_never_leaves_a_game_waiting_for_it(seed: int, variant: Variant,
                                                          match: int) -> None:
    rng = random.Random(seed)
    person = 7
    options = TableOptions(match_length=match, koks=False)
    dealer = Dealer.for_tests(seed)
    opened = lobby.new_lobby(-100, None, variant, options, person, dealer)
    record = computer.seat_computer(opened, computer.Seat("easy", Level.EASY, "bot"),
                                    Player(user_id=person, name="P"), dealer)
    assert record.options.stake_per_point == 0 and record.options.time_control is None
    for _ in range(400):
        record = _computer_round(record, rng)
        assert not computer.waiting_for_computer(record)
        if record.status is Status.CANCELLED:
            return
        if record.status is Status.FINISHED:
            if matchstate.table_of(record).match_over:
                return
            record = record.model_copy(update={"rematch_by": person})  # Next game
            continue
        assert seats.waiting_user(record) == person
        record = _person_acts(record, person, rng)
    raise AssertionError("the game did not end")


def _simulate(chances: dict[Level, float], games: int, seed: int) -> tuple[float, float]:
    """A person who beats each level with a known chance plays ``games`` at
    level=auto: their win share over the last three quarters, and where the
    rung ends."""
    rng = random.Random(seed)
    rung, wins = computer.AUTO_START, []
    for _ in range(games):
        won = rng.random() < chances[computer.auto_level(rung)]
        wins.append(won)
        rung = computer.auto_rung(rung, won)
    settled = wins[games // 4:]
    return sum(settled) / len(settled), rung


def test_level_auto_settles_where_the_person_wins_about_half() -> None:
    """Issue 38: simulated people of known strength converge to an even
    result, whichever two levels bracket it; one stronger than every level
    meets best, one weaker than every level easy."""
    people = [
        {Level.EASY: 0.8, Level.MEDIUM: 0.6, Level.STRONG: 0.4, Level.BEST: 0.35},
        {Level.EASY: 0.55, Level.MEDIUM: 0.3, Level.STRONG: 0.15, Level.BEST: 0.1},
        {Level.EASY: 0.95, Level.MEDIUM: 0.85, Level.STRONG: 0.7, Level.BEST: 0.45},
        {Level.EASY: 0.9, Level.MEDIUM: 0.52, Level.STRONG: 0.2, Level.BEST: 0.1},
    ]
    for seed, chances in enumerate(people):
        share, _ = _simulate(chances, 8000, seed)
        assert abs(share - 0.5) < 0.03, (chances, share)
    share, rung = _simulate(dict.fromkeys(Level, 0.7), 400, 9)
    assert computer.auto_level(rung) is Level.BEST and abs(share - 0.7) < 0.08
    share, rung = _simulate(dict.fromkeys(Level, 0.2), 400, 10)
    assert computer.auto_level(rung) is Level.EASY and abs(share - 0.2) < 0.08


@given(st.floats(computer.AUTO_FLOOR, computer.AUTO_TOP), st.booleans())
def test_level_auto_stays_on_the_ladder_and_follows_the_result(rung: float, won: bool) -> None:
    after = computer.auto_rung(rung, won)
    assert computer.AUTO_FLOOR <= after <= computer.AUTO_TOP
    assert (after >= rung) if won else (after <= rung)
    assert computer.auto_level(after) in computer.LEVELS
