"""The end of a tournament's last game told more than once - two workers at
once, an update retried after a crash - books its prizes once
(bot/service/tournament.py ``game_ended``, the end-of-game hook)."""

from __future__ import annotations

import asyncio

from bot.rules import tournament as rules
from bot.rules.dice import Dealer
from bot.service import tournament as service
from bot.store import Store
from bot.vocab.records import GameRecord, Status
from bot.vocab.tournament import Pairing, TournamentRecord
from tests.bot.store.test_tournament_store import CHAT, ledger_nets, lobby


async def final_game(store: Store) -> tuple[TournamentRecord, Pairing, GameRecord]:
    """A started 2-player knockout with an entry of 25, and the game made
    for its one pairing (the final, not yet named in the record)."""
    record = await store.tournament.save(lobby(2, stake=25), 0)
    started = await service.commit_tournament(store, CHAT, record.tournament_id,
                                              lambda r, now: rules.start(r, 1, {}, now))
    assert started is not None
    [final] = started[1].rounds[-1].pairings
    game = await store.games.save(service.new_game(started[1], final, Dealer.for_tests(3)), 0,
                                  limited=False)
    return started[1], final, game


async def test_the_last_game_told_many_times_books_the_prizes_once(store: Store) -> None:
    record, final, game = await final_game(store)
    match = service.match_of(game)
    assert match is not None
    await service.commit_tournament(
        store, CHAT, record.tournament_id,
        lambda r, now: rules.attach_game(r, final.board, game.game_id, now), matches=(match,))
    # an admin cancelled the final: a double forfeit, the better seed goes through
    ended = game.model_copy(update={"status": Status.CANCELLED})
    await asyncio.gather(*(service.game_ended(store, ended) for _ in range(4)))
    await service.game_ended(store, ended)   # the update retried after a crash
    done = await store.tournament.load(CHAT, record.tournament_id)
    assert done is not None and done.status is Status.FINISHED
    assert await ledger_nets(store) == {1: 25, 2: -25}


async def test_another_match_of_the_same_two_players_does_not_decide_their_pairing(
        store: Store) -> None:
    """A match of the two left unfinished at an earlier round's deadline and
    played on later (its 'Next game'), ending while they meet again: it is not
    their open pairing's match, so it books nothing; their own match does."""
    record, final, game = await final_game(store)
    earlier = service.new_game(record, final, Dealer.for_tests(4)).model_copy(
        update={"game_id": "oldmatch"})
    matches = (service.match_of(game), service.match_of(earlier))
    assert None not in matches and matches[0] != matches[1]
    await service.commit_tournament(
        store, CHAT, record.tournament_id,
        lambda r, now: rules.attach_game(r, final.board, game.game_id, now),
        matches=tuple(m for m in matches if m is not None))
    await service.game_ended(store, earlier.model_copy(update={"status": Status.CANCELLED}))
    still = await store.tournament.load(CHAT, record.tournament_id)
    assert still is not None and still.status is Status.ACTIVE
    assert still.rounds[-1].pairings[0].result is None
    assert await ledger_nets(store) == {}
    await service.game_ended(store, game.model_copy(update={"status": Status.CANCELLED}))
    done = await store.tournament.load(CHAT, record.tournament_id)
    assert done is not None and done.status is Status.FINISHED
    assert await ledger_nets(store) == {1: 25, 2: -25}
