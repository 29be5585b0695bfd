"""A chat's tournaments saved as the rules see them, and what a game's end and a
round's deadline tell them.

* :func:`commit_tournament`: the one load -> rule -> compare-and-set loop of a
  tournament; the change that ends it books its prizes in the same write
  (``Tournaments.save``), and every change sets when the bot must look at it
  next (:func:`next_wake`).
* :func:`game_ended`: the end-of-game hook (bot/service/ending.py): a
  finished match of a tournament's pairing records its result, which may pair
  the next round or end the tournament.  A game knows its tournament by its
  match's dice commitment, kept when the pairing's game was made.
* :func:`new_game`: the game of a pairing - both players seated, the dice
  committed, waiting for either player's ▶ Start (the tap is the dice's
  entropy, as for any game) - with an id that follows from the pairing, so
  a retry makes the same game, never a second one.
* :func:`timed_out` and :func:`verdicts`: at a round's deadline a game
  being played is lost on time by the player it waits for (the caller saves
  that as any game's end, bot/service/saving.py ``commit_game``; a match is
  then lost whole), and every game not over gets a result: a game nobody
  started is a double forfeit.
* :func:`month_table`, :func:`season_table`, :func:`start_season`,
  :func:`end_season`: the chat's league (the tables are added to by the
  booking of each game's end, bot/store/ledger.py).
"""

from __future__ import annotations

from collections.abc import Callable

from bot.rules import tournament as rules
from bot.rules.cancelling import cancelled
from bot.rules.dice import Dealer, committed
from bot.rules.ledger import deviation_of
from bot.rules.matchstate import table_of
from bot.rules.play import played
from bot.rules.seats import player_on
from bot.rules.tournament.league import (
    NO_SEASON,
    SEASON_RUNS,
    LeagueGame,
    LeagueRow,
    Season,
    added,
    ended,
    league_game,
    may_end,
    may_erase,
    may_start,
    ranked,
    tallies,
)
from bot.rules.tournament.noshow import chose
from bot.store import Store, VersionConflict
from bot.store.commit import commit
from bot.store.tournament import TournamentLimit
from bot.vocab import clock
from bot.vocab.records import GameRecord, Player, Status
from bot.vocab.refusals import CHANGED, Refusal
from bot.vocab.tournament import Decision, NamedSeason, Pairing, Result, TournamentRecord
from engine.dice import DiceSeed
from engine.game import Action
from engine.position import Side

Change = Callable[[TournamentRecord, float], TournamentRecord]

RETRIES = 2 * max(rules.actions.MAX_ENTRANTS.values())
"""Lost races a change of a tournament retries: each lost race is another
writer's change landed, so a full lobby's Joins sent at once (every one a lost
race for all the others) each land, or are refused by the rules (full), never
told that the tournament changed meanwhile."""


def match_of(game: GameRecord) -> str | None:
    """The public commitment of the dice of the match ``game`` plays: the same
    for every game of the match."""
    if game.dice is None:
        return None
    return str(DiceSeed(bytes.fromhex(game.dice.seed)).commitment)


def next_wake(record: TournamentRecord, now: float) -> float | None:
    """When the bot must look at ``record`` next: its start time, now when a
    round waits for its games or its announcement (or the end to be posted),
    the round's deadline, or never."""
    if record.status is Status.LOBBY:
        return record.start_at
    if not record.status.is_open:
        return None if record.closed else now
    current = record.rounds[-1]
    if record.announced < current.number or any(needs_game(p) for p in current.pairings):
        return now
    return current.deadline


async def _forfeits(store: Store, old: TournamentRecord, new: TournamentRecord
                    ) -> tuple[str, ...]:
    """The matches of the pairings ``new`` decides without their games (a
    withdrawal's forfeit, a deadline's): marked in the same write, so that an
    end of such a game accepted before its close is booked no more
    (``Ledger.finish_game``)."""
    before = {(r.number, p.board): p.result for r in old.rounds for p in r.pairings}
    out: list[str] = []
    for pairing in (p for r in new.rounds[-2:] for p in r.pairings
                    if p.result is not None and p.result.decision is not Decision.PLAYED
                    and p.game_id is not None and before.get((r.number, p.board)) is None):
        game = await store.games.load_game(new.chat_id, pairing.game_id or "")
        match = None if game is None else match_of(game)
        if match is not None:
            out.append(match)
    return tuple(out)


def needs_game(pairing: Pairing) -> bool:
    return pairing.second is not None and pairing.result is None and pairing.game_id is None


