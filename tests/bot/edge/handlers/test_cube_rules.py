"""Rules through the bot: a beaver the doubler answers (Take / Pass on his
keyboard), the Crawford game only in matches longer than one point, and no
win on time for a player whose own resignation offer waits."""

from __future__ import annotations

import pytest

from bot.rules.clock import claim_timeout
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import MatchState, table_of, with_table
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import Refusal
from engine.game import Action, Game, GameOptions, Phase
from engine.position import Side, Variant
from engine.scoring import ResultKind
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import (
    _data,
    _mover,
    _play_until,
    _record,
    _setup,
    _start,
)

PLAYERS = (Player(user_id=101, name="Ann", side=Side.WHITE),
           Player(user_id=202, name="Bob", side=Side.BLACK))


def _labels(world: World, board: object) -> list[str]:
    return [text for text, _ in world.buttons(board)]  # type: ignore[arg-type]


@pytest.mark.parametrize("answer", ["take", "pass"])
async def test_the_doubler_takes_or_passes_a_beaver(world: World, answer: str) -> None:
    t = _setup(world)
    await _start(world, t, "backgammon cube=on beavers=on")
    board = await _play_until(world, t, lambda _mover: True)
    doubler, taker = await _mover(world, t)
    await world.tap(t.chat, doubler, board, _data(world, board, "d"))
    board = world.board(t.chat)
    assert _labels(world, board) == ["Take", "Pass", "Beaver"]
    await world.tap(t.chat, taker, board, _data(world, board, "B"))
    board = world.board(t.chat)
    # the doubler is asked now, by name, with his own Take / Pass (no second beaver)
    names = {t.alice.id: "Alice", t.bob.id: "Bob"}
    assert f"{names[taker.id]} beavers and keeps the cube." in board.content
    assert f"{names[doubler.id]}, you are doubled to 4: take or pass?" in board.content
    assert _labels(world, board) == ["Take", "Pass"]
    wrong = await world.tap(t.chat, taker, board, _data(world, board, "t"))
    assert wrong.show_alert  # the beaverer does not answer his own beaver
    game = table_of(await _record(world, t)).game
    assert (game.phase, game.cube.value, game.cube.beavered) == (Phase.DOUBLE, 2, True)  # type: ignore[union-attr]
    if answer == "take":
        await world.tap(t.chat, doubler, board, _data(world, board, "t"))
        record = await _record(world, t)
        game = table_of(record).game
        taker_side = next(p.side for p in record.players if p.user_id == taker.id)
        # the doubler cannot redouble (the cube is the taker's): his roll is made for him
        take = max(i for i, e in enumerate(game.events) if e.action is Action.TAKE)
        rolled = [e.side for e in game.events[take:] if e.action is Action.ROLL]
        assert rolled[:1] == [taker_side.opponent]
        assert (game.cube.value, game.cube.owner) == (4, taker_side)  # type: ignore[union-attr]
        return
    await world.tap(t.chat, doubler, board, _data(world, board, "p"))
    await world.tap(t.chat, doubler, board, _data(world, board, "P"))
    record = await _record(world, t)
    assert record.status is Status.FINISHED
    result = table_of(record).game.result
    assert result is not None and result.points == 2  # twice the cube before the double
    assert (await world.store.ledger.history(t.chat.id))[0].points == 2


@pytest.mark.parametrize(("length", "score", "crawford"), [
    (1, (0, 0), False),  # a 1-point match: both at N - 1 = 0, no Crawford game
    (2, (1, 0), True),
    (3, (0, 2), True),
    (3, (1, 1), False),
])
def test_crawford_only_in_matches_longer_than_one_point(
        length: int, score: tuple[int, int], crawford: bool) -> None:
    game = Game.new(GameOptions.backgammon(match_length=length))
    following = MatchState(game, score).next_game()
    assert following.game.crawford is crawford and following.crawford_done is crawford


def test_a_player_whose_resignation_offer_waits_cannot_claim_the_win_on_time() -> None:
    lobby = GameRecord(chat_id=-100, variant=Variant.BACKGAMMON, players=PLAYERS,
                       options=TableOptions(koks=False, time_control=3600))
    record = start_game(lobby, Dealer.for_tests(3))
    game = table_of(record).game
    offerer = game.to_act
    assert offerer is not None
    offered = with_table(record, MatchState(game.offer_resignation(offerer, ResultKind.SINGLE)),
                         deadline=100.0)
    uid = {p.side: p.user_id for p in PLAYERS}
    with pytest.raises(Refusal) as refused:
        claim_timeout(offered, uid[offerer], now=200.0)
    assert refused.value.message.startswith("You offered to resign and your opponent")
    # the answerer's clock ran out; once he declines, the game goes on as usual
    declined = with_table(record, MatchState(game.offer_resignation(offerer, ResultKind.SINGLE)
                                        .decline_resignation(offerer.opponent)), deadline=100.0)
    with pytest.raises(Refusal, match="Only your opponent"):
        claim_timeout(declined, uid[offerer], now=200.0)  # his own turn again
    won = claim_timeout(declined, uid[offerer.opponent], now=200.0)
    assert table_of(won).game.result.winner is offerer.opponent  # type: ignore[union-attr]
