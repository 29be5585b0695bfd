"""Beaver is offered exactly when the rules accept it, in the chat's keyboard and in
the Mini App alike (issue 34: with beavers on, the app offered Beaver again after a
beaver, and the tap was refused).  Games with beavers on are walked at random
through every cube answer; at each double's answer both offers are compared with
what the rule does with a Beaver tap."""

from __future__ import annotations

import random

import pytest

from bot.present.keyboards import game_keyboard
from bot.present.webstate import game_state
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import table_of
from bot.rules.play import apply_game, apply_turn
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import Refusal
from engine.game import Phase
from engine.position import Side, Variant
from tests.bot.trees import random_turn

ANN, BOB = 101, 202
EN = translator("en")


def _tap(record: GameRecord, user: int, action: ButtonAction, *args: int) -> GameRecord:
    return apply_game(record, user, Callback.game(record.game_id, record.version, action, *args))


def _user(record: GameRecord) -> int:
    return ANN if table_of(record).game.to_act is Side.WHITE else BOB


def _offers(record: GameRecord) -> tuple[bool, bool]:
    """Whether the chat's keyboard and the app offer Beaver to the one to act."""
    table = table_of(record)
    markup = game_keyboard(EN, record, table, ui=None, source=None)
    chat = markup is not None and any(
        Callback.parse(b.callback_data).action is ButtonAction.BEAVER
        for row in markup.inline_keyboard for b in row if isinstance(b.callback_data, str))
    app = "beaver" in game_state(EN, record, _user(record))["actions"]
    return chat, app


def _accepted(record: GameRecord) -> bool:
    try:
        return _tap(record, _user(record), ButtonAction.BEAVER) is not record
    except Refusal:
        return False


@pytest.mark.parametrize("seed", range(4))
def test_beaver_is_offered_exactly_when_the_rule_takes_it(seed: int) -> None:
    rng = random.Random(seed)
    record = start_game(GameRecord(
        chat_id=-5, variant=Variant.BACKGAMMON,
        players=(Player(user_id=ANN, name="Ann", side=Side.WHITE),
                 Player(user_id=BOB, name="Bob", side=Side.BLACK)),
        options=TableOptions(koks=False, beavers=True, jacoby=bool(seed % 2))),
        Dealer.for_tests(seed))
    answers, after_beaver = 0, 0
    for _ in range(400):
        if record.status is not Status.ACTIVE:
            break
        game = table_of(record).game
        user = _user(record)
        if game.phase is Phase.DOUBLE:
            chat, app = _offers(record)
            rule = _accepted(record)
            assert chat == app == rule, (chat, app, rule, game.cube)
            answers += 1
            after_beaver += game.cube is not None and game.cube.beavered
            if after_beaver >= 3:
                break
            record = _tap(record, user, ButtonAction.BEAVER if rule else ButtonAction.TAKE)
        elif game.phase is Phase.ROLL:
            state = game_state(EN, record, user)
            action = "double" if "double" in state["actions"] else "roll"
            record = _tap(record, user, ButtonAction.DOUBLE if action == "double"
                          else ButtonAction.ROLL)
        elif game.phase is Phase.MOVE:
            tree = game_state(EN, record, user)["tree"]
            steps = random_turn(tree, rng)
            record = apply_turn(record, user, steps)
        else:
            break
    assert answers and after_beaver  # the case of issue 34 was met