async def commit_tournament(store: Store, chat_id: int, tournament_id: str, change: Change, *,
                            matches: tuple[str, ...] = ()
                            ) -> tuple[TournamentRecord, TournamentRecord] | None:
    """Load the tournament, apply the rule ``change(record, now)``, save it
    with one compare-and-set (its prizes with the change that ends it; the
    ``matches`` its new games play); on a lost race all again (up to
    :data:`RETRIES` times).  (before, after), or None if there is no such
    tournament.  ``change`` may raise a ``Refusal``; after that many lost
    races: ``Refusal(CHANGED)``."""
    tournaments = store.tournament
    now = clock.now()

    async def load() -> TournamentRecord | None:
        return await tournaments.load(chat_id, tournament_id)

    def step(record: TournamentRecord | None) -> TournamentRecord | None:
        nonlocal now
        now = clock.now()
        return None if record is None else change(record, now)

    async def write(old: TournamentRecord | None, new: TournamentRecord | None
                    ) -> TournamentRecord:
        assert old is not None and new is not None
        ending = new.status is Status.FINISHED and old.status is not Status.FINISHED
        return await tournaments.save(new, old.version, matches=matches,
                                      forfeits=await _forfeits(store, old, new),
                                      ledger=rules.ledger(new) if ending else None)

    try:
        before, after = await commit(load, step, write, retries=RETRIES)
    except VersionConflict:
        raise Refusal(CHANGED) from None
    if before is None or after is None:
        return None
    if after is not before:
        await tournaments.wake(after, next_wake(after, now))
    return before, after


async def create(store: Store, record: TournamentRecord) -> TournamentRecord:
    """Save a new tournament (its id follows from the update: a retry finds it).
    The limits of ``rules.may_create`` are checked again by the write itself
    (two commands at once both passed a check made before it):
    ``Refusal(LOBBY_OPEN)`` or ``Refusal(CHAT_FULL)``, nothing saved."""
    try:
        saved = await store.tournament.save(record, 0, most_open=rules.actions.MAX_OPEN)
    except TournamentLimit as limit:
        if limit.lobby is not None:
            raise Refusal(rules.actions.LOBBY_OPEN) from None
        raise Refusal(rules.actions.CHAT_FULL, count=rules.actions.MAX_OPEN) from None
    except VersionConflict:
        found = await store.tournament.load(record.chat_id, record.tournament_id)
        assert found is not None
        return found
    await store.tournament.wake(saved, next_wake(saved, clock.now()))
    return saved


async def ratings(store: Store, record: TournamentRecord) -> rules.actions.Ratings:
    """The entrants' FIBS ratings in the tournament's variant in this chat,
    with their deviations now (bot/rules/ledger.py ``deviation_of``)."""
    entrants = {e.user_id for e in record.entrants}
    now = clock.now()
    return {s.user_id: (s.rating, deviation_of(s, now))
            for s in await store.ledger.player_stats(record.chat_id)
            if s.variant is record.variant and not s.versus and s.user_id in entrants}


def game_id_of(record: TournamentRecord, round_number: int, board: int) -> str:
    """The id of a pairing's game: it follows from the pairing.

    >>> from bot.vocab.tournament import Format
    >>> from engine.position import Variant
    >>> t = TournamentRecord(chat_id=1, tournament_id="Ab3_x9Qz", format=Format.SWISS,
    ...                      variant=Variant.LONG, created_by=1)
    >>> game_id_of(t, 3, 12)
    'tAb3_x9Qz-3-12'
    >>> from bot.vocab.tournament import is_tournament_game  # its seats are fixed
    >>> is_tournament_game(game_id_of(t, 3, 12))
    True
    """
    return f"t{record.tournament_id}-{round_number}-{board}"


def new_game(record: TournamentRecord, pairing: Pairing, dealer: Dealer) -> GameRecord:
    """The game of ``pairing``, seated and committed, waiting for ▶ Start."""
    who = {e.user_id: e.name for e in record.entrants}
    assert pairing.second is not None
    players = (Player(user_id=pairing.first, name=who[pairing.first], side=Side.WHITE),
               Player(user_id=pairing.second, name=who[pairing.second], side=Side.BLACK))
    now = clock.now()
    options = record.options
    if pairing.match_length is not None:   # the round's or the final's length
        options = options.model_copy(update={"match_length": pairing.match_length})
    return GameRecord(chat_id=record.chat_id, thread_id=record.thread_id,
                      game_id=game_id_of(record, record.rounds[-1].number, pairing.board),
                      variant=record.variant, options=options, players=players,
                      dice=committed(dealer), created_at=now, updated_at=now)


