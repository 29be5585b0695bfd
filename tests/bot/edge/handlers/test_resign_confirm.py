"""A staked game's resignation asks once more and says what it costs (issue 26 §4):
"✔ Yes, resign (mars): Bob pays Alice 10", the kind's multiplier times the cube
times the stake, in every language; an unstaked game offers it at once; a
"Yes, resign" tapped after the game moved on is refused and resigns nothing."""

from __future__ import annotations

import pytest

from bot.present.ledger import pays_line, resign_cost_label
from bot.present.names import KIND_NAMES
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import table_of
from bot.rules.play import apply_game, may_double, resign_options
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import RESIGN_MOVED, THEIR_BUTTONS
from engine.game import Phase
from engine.position import Variant
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import _data, _mover, _record, _setup, _start
from tests.bot.edge.handlers.test_ledger import PLAYERS, _lobby, _uid

STAKE = 5
MULTIPLIER = {"oin": 1, "mars": 2, "koks": 3, "single": 1, "gammon": 2, "backgammon": 3}
"""The rules, written out: what each kind of resignation counts."""


def _press(record: GameRecord, user: int, action: ButtonAction, *args: int) -> GameRecord:
    return apply_game(record, user, Callback.game(record.game_id, record.version, action, *args))


def _doubled(record: GameRecord) -> GameRecord:
    """Play on (first legal step) until the player on roll may double; they
    double (staked: Yes, double) and the other takes: the cube is 2."""
    while True:
        table = table_of(record)
        game = table.game
        mover = game.to_act
        assert mover is not None and game.phase in (Phase.ROLL, Phase.MOVE)
        if game.phase is Phase.ROLL and may_double(record, table):
            record = _press(record, _uid(mover), ButtonAction.DOUBLE_SURE)
            return _press(record, _uid(mover.opponent), ButtonAction.TAKE)
        if game.phase is Phase.ROLL:
            record = _press(record, _uid(mover), ButtonAction.ROLL)
        elif game.turn is not None and game.turn.is_complete:
            record = _press(record, _uid(mover), ButtonAction.CONFIRM)
        else:
            step = sorted(game.legal_steps, key=repr)[0]
            record = _press(record, _uid(mover), ButtonAction.STEP, step.source, step.target,
                            step.die)


CASES = [(variant, cube, lang) for variant in (Variant.LONG, Variant.BACKGAMMON)
         for cube in (1, 2) for lang in LANGUAGES if not (variant is Variant.LONG and cube == 2)]


@pytest.mark.parametrize(("variant", "cube", "lang"), CASES)
def test_the_confirmation_says_who_pays_whom_how_much(variant: Variant, cube: int,
                                                      lang: str) -> None:
    record = start_game(_lobby(variant, stake_per_point=STAKE), Dealer.for_tests(3))
    if cube == 2:
        record = _doubled(record)
    table = table_of(record)
    assert table.game.cube_value == cube
    resigner = table.game.to_act
    assert resigner is not None
    names = {p.side: p.name for p in PLAYERS}
    tr = translator(lang)
    for level, kind in enumerate(resign_options(table), start=1):
        label = resign_cost_label(tr, record, resigner, level)
        amount = MULTIPLIER[kind.value] * cube * STAKE
        assert tr.gettext(KIND_NAMES[kind]) in label, label
        assert pays_line(tr, names[resigner], names[resigner.opponent], amount) in label, label


def test_an_unstaked_resignation_is_offered_at_once_a_staked_one_asks() -> None:
    free = start_game(_lobby(Variant.LONG), Dealer.for_tests(3))
    resigner = table_of(free).game.to_act
    assert resigner is not None
    offered = _press(free, _uid(resigner), ButtonAction.RESIGN, 1)
    assert table_of(offered).game.phase is Phase.RESIGNATION
    staked = start_game(_lobby(Variant.LONG, stake_per_point=STAKE), Dealer.for_tests(3))
    assert _press(staked, _uid(resigner), ButtonAction.RESIGN, 1) is staked  # only the keyboard
    offered = _press(staked, _uid(resigner), ButtonAction.RESIGN_SURE, 1)
    assert table_of(offered).game.phase is Phase.RESIGNATION


async def test_resigning_a_staked_game_through_the_bot(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t, f"long stake={STAKE}")
    mover, other = await _mover(world, t)
    before = await _record(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    mars = world.find(board, lambda text, _: text == "Resign: mars")[1]
    answer = await world.tap(t.chat, mover, board, mars)
    assert not answer.show_alert
    assert await _record(world, t) == before  # asked, nothing offered
    label, sure = world.find(board, lambda _text, data: data.split(":")[3] == "G")
    assert label == f"✔ Yes, resign (mars): {mover.first_name} pays {other.first_name} 10"
    # the opponent (and anyone else) cannot confirm someone else's resignation
    for intruder in (other, t.eve):
        refused = await world.tap(t.chat, intruder, board, sure)
        assert refused.show_alert
    assert (await world.tap(t.chat, other, board, sure)).text == \
        translator("en").gettext(THEIR_BUTTONS)
    # Back: the game's own keyboard again; then the smallest resignation, confirmed
    await world.tap(t.chat, mover, board, _data(world, board, "b"))
    assert not any(d.split(":")[3] == "G" for _, d in world.buttons(board))
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, world.find(board, lambda x, _: x == "Resign: oin")[1])
    label, sure = world.find(board, lambda _text, data: data.split(":")[3] == "G")
    assert label.endswith(f"{mover.first_name} pays {other.first_name} 5")
    await world.tap(t.chat, mover, board, sure)
    assert "offers to resign (oin)" in world.board(t.chat).content
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    assert (await _record(world, t)).status is Status.FINISHED
    assert await world.store.ledger.balance(t.chat.id, other.id, mover.id) == STAKE


async def test_a_stale_yes_resign_is_refused_and_resigns_nothing(world: World) -> None:
    t = _setup(world)
    board = await _start(world, t, f"long stake={STAKE}")
    mover, other = await _mover(world, t)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, world.find(board, lambda x, _: x == "Resign: oin")[1])
    _label, sure = world.find(board, lambda _text, data: data.split(":")[3] == "G")
    # meanwhile the game moves on: the opponent proposes to cancel it
    await world.reply(t.chat, await world.send(t.chat, other, "/cancel"))
    moved = await _record(world, t)
    assert moved.cancel_by == other.id
    answer = await world.tap(t.chat, mover, board, sure, strict=False)
    en = translator("en")
    assert answer.show_alert and answer.text == en.naming(RESIGN_MOVED, en)
    after = await _record(world, t)
    assert after == moved and table_of(after).game.phase is not Phase.RESIGNATION


def test_the_stale_refusal_reads_naturally_everywhere() -> None:
    for lang in LANGUAGES:
        assert "⋯" in translator(lang).naming(RESIGN_MOVED, translator(lang))
