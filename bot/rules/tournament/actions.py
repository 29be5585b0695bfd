"""A tournament's rules: (record, who, action, now) -> the next record, or a Refusal.

Every function returns a new :class:`~bot.vocab.tournament.TournamentRecord`
(saved by one compare-and-set) or raises :class:`Refusal` (a player's action
that is not allowed: an alert, nothing written) or :class:`TournamentError`
(arguments the bot should never pass).

The life of a tournament:

1. :func:`create`: a lobby (status ``lobby``).
2. :func:`join` / :func:`leave` until the start; :func:`cancel` closes it.
3. :func:`start` by its creator, or :func:`start_due` when its start time
   has passed (with too few entrants, that cancels it).  The entrants are
   seeded (:func:`seed_order`) and round 1 is paired.
4. Each game's result comes in with :func:`record_result`; the bot plays
   each pairing as an ordinary game (:func:`attach_game` names it).  When the
   round's last result is in, the next round is paired in the same change,
   or the tournament ends (status ``finished``, the final standings stored,
   the prizes booked from them: :mod:`bot.rules.tournament.prizes`).
5. At a round's deadline, :func:`adjudicate` takes a result for every game
   not over: what the clock decided, or a forfeit of the player who never
   showed (both: a double forfeit).
6. :func:`withdraw`: a player leaves a running tournament.  Their game being
   played is lost by forfeit; they are paired no more (Swiss), lose every
   later game by forfeit (round robin) or are out (knockout).  Their games
   played stand.  A player who loses :data:`NO_SHOW_LIMIT` games by not
   showing up is withdrawn the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.rules.ratings import START, START_DEVIATION, conservative
from bot.rules.tournament import brackets, pairing
from bot.rules.tournament.formats import FORMATS, rules_of
from bot.rules.tournament.rounds import gone as _gone
from bot.rules.tournament.standings import standings
from bot.vocab.i18n import N_
from bot.vocab.records import COMPUTER_USER_IDS, Status, TableOptions
from bot.vocab.refusals import Refusal
from bot.vocab.tournament import (
    Decision,
    Entrant,
    Format,
    Pairing,
    Result,
    Round,
    Stage,
    TournamentRecord,
)
from engine.position import Variant

MIN_ENTRANTS = {f: row.min_entrants for f, row in FORMATS.items()}
MAX_ENTRANTS = {f: row.max_entrants for f, row in FORMATS.items()}
"""How many may play each format (its row in bot/rules/tournament/formats.py)."""
MAX_SWISS_ROUNDS = 15
NO_SHOW_LIMIT = 2
"""Games lost by not showing up that withdraw a player."""

FULL = N_("The tournament is full: {count} players.")
JOINED = N_("You have joined already.")
NOT_JOINED = N_("You have not joined this tournament.")
CLOSED = N_("The tournament has started or is over: joining and leaving are closed.")
TOO_FEW = N_("At least {count} players are needed to start.")
ONLY_CREATOR = N_("Only whoever created the tournament may start it.")
NOT_RUNNING = N_("The tournament is not being played.")
WITHDRAWN = N_("You have withdrawn from this tournament already.")
OUT = N_("Out of this tournament already (eliminated): there is nothing to withdraw from.")
CANCEL_LOBBY = N_("Only whoever created the tournament or an admin may cancel it.")
CANCEL_RUNNING = N_("Only an admin who does not play in it may cancel a tournament being "
                    "played.")
MAX_OPEN = 10
"""A chat's open tournaments (lobbies and running ones) at once: fewer than
the newest ones the chat's index is looked at for (bot/store/tournament.py
``LOOKED_AT``), so that a flood of lobbies never hides a running one."""
LOBBY_OPEN = N_("You have a tournament lobby open already: start it or cancel it first.")
CHAT_FULL = N_("This chat has {count} tournaments open already: finish or cancel one first.")


class TournamentError(ValueError):
    """An action the bot should never ask for (a game that is not in the
    round, a result for nobody of it, a deadline not passed yet)."""


@dataclass(frozen=True)
class Setup:
    """What ``/tournament`` asks for (:mod:`bot.rules.tournament.setup`)."""

    format: Format = Format.ROUND_ROBIN
    rounds: int = 0
    """Swiss rounds; 0: decided at the start (its format's ``planned_rounds``)."""
    double: bool = False
    consolation: bool = False
    entry_stake: int = 0
    prize_split: tuple[int, ...] = ()
    max_entrants: int = 0
    """0: the format's most (:data:`MAX_ENTRANTS`)."""
    round_length: int = 7 * 86400
    start_in: int | None = None
    """Seconds from creation to the start; None: the creator starts it."""
    round_matches: tuple[int, ...] = ()
    """Each round's match length, the last for the rounds after; (): each game's option."""
    final_match: int = 0
    """A knockout's final: a match of this length; 0: as its round."""


def create(chat_id: int, thread_id: int | None, creator: int, variant: Variant,
           options: TableOptions, setup: Setup, now: float) -> TournamentRecord:
    """A tournament's lobby.  ``options`` are each game's, checked as
    ``/new`` checks them (:func:`bot.rules.options.engine_options`)."""
    row = FORMATS[setup.format]
    most = row.max_entrants
    if not 0 <= setup.max_entrants <= most or 0 < setup.max_entrants < row.min_entrants:
        raise TournamentError(f"max entrants {setup.max_entrants} out of range")
    if options.computer is not None:
        raise TournamentError("tournaments are between people")
    return TournamentRecord(
        chat_id=chat_id, thread_id=thread_id, format=setup.format, rounds_planned=setup.rounds,
        double=setup.double, consolation=setup.consolation, variant=variant, options=options,
        entry_stake=setup.entry_stake, prize_split=setup.prize_split,
        max_entrants=setup.max_entrants or most, round_length=setup.round_length,
        round_matches=setup.round_matches, final_match=setup.final_match,
        start_at=None if setup.start_in is None else now + setup.start_in,
        created_by=creator, created_at=now, updated_at=now)


def may_create(open_ones: Sequence[TournamentRecord], user_id: int) -> None:
    """Refuse a new tournament while ``user_id`` has a lobby open in the chat,
    or the chat has :data:`MAX_OPEN` open (``open_ones``: its open ones)."""
    if any(t.status is Status.LOBBY and t.created_by == user_id for t in open_ones):
        raise Refusal(LOBBY_OPEN)
    if len(open_ones) >= MAX_OPEN:
        raise Refusal(CHAT_FULL, count=MAX_OPEN)


def join(record: TournamentRecord, user_id: int, name: str, now: float) -> TournamentRecord:
    if user_id in COMPUTER_USER_IDS.values():
        raise TournamentError("the computer plays no tournament")
    if record.status is not Status.LOBBY:
        raise Refusal(CLOSED)
    if any(e.user_id == user_id for e in record.entrants):
        raise Refusal(JOINED)
    if len(record.entrants) >= record.max_entrants:
        raise Refusal(FULL, count=record.max_entrants)
    entrants = (*record.entrants, Entrant(user_id=user_id, name=name[:64]))
    return record.model_copy(update={"entrants": entrants, "updated_at": now})


def leave(record: TournamentRecord, user_id: int, now: float) -> TournamentRecord:
    if record.status is not Status.LOBBY:
        raise Refusal(CLOSED)
    if not any(e.user_id == user_id for e in record.entrants):
        raise Refusal(NOT_JOINED)
    entrants = tuple(e for e in record.entrants if e.user_id != user_id)
    return record.model_copy(update={"entrants": entrants, "updated_at": now})


def cancel(record: TournamentRecord, user_id: int, admin: bool, now: float
           ) -> TournamentRecord:
    """Cancel a lobby (its creator or an admin) or a running tournament (an
    admin who does not play in it: cancelled, it books nothing, so a player
    would erase the entry stake they owe, as an admin may not cancel a game
    they play alone): nothing is booked, as for a cancelled game."""
    if record.status is Status.LOBBY and not admin and user_id != record.created_by:
        raise Refusal(CANCEL_LOBBY)
    if record.status is Status.ACTIVE and (
            not admin or any(e.user_id == user_id for e in record.entrants)):
        raise Refusal(CANCEL_RUNNING)
    if not record.status.is_open:
        raise Refusal(NOT_RUNNING)
    return record.model_copy(update={"status": Status.CANCELLED, "updated_at": now})


Ratings = Mapping[int, tuple[float, float]]
"""User id -> (rating, deviation) in the tournament's variant; missing: a newcomer's."""


def seed_order(entrants: tuple[Entrant, ...], ratings: Ratings) -> tuple[Entrant, ...]:
    """The entrants with their ratings, seeded: by the conservative rating
    ``rating - 2 × deviation`` (bot/rules/ratings.py), then by rating, then
    whoever joined first.  Provisional players therefore come after settled
    ones of similar rating, and newcomers last."""
    rated = []
    for order, entrant in enumerate(entrants):
        rating, deviation = ratings.get(entrant.user_id, (START, START_DEVIATION))
        rated.append((-conservative(rating, deviation), -rating, order,
                      entrant.model_copy(update={"rating": rating, "deviation": deviation})))
    rated.sort(key=lambda item: item[:3])
    return tuple(item[3].model_copy(update={"seed": i + 1}) for i, item in enumerate(rated))


def start(record: TournamentRecord, user_id: int, ratings: Ratings, now: float
          ) -> TournamentRecord:
    """The creator starts it: seeding, round 1."""
    if record.status is not Status.LOBBY:
        raise Refusal(CLOSED)
    if user_id != record.created_by:
        raise Refusal(ONLY_CREATOR)
    return _started(record, ratings, now)


def start_due(record: TournamentRecord, ratings: Ratings, now: float) -> TournamentRecord:
    """Its start time passed: it starts, or is cancelled if too few joined."""
    if record.status is not Status.LOBBY or record.start_at is None or now < record.start_at:
        raise TournamentError("not a lobby due to start")
    if len(record.entrants) < rules_of(record).min_entrants:
        return record.model_copy(update={"status": Status.CANCELLED, "updated_at": now})
    return _started(record, ratings, now)


def _started(record: TournamentRecord, ratings: Ratings, now: float) -> TournamentRecord:
    least = rules_of(record).min_entrants
    if len(record.entrants) < least:
        raise Refusal(TOO_FEW, count=least)
    rounds = rules_of(record).planned_rounds(record.rounds_planned, len(record.entrants))
    started = record.model_copy(update={
        "status": Status.ACTIVE, "entrants": seed_order(record.entrants, ratings),
        "rounds_planned": rounds, "started_at": now, "updated_at": now})
    return _advanced(started, now)


# ---------------------------------------------------------------- rounds


def current(record: TournamentRecord) -> Round:
    if record.status is not Status.ACTIVE or not record.rounds:
        raise Refusal(NOT_RUNNING)
    return record.rounds[-1]



def attach_game(record: TournamentRecord, board: int, game_id: str, now: float
                ) -> TournamentRecord:
    """The bot created ``game_id`` for ``board`` of the current round."""
    pairing = _pairing(record, board)
    if pairing.game_id is not None or pairing.result is not None or pairing.second is None:
        raise TournamentError(f"board {board} has its game or needs none")
    return _with_pairing(record, pairing.model_copy(update={"game_id": game_id}), now)


def record_result(record: TournamentRecord, board: int, result: Result, now: float
                  ) -> TournamentRecord:
    """A game of the current round ended: played to its end (``PLAYED``), or
    lost by a player who never showed (``FORFEIT``; ``DOUBLE_FORFEIT``: both).
    The round's last result pairs the next round or ends the tournament."""
    return _advanced(_resulted(record, board, result, now), now)


def adjudicate(record: TournamentRecord, verdicts: Mapping[int, Result], now: float
               ) -> TournamentRecord:
    """The round's deadline passed: ``verdicts`` (board -> result) decide
    every game not over, as the clocks decided them (or a forfeit of whoever
    never showed); then the next round."""
    round_ = current(record)
    if round_.deadline is None or now < round_.deadline:
        raise TournamentError("the round's deadline has not passed")
    open_boards = {p.board for p in round_.pairings if p.result is None}
    if set(verdicts) != open_boards:
        raise TournamentError(f"verdicts for boards {sorted(verdicts)}, open: "
                              f"{sorted(open_boards)}")
    for board in sorted(verdicts):
        record = _resulted(record, board, verdicts[board], now)
    return _advanced(record, now)


def withdraw(record: TournamentRecord, user_id: int, now: float) -> TournamentRecord:
    """``user_id`` leaves the running tournament (themselves, or an admin
    for them): their game being played is forfeited (see the module doc)."""
    round_ = current(record)
    entrant = next((e for e in record.entrants if e.user_id == user_id), None)
    if entrant is None:
        raise Refusal(NOT_JOINED)
    if entrant.withdrawn is not None:
        raise Refusal(WITHDRAWN)
    if not brackets.still_in(record, user_id):   # eliminated: no game of theirs is left
        raise Refusal(OUT)
    record = _withdrawn(record, {user_id}, round_.number)
    for p in round_.pairings:
        if p.result is None and user_id in p.players:
            record = _with_pairing(record, p.model_copy(update={"result": _forfeit(record, p)}),
                                   now)
    return _advanced(record, now)


def _pairing(record: TournamentRecord, board: int) -> Pairing:
    found = next((p for p in current(record).pairings if p.board == board), None)
    if found is None:
        raise TournamentError(f"no board {board} in round {record.rounds[-1].number}")
    return found


def _with_pairing(record: TournamentRecord, pairing: Pairing, now: float) -> TournamentRecord:
    last = record.rounds[-1]
    pairings = tuple(pairing if p.board == pairing.board else p for p in last.pairings)
    rounds = (*record.rounds[:-1], last.model_copy(update={"pairings": pairings}))
    return record.model_copy(update={"rounds": rounds, "updated_at": now})


def _resulted(record: TournamentRecord, board: int, result: Result, now: float
              ) -> TournamentRecord:
    pairing = _pairing(record, board)
    if pairing.result is not None or pairing.second is None:
        raise TournamentError(f"board {board} has its result")
    if result.decision is Decision.BYE:
        raise TournamentError("a game is not a bye")
    if (result.winner is None) != (result.decision is Decision.DOUBLE_FORFEIT) or (
            result.winner is not None and result.winner not in pairing.players):
        raise TournamentError(f"{result} is no result of board {board}")
    absent = set(pairing.players) - {result.winner} if result.decision is not Decision.PLAYED \
        else set()
    record = _with_pairing(record, pairing.model_copy(update={"result": result}), now)
    return _no_shows(record, absent)


def _no_shows(record: TournamentRecord, absent: set[int]) -> TournamentRecord:
    if not absent:
        return record
    entrants = tuple(e.model_copy(update={"no_shows": e.no_shows + 1}) if e.user_id in absent
                     else e for e in record.entrants)
    record = record.model_copy(update={"entrants": entrants})
    out = {e.user_id for e in entrants if e.no_shows >= NO_SHOW_LIMIT and e.withdrawn is None}
    return _withdrawn(record, out, record.rounds[-1].number)


def _withdrawn(record: TournamentRecord, players: set[int], round_number: int
               ) -> TournamentRecord:
    if not players:
        return record
    entrants = tuple(e.model_copy(update={"withdrawn": round_number}) if e.user_id in players
                     else e for e in record.entrants)
    return record.model_copy(update={"entrants": entrants})


def _forfeit(record: TournamentRecord, pairing: Pairing) -> Result:
    """The result of a game one or both of whose players withdrew."""
    gone = _gone(record)
    staying = [p for p in pairing.players if p not in gone]
    if staying:
        return Result(decision=Decision.FORFEIT, winner=staying[0])
    return Result(decision=Decision.DOUBLE_FORFEIT)


def _advanced(record: TournamentRecord, now: float) -> TournamentRecord:
    """Pair the next round while the current one is over (a round of byes and
    forfeits only is over at once), or end the tournament."""
    while not record.rounds or record.rounds[-1].done:
        stages = rules_of(record).next_round(record)
        if not stages:
            return record.model_copy(update={
                "status": Status.FINISHED, "final": standings(record), "updated_at": now})
        record = _opened(record, stages, now)
    return record


def match_length(record: TournamentRecord, round_number: int, final: bool = False) -> int:
    """The match length of a game of round ``round_number`` (``final``: a
    knockout's final): ``final=``, else the round's of ``match=1,3,5`` (the
    last for the rounds after), else each game's option (``match=5``).

    >>> from bot.vocab.tournament import Format
    >>> t = TournamentRecord(chat_id=1, format=Format.KNOCKOUT, variant=Variant.LONG,
    ...                      created_by=1, round_matches=(1, 3), final_match=7)
    >>> [match_length(t, n) for n in (1, 2, 3)], match_length(t, 3, final=True)
    ([1, 3, 3], 7)
    """
    if final and record.final_match:
        return record.final_match
    if record.round_matches:
        return record.round_matches[min(round_number, len(record.round_matches)) - 1]
    return record.options.match_length


def _opened(record: TournamentRecord, stages: list[tuple[Stage, list[pairing.Pair]]],
            now: float) -> TournamentRecord:
    gone = _gone(record)
    pairings: list[Pairing] = []
    number = len(record.rounds) + 1
    for stage, pairs in stages:
        # a knockout's final: the main bracket's one pair left (a bye is no final)
        final = rules_of(record).has_final and stage is Stage.MAIN and len(pairs) == 1
        for first, second in pairs:
            made = Pairing(board=len(pairings) + 1, first=first, second=second, stage=stage,
                           match_length=match_length(record, number, final))
            if second is None:
                made = made.model_copy(update={
                    "result": Result(decision=Decision.BYE, winner=first)})
            elif gone & {first, second}:
                made = made.model_copy(update={"result": _forfeit(record, made)})
            pairings.append(made)
    opened = Round(number=number, started_at=now, deadline=now + record.round_length,
                   pairings=tuple(pairings))
    return record.model_copy(update={"rounds": (*record.rounds, opened), "updated_at": now})