def result_of(game: GameRecord) -> Result | None:
    """A tournament result of a game whose match is over: its winner, the
    points (a match's length), a forfeit if the loser lost on time without
    ever choosing anything (bot/rules/tournament/noshow.py: the turns the bot
    played for them do not count); a cancelled game is a double forfeit.
    None while its match goes on."""
    if game.status is Status.CANCELLED:
        return Result(decision=Decision.DOUBLE_FORFEIT)
    if game.status is not Status.FINISHED or not game.engine:
        return None
    table = table_of(game)
    if not table.match_over or table.game.result is None:
        return None
    outcome = table.game.result
    winner = player_on(game, outcome.winner).user_id
    timed_out = bool(table.game.events) and table.game.events[-1].action is Action.TIMEOUT
    # the replay (a few ms) only for a game lost on time
    absent = timed_out and not any(chose(each, outcome.winner.opponent)
                                   for each in table.games())
    decision = Decision.FORFEIT if absent else Decision.PLAYED
    points = table.match_length if table.match_length > 1 else outcome.points
    return Result(decision=decision, winner=winner,
                  points=0 if decision is Decision.FORFEIT else points)


def open_board(record: TournamentRecord, players: set[int]) -> int | None:
    """The board of the current round where ``players`` meet with no result yet."""
    if record.status is not Status.ACTIVE or not record.rounds:
        return None
    return next((p.board for p in record.rounds[-1].pairings
                 if p.result is None and set(p.players) == players), None)


async def game_ended(store: Store, game: GameRecord) -> None:
    """The end-of-game hook: a tournament game's match is over (or the game
    was cancelled): its result goes to its tournament.  Repeats do nothing."""
    match = match_of(game)
    if match is None or game.is_private or len(game.players) != 2:
        return
    tournament_id = await store.tournament.of_match(game.chat_id, match)
    if tournament_id is None:  # not a tournament's: no replay of its games
        return
    result = result_of(game)
    if result is None:
        return
    players = {p.user_id for p in game.players}
    # the same two players may meet again (a double round robin, a play-off)
    # while a match of theirs left unfinished at an earlier deadline goes on:
    # only the match of the open pairing's own game counts for it
    ours = await _pairing_games_of(store, game.chat_id, tournament_id, players, match)

    def change(record: TournamentRecord, now: float) -> TournamentRecord:
        board = open_board(record, players)
        if board is None or _pairing(record, board).game_id not in ours:
            return record
        return rules.record_result(record, board, result, now)

    await commit_tournament(store, game.chat_id, tournament_id, change)


async def _pairing_games_of(store: Store, chat_id: int, tournament_id: str,
                            players: set[int], match: str) -> set[str]:
    """The game ids of the open pairing of ``players`` whose first game plays
    ``match`` (none, or that one)."""
    record = await store.tournament.load(chat_id, tournament_id)
    board = None if record is None else open_board(record, players)
    if record is None or board is None:
        return set()
    game_id = _pairing(record, board).game_id
    first = None if game_id is None else await store.games.load_game(chat_id, game_id)
    return {first.game_id} if first is not None and match_of(first) == match else set()


def _pairing(record: TournamentRecord, board: int) -> Pairing:
    return next(p for p in record.rounds[-1].pairings if p.board == board)


async def latest_game(store: Store, chat_id: int, game_id: str | None) -> GameRecord | None:
    """A pairing's game as it is now: the game it began with, or the last game
    of its match (each game names the one that continued it)."""
    game = None if game_id is None else await store.games.load_game(chat_id, game_id)
    for _ in range(64):
        if game is None or game.next_game is None:
            return game
        following = await store.games.load_game(chat_id, game.next_game)
        if following is None:
            return game
        game = following
    return game


async def verdicts(store: Store, record: TournamentRecord) -> dict[int, Result]:
    """At the round's deadline, a result for every game of it not over, once
    the games being played were ended on time (:func:`timed_out`)."""
    out: dict[int, Result] = {}
    for pairing in record.rounds[-1].pairings:
        if pairing.result is not None:
            continue
        game = await latest_game(store, record.chat_id, pairing.game_id)
        result = None if game is None else result_of(game)
        # a match not over (a game of it finished, or one that could not be
        # ended on time): decided by its score
        if result is None and game is not None and game.status in (Status.FINISHED,
                                                                   Status.ACTIVE):
            result = _unfinished_match(game, record)
        out[pairing.board] = result or Result(decision=Decision.DOUBLE_FORFEIT)
    return out


