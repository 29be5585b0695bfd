"""When a backgammon player is asked Roll or Double (issue 14 §1): only when
a double is allowed and could make sense.  A dead cube (the player wins the
match with any win) and, in money play with autoplay, a player clearly
behind get their dice rolled at once; purists (autoplay off) are asked
whenever the rules allow, staked or not (issue 35).  Pure rules: no store, no server."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bot.present.keyboards import game_keyboard
from bot.rules.autoplay import advance, clearly_behind, double_offered
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import MatchState, table_of, with_table
from bot.rules.play import apply_game
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import Refusal
from engine.game import Game, Phase
from engine.game import GameOptions as EngineOptions
from engine.position import Position, Side, Variant

ANN, BOB = 101, 202
PLAYERS = (Player(user_id=ANN, name="Ann", side=Side.WHITE),
           Player(user_id=BOB, name="Bob", side=Side.BLACK))
EN = translator("en")


def _race(on_roll: Side, behind: Side) -> Position:
    """A race: ``behind`` has all 15 checkers on its 6 point (90 pips), the
    other on its 1 point (15 pips)."""
    rows = [[0] * 25, [0] * 25]
    rows[behind][5] = 15
    rows[behind.opponent][0] = 15
    return Position.from_rows(Variant.BACKGAMMON, rows, turn=on_roll)


def _money_game(position: Position) -> Game:
    game = Game.new(EngineOptions.backgammon(), starter=position.turn)
    return dataclasses.replace(game, turn_start=position)


def _record_at(score: tuple[int, int], length: int, on_roll: Side) -> GameRecord:
    """A backgammon match to ``length`` after the Crawford game, ``on_roll``
    before its roll, the match at ``score``."""
    record = GameRecord(chat_id=-5, variant=Variant.BACKGAMMON, players=PLAYERS,
                        options=TableOptions(match_length=length, koks=False))
    record = start_game(record, Dealer.for_tests(1))
    game = Game.new(EngineOptions.backgammon(match_length=length), starter=on_roll)
    return with_table(record, MatchState(game, score, crawford_done=True), status=Status.ACTIVE)


def _buttons(record: GameRecord) -> list[str]:
    markup = game_keyboard(EN, record, table_of(record), ui=None, source=None)
    assert markup is not None
    return [b.text for row in markup.inline_keyboard for b in row]


def _tap(record: GameRecord, user: int, action: ButtonAction) -> GameRecord:
    return apply_game(record, user, Callback.game(record.game_id, record.version, action))


def test_the_leader_after_crawford_is_not_asked_to_double_a_dead_cube() -> None:
    """Match to 5 at 4-1 after the Crawford game: any win gives Ann the match,
    so her double would only hand Bob the cube; Bob, trailing, may double."""
    leader = _record_at((4, 1), 5, Side.WHITE)
    assert table_of(leader).game.can_double(Side.WHITE)  # the engine allows it
    assert _buttons(leader) == ["🎲 Roll", "⋯ More"]
    with pytest.raises(Refusal, match="cannot double"):
        _tap(leader, ANN, ButtonAction.DOUBLE)
    rolled = _tap(leader, ANN, ButtonAction.ROLL)
    assert table_of(rolled).game.phase is Phase.MOVE
    trailer = _record_at((1, 4), 5, Side.WHITE)
    assert _buttons(trailer) == ["🎲 Roll", "⬆ Double", "⋯ More"]
    assert table_of(_tap(trailer, ANN, ButtonAction.DOUBLE)).game.phase is Phase.DOUBLE


def test_a_dead_cube_is_rolled_for_the_player() -> None:
    game = Game.new(EngineOptions.backgammon(match_length=7), starter=Side.BLACK)
    dice = random.Random(2)
    assert double_offered(game, (0, 5))  # 5 + 1 < 7: Black's double is live
    assert advance(game, lambda g: g.roll(dice), score=(0, 5)) is game  # Black chooses
    assert not double_offered(game, (0, 6))
    moved = advance(game, lambda g: g.roll(dice), score=(0, 6))
    assert moved.dice is not None and moved.events  # rolled, without a question


def test_a_player_clearly_behind_in_money_play_is_not_asked_to_double() -> None:
    behind, ahead = _race(Side.WHITE, Side.WHITE), _race(Side.BLACK, Side.WHITE)
    assert clearly_behind(behind) and not clearly_behind(ahead)
    game = _money_game(behind)
    assert game.phase is Phase.ROLL and game.can_double(Side.WHITE)
    assert not double_offered(game)
    assert double_offered(game, judge=False)  # purists are asked whenever allowed
    assert double_offered(_money_game(ahead))
    dice = random.Random(4)
    assert advance(game, lambda g: g.roll(dice)).dice is not None
    assert advance(game, lambda g: g.roll(dice), autoplay=False) is game


def test_a_match_asks_whoever_may_double_even_when_behind() -> None:
    """In a match doubling while behind can be right (the trailer after the
    Crawford game): only the dead cube is rolled for the player there."""
    match = dataclasses.replace(
        Game.new(EngineOptions.backgammon(match_length=5), starter=Side.WHITE),
        turn_start=_race(Side.WHITE, Side.WHITE))
    assert double_offered(match, (0, 4))


def test_a_staked_money_game_judges_a_double_as_an_unstaked_one() -> None:
    """Staked alike (issue 35: a Roll tap is a group message): a double
    while clearly behind is a mistake whatever the stake, so the player is
    not asked; with autoplay off Double stays beside Roll, staked or not."""
    for stake, autoplay, buttons in ((0, True, ["🎲 Roll", "⋯ More"]),
                                     (5, True, ["🎲 Roll", "⋯ More"]),
                                     (5, False, ["🎲 Roll", "⬆ Double", "⋯ More"])):
        record = GameRecord(chat_id=-5, variant=Variant.BACKGAMMON, players=PLAYERS,
                            options=TableOptions(koks=False, stake_per_point=stake,
                                                 autoplay=autoplay))
        record = start_game(record, Dealer.for_tests(1))
        game = _money_game(_race(Side.WHITE, Side.WHITE))
        record = with_table(record, MatchState(game, (0, 0)), status=Status.ACTIVE)
        assert _buttons(record) == buttons, (stake, autoplay)
