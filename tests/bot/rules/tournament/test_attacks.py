"""Attacks on a tournament's rules by hostile or careless players (each once
worked): the refusal, and nothing changed."""

from __future__ import annotations

import pytest

from bot.rules.cancelling import TOURNAMENT_GAME, cancel_command
from bot.rules.dice import Dealer, committed
from bot.rules.lobby import apply_lobby
from bot.rules.tournament import actions
from bot.store.tournament import LOOKED_AT
from bot.vocab.callbacks import ButtonAction, Callback, Kind
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import Refusal
from engine.position import Side, Variant


def tournament_lobby(game_id: str = "tAb3_x9Qz-1-2") -> GameRecord:
    """A pairing's game, both players seated, waiting for ▶ Start."""
    return GameRecord(chat_id=-5, game_id=game_id, variant=Variant.LONG,
                      dice=committed(Dealer.for_tests(1)),
                      players=(Player(user_id=1, name="a", side=Side.WHITE),
                               Player(user_id=2, name="b", side=Side.BLACK)))


@pytest.mark.parametrize("admin", [False, True])
def test_a_seated_player_cannot_close_a_tournament_game(admin: bool) -> None:
    """Closed, it would be lost by both at the deadline: the opponent too."""
    game = tournament_lobby()
    drop = Callback(Kind.LOBBY, game.game_id, game.version, ButtonAction.DROP)
    for attempt in (lambda: apply_lobby(game, 1, "a", drop, Dealer.for_tests(2)),
                    lambda: cancel_command(game, 2, admin)):
        with pytest.raises(Refusal) as caught:
            attempt()
        assert caught.value.message == TOURNAMENT_GAME


def test_only_an_admin_who_does_not_play_it_closes_a_tournament_game() -> None:
    with pytest.raises(Refusal):
        cancel_command(tournament_lobby(), 9, admin=False)
    assert cancel_command(tournament_lobby(), 9, admin=True).status is Status.CANCELLED
    # an ordinary seated lobby (an invitation) is still closed by its players
    assert cancel_command(tournament_lobby("k3Xa9_zQ"), 1, admin=False).status \
        is Status.CANCELLED


def test_a_member_opens_one_lobby_and_a_chat_a_few_tournaments() -> None:
    """A flood of lobbies would hide the running tournament from /standings
    and /withdraw (the store looks at a chat's newest LOOKED_AT)."""
    assert actions.MAX_OPEN < LOOKED_AT
    mine = actions.create(-5, None, 7, Variant.LONG, TableOptions(), actions.Setup(), 1.0)
    with pytest.raises(Refusal) as caught:
        actions.may_create([mine], 7)
    assert caught.value.message == actions.LOBBY_OPEN
    actions.may_create([mine], 8)
    others = [mine.model_copy(update={"created_by": 100 + n, "status": Status.ACTIVE})
              for n in range(actions.MAX_OPEN)]
    with pytest.raises(Refusal) as caught:
        actions.may_create(others, 8)
    assert caught.value.message == actions.CHAT_FULL


def test_an_admin_who_plays_cannot_cancel_the_running_tournament() -> None:
    """Cancelled, it books nothing: a losing player who is an admin would
    erase the entry stake they owe (withdrawn or not: they still owe it)."""
    record = actions.create(-5, None, 1, Variant.LONG, TableOptions(),
                            actions.Setup(entry_stake=50), 1.0)
    for user in (1, 2, 3):
        record = actions.join(record, user, f"p{user}", 1.0)
    running = actions.start(record, 1, {}, 2.0)
    gone = actions.withdraw(running, 2, 3.0)
    for tournament, admin in ((running, 1), (running, 3), (gone, 2)):
        with pytest.raises(Refusal) as caught:
            actions.cancel(tournament, admin, True, 4.0)
        assert caught.value.message == actions.CANCEL_RUNNING
    assert actions.cancel(running, 9, True, 4.0).status is Status.CANCELLED