def timed_out(record: GameRecord, now: float) -> GameRecord:
    """A game being played at its round's deadline: the player it waits for
    loses on time (a single game times the cube, as a claimed timeout)."""
    if record.status is not Status.ACTIVE:
        return record
    table = table_of(record)
    waiting = table.game.to_act
    if waiting is None:
        return record
    return played(record, table, lambda g: g.claim_timeout(waiting.opponent))


def forfeitable(game: GameRecord) -> bool:
    """Whether ``game`` (the last game of a pairing's match) can still be
    played or booked: waiting for ▶ Start, being played, or a match between
    two of its games."""
    if game.status in (Status.LOBBY, Status.ACTIVE):
        return True
    return (game.status is Status.FINISHED and game.next_game is None and bool(game.engine)
            and not table_of(game).match_over)


def forfeited(game: GameRecord, now: float) -> GameRecord:
    """A game whose pairing was decided by forfeit (a withdrawal) closes at
    once, books nothing and takes no move, resignation or rematch any more
    (``cancelled``: its end hook finds the pairing decided, so the forfeit
    stands)."""
    return cancelled(game) if forfeitable(game) else game


def _unfinished_match(game: GameRecord, record: TournamentRecord) -> Result:
    """A match left between two of its games at the deadline: the leader wins
    it (on a level score, the better seed)."""
    table = table_of(game)
    white, black = table.score
    seed = {e.user_id: e.seed or 0 for e in record.entrants}
    ids = [player_on(game, Side.WHITE).user_id, player_on(game, Side.BLACK).user_id]
    if white == black:
        winner = min(ids, key=seed.__getitem__)
    else:
        winner = ids[0] if white > black else ids[1]
    return Result(decision=Decision.PLAYED, winner=winner, points=table.match_length)


# ---------------------------------------------------------------- the league


async def month_table(store: Store, chat_id: int, season: Season
                      ) -> tuple[list[LeagueRow], dict[int, str]]:
    """A month's table and the players' names: its stored lines, and the
    month's results booked before the tables were kept, from the history
    lines older than those counted (at most its last 200)."""
    lines, who = await store.tournament.league.table(store.keys.league_month(chat_id, season.name))
    _, _, counted = await store.tournament.league.seasons(chat_id)
    older: list[LeagueGame] = []
    for entry in (await store.ledger.history(chat_id))[counted:]:
        game = league_game(entry)
        if game is not None and game.finished_at in season:
            older.append(game)
            for player in entry.players:
                who.setdefault(player.user_id, player.name)
    return ranked(added(lines, tallies(older))), who


async def season_table(store: Store, chat_id: int, season: NamedSeason
                       ) -> tuple[list[LeagueRow], dict[int, str]]:
    """A named season's table and the players' names."""
    name = store.keys.league_season(chat_id, season.season_id)
    lines, who = await store.tournament.league.table(name)
    return ranked(lines), who


async def start_season(store: Store, chat_id: int, season: NamedSeason) -> NamedSeason:
    """Start the named season (its id follows from the update: a retry finds
    it started); ``Refusal(SEASON_RUNS)`` while another runs, and
    ``Refusal(SEASONS_FULL)`` while the chat keeps as many as it may."""
    running, kept, _ = await store.tournament.league.seasons(chat_id)
    if running is None or running.season_id != season.season_id:
        may_start(kept)
    running_id = await store.tournament.league.start(chat_id, season)
    if running_id == season.season_id:
        return season
    running, _, _ = await store.tournament.league.seasons(chat_id)
    raise Refusal(SEASON_RUNS, name=running.name if running else "?")


async def end_season(store: Store, chat_id: int, user_id: int, admin: bool, now: float
                     ) -> NamedSeason:
    """End the running named season (its starter or a chat ``admin``);
    ``Refusal(NO_SEASON)`` if none runs."""
    running, _, _ = await store.tournament.league.seasons(chat_id)
    if running is None:
        raise Refusal(NO_SEASON)
    may_end(running, user_id, admin)
    season = ended(running, now)
    if not await store.tournament.league.end(chat_id, season):
        raise Refusal(NO_SEASON)   # ended meanwhile (by another, or a retry)
    return season


async def erase_season(store: Store, chat_id: int, name: str, admin: bool) -> NamedSeason:
    """A chat ``admin`` erases the ended season of that name with its table."""
    _, kept, _ = await store.tournament.league.seasons(chat_id)
    season = may_erase(kept, name, admin)
    if not await store.tournament.league.erase(chat_id, season):   # erased meanwhile
        _, kept, _ = await store.tournament.league.seasons(chat_id)
        may_erase(kept, name, admin)   # refused now, as the second erase is
    return season
