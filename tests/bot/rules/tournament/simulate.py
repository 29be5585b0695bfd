"""Random tournaments played through the pure rules, and what must hold of them.

:func:`simulate` plays one tournament from a seed: a random format, 3-64
entrants (2-64 for a knockout) within the format's limits, random ratings
(some players new), random setups (double round robins, consolation
brackets, Swiss rounds, entry stakes, custom splits, lobby joins and leaves),
then random events until it ends: games won either way, no-show forfeits,
double forfeits, withdrawals, deadlines adjudicated with random verdicts,
and now and then an admin's cancel.  :func:`check` asserts every invariant
of docs/tournaments.md on the record it ends with, recomputing the
standings from the flat list of results by its own simple code.

The suite runs a few hundred (tests/bot/rules/tournament/test_simulated.py);
benchmarks/tournament_bench.py runs 10,000 and times them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from bot.rules.tournament import actions, brackets, prizes
from bot.rules.tournament.pairing import round_robin_rounds
from bot.vocab.records import Status, TableOptions
from bot.vocab.tournament import Decision, Format, Pairing, Result, Stage, TournamentRecord
from engine.position import Variant

CREATOR = 1


@dataclass
class Played:
    """One simulated tournament: its record at the end and what happened."""

    record: TournamentRecord
    cancelled: bool = False
    events: Counter[str] = field(default_factory=Counter)


def simulate(seed: int, fmt: Format | None = None, players: int | None = None) -> Played:
    rng = random.Random(seed)
    fmt = fmt or rng.choice(list(Format))
    least, most = actions.MIN_ENTRANTS[fmt], actions.MAX_ENTRANTS[fmt]
    count = players or rng.randint(least, most)
    split: tuple[int, ...] = ()
    if rng.random() < 0.3:
        split = rng.choice([(100,), (50, 30, 20), (40, 30, 20, 10), (34, 33, 33), (90, 10)])
    setup = actions.Setup(
        format=fmt, rounds=rng.choice([0, rng.randint(1, actions.MAX_SWISS_ROUNDS)])
        if fmt is Format.SWISS else 0,
        double=fmt is Format.ROUND_ROBIN and rng.random() < 0.3,
        consolation=fmt is Format.KNOCKOUT and rng.random() < 0.5,
        entry_stake=rng.choice([0, 1, 7, 10, 250]), prize_split=split,
        round_length=rng.choice([3600, 86400, 7 * 86400]))
    now = 1_000_000.0
    record = actions.create(-100, None, CREATOR, Variant.LONG, TableOptions(), setup, now)
    played = Played(record)
    users = list(range(10, 10 + count + 3))
    for user in users[:count]:
        record = actions.join(record, user, f"p{user}", now)
    if rng.random() < 0.2:  # somebody leaves the lobby and another joins
        record = actions.leave(record, users[0], now)
        record = actions.join(record, users[count], "late", now)
    ratings = {u: (rng.uniform(1200, 1900), rng.uniform(50, 350)) for u in users
               if rng.random() < 0.8}
    record = actions.start(record, CREATOR, ratings, now)
    cancel_at = rng.randint(1, 400) if rng.random() < 0.03 else None
    steps = 0
    while record.status is Status.ACTIVE:
        steps += 1
        now += 60
        if steps == cancel_at:
            record = actions.cancel(record, 99, admin=True, now=now)
            played.cancelled = True
            break
        record = _step(record, rng, now, played.events)
        now = max(now, record.updated_at)
    played.record = record
    return played


def _step(record: TournamentRecord, rng: random.Random, now: float, events: Counter[str]
          ) -> TournamentRecord:
    current = record.rounds[-1]
    waiting = [p for p in current.pairings if p.result is None]
    roll = rng.random()
    playing = [] if roll >= 0.02 else [   # an eliminated player cannot withdraw
        e.user_id for e in record.entrants
        if e.withdrawn is None and brackets.still_in(record, e.user_id)]
    if playing:
        events["withdrawal"] += 1
        return actions.withdraw(record, rng.choice(playing), now)
    if roll < 0.06:
        assert current.deadline is not None
        events["deadline"] += 1
        verdicts = {p.board: _random_result(p, rng, played_share=0.5) for p in waiting}
        return actions.adjudicate(record, verdicts, max(now, current.deadline))
    pairing = rng.choice(waiting)
    if pairing.game_id is None and rng.random() < 0.5:
        record = actions.attach_game(record, pairing.board, f"g{pairing.board}x{now:.0f}", now)
    result = _random_result(pairing, rng, played_share=0.9)
    events[result.decision.value] += 1
    return actions.record_result(record, pairing.board, result, now)


def _random_result(pairing: Pairing, rng: random.Random, played_share: float) -> Result:
    roll = rng.random()
    if roll < played_share:
        return Result(decision=Decision.PLAYED, winner=rng.choice(pairing.players),
                      points=rng.choice([1, 1, 2, 3]))
    if roll < played_share + (1 - played_share) * 0.8:
        return Result(decision=Decision.FORFEIT, winner=rng.choice(pairing.players))
    return Result(decision=Decision.DOUBLE_FORFEIT)


# ---------------------------------------------------------------- invariants


def check(played: Played) -> None:
    """Every invariant of a tournament that ended (or was cancelled)."""
    record = played.record
    _check_rounds(record)
    if played.cancelled:
        assert record.status is Status.CANCELLED
        assert prizes.ledger(record) == {}
        return
    assert record.status is Status.FINISHED
    {Format.ROUND_ROBIN: _check_round_robin, Format.SWISS: _check_swiss,
     Format.KNOCKOUT: _check_knockout}[record.format](record)
    assert _reference_standings(record) == [
        (p.rank, p.user_id, p.points, p.games, p.wins, p.tiebreaks) for p in record.final
    ], "the stored standings are not the results' standings"
    assert TournamentRecord.model_validate_json(record.model_dump_json()) == record
    _check_money(record)


def _check_rounds(record: TournamentRecord) -> None:
    """Rounds are numbered in order, every pairing of a finished round has a
    result, and nobody plays twice in a round."""
    for number, each in enumerate(record.rounds, start=1):
        assert each.number == number
        assert [p.board for p in each.pairings] == list(range(1, len(each.pairings) + 1))
        seen = [player for p in each.pairings for player in p.players]
        assert len(seen) == len(set(seen)), f"a player twice in round {number}"
        if number < len(record.rounds) or record.status is Status.FINISHED:
            assert each.done
        for p in each.pairings:
            if p.second is None:
                assert p.result == Result(decision=Decision.BYE, winner=p.first)


def _withdrawn_in(record: TournamentRecord) -> dict[int, int]:
    return {e.user_id: e.withdrawn for e in record.entrants if e.withdrawn is not None}


def _check_round_robin(record: TournamentRecord) -> None:
    """Every pair meets once per cycle, played or forfeited exactly once; a
    withdrawn player loses every later game by forfeit; the odd player out
    sits each round out once per cycle."""
    cycles = 2 if record.double else 1
    players = [e.user_id for e in record.entrants]
    main = [(r.number, p) for r in record.rounds for p in r.pairings if p.stage is Stage.MAIN]
    assert len({n for n, _ in main}) == round_robin_rounds(len(players), record.double)
    games = Counter(frozenset(p.players) for _, p in main if p.second is not None)
    assert games == Counter({frozenset((a, b)): cycles for i, a in enumerate(players)
                             for b in players[i + 1:]})
    byes = Counter(p.first for _, p in main if p.second is None)
    assert byes == (Counter(dict.fromkeys(players, cycles)) if len(players) % 2 else Counter())
    gone = _withdrawn_in(record)
    for number, p in main:
        late = [x for x in p.players if x in gone and gone[x] < number]
        if late and p.second is not None:
            assert p.result is not None and p.result.decision is not Decision.PLAYED
            assert p.result.winner not in late


def _check_swiss(record: TournamentRecord) -> None:
    """No pair twice, at most one bye each, every player still in paired in
    every round (none after withdrawing), all the planned rounds unless a
    withdrawal left no pairing without a repeat."""
    pairs = [frozenset(p.players) for r in record.rounds for p in r.pairings if p.second]
    assert len(pairs) == len(set(pairs)), "a Swiss repeated a pairing"
    byes = Counter(p.first for r in record.rounds for p in r.pairings if p.second is None)
    assert max(byes.values(), default=0) <= 1, "two byes to one player"
    gone = _withdrawn_in(record)
    for each in record.rounds:
        expected = {e.user_id for e in record.entrants
                    if e.user_id not in gone or gone[e.user_id] >= each.number}
        paired = {x for p in each.pairings for x in p.players}
        assert paired <= expected
        # those who withdrew during this round were paired before withdrawing
        assert {x for x in expected if gone.get(x, 0) != each.number} <= paired
    assert len(record.rounds) <= record.rounds_planned
    if not gone:   # only a withdrawal can leave a round without a pairing
        assert len(record.rounds) == record.rounds_planned


def _check_knockout(record: TournamentRecord) -> None:
    """One winner: one player ranked first alone, who won the final."""
    firsts = [p for p in record.final if p.rank == 1]
    assert len(firsts) == 1
    final = [p for p in record.rounds[-1].pairings if p.stage is Stage.MAIN]
    if len(record.entrants) > 1:
        assert len(final) == 1 and final[0].second is not None
        assert final[0].result is not None
        winner = final[0].result.winner
        if final[0].result.decision is Decision.DOUBLE_FORFEIT:
            seed = {e.user_id: e.seed for e in record.entrants}
            winner = min(final[0].players, key=lambda x: seed[x] or 0)
        assert winner == firsts[0].user_id


def _check_money(record: TournamentRecord) -> None:
    """The entries add up to zero and pay each player their prize minus the stake."""
    entries = prizes.ledger(record)
    balance: Counter[int] = Counter()
    for (winner, loser), amount in entries.items():
        assert amount > 0 and winner != loser
        balance[winner] += amount
        balance[loser] -= amount
    assert sum(balance.values()) == 0
    nets = prizes.nets(record)
    assert sum(nets.values()) == 0
    assert {p: v for p, v in nets.items() if v} == {p: v for p, v in balance.items() if v}
    if record.entry_stake:
        pot = record.entry_stake * len(record.entrants)
        assert sum(v + record.entry_stake for v in nets.values()) == pot
        assert len(entries) < len(record.entrants)
    else:
        assert entries == {}


# ---------------------------------------------------------------- the reference


def _reference_standings(record: TournamentRecord) -> list[tuple[int, int, int, int, int,
                                                                  tuple[int, ...]]]:
    """The standings from the flat list of results, written apart from
    bot/rules/tournament/standings.py, as docs/tournaments.md states them."""
    seed = {e.user_id: e.seed or 0 for e in record.entrants}
    flat = [(r.number, p) for r in record.rounds for p in r.pairings]
    points = Counter[int]()
    games = Counter[int]()
    wins = Counter[int]()
    for _, p in flat:
        res = p.result
        assert res is not None
        if p.stage is not Stage.MAIN:
            continue
        if p.second is None:
            points[p.first] += record.format is Format.SWISS
            continue
        for x in p.players:
            games[x] += res.decision is Decision.PLAYED   # a forfeit is no game
        if res.winner is not None:
            points[res.winner] += 1
            wins[res.winner] += 1
    played_main = [(n, p) for n, p in flat if p.stage is Stage.MAIN and p.second is not None]
    sb = Counter[int]()
    for _, p in played_main:
        res = p.result
        assert res is not None
        if res.decision is Decision.PLAYED and res.winner is not None:
            loser = p.opponent(res.winner)
            assert loser is not None
            sb[res.winner] += points[loser]
    entrants = [e.user_id for e in record.entrants]
    if record.format is Format.ROUND_ROBIN:
        h2h = Counter[int]()
        for _, p in played_main:
            res = p.result
            assert res is not None
            if res.winner is not None:
                loser = p.opponent(res.winner)
                if loser is not None and points[loser] == points[res.winner]:
                    h2h[res.winner] += 1
        # the play-off decides first place only: the winner of its last game
        last = [p for _, p in flat if p.stage is Stage.PLAYOFF and p.second is not None][-1:]
        won = {_went_through(record, [(0, p) for p in last], Stage.PLAYOFF).most_common(1)[0][0]
               } if last and record.status is Status.FINISHED else set()
        breaks = {x: (h2h[x], sb[x], int(x in won)) for x in entrants}
        keys = {x: (points[x], *breaks[x]) for x in entrants}
    elif record.format is Format.SWISS:
        opponents: dict[int, dict[int, int]] = {x: {} for x in entrants}
        for n, p in played_main:
            res = p.result
            assert res is not None and p.second is not None
            if res.decision is Decision.PLAYED:
                opponents[p.first][n] = p.second
                opponents[p.second][n] = p.first
        breaks = {}
        for x in entrants:
            values = [points[opponents[x][n]] if n in opponents[x] else points[x]
                      for n in range(1, len(record.rounds) + 1)]
            breaks[x] = (sum(values) - min(values, default=0), sb[x])
        keys = {x: (points[x], *breaks[x]) for x in entrants}
    else:
        main = _went_through(record, flat, Stage.MAIN)
        extra = _went_through(record, flat, Stage.CONSOLATION)
        breaks = {x: (main[x], extra[x]) for x in entrants}
        keys = breaks
    order = sorted(entrants, key=lambda x: ([-k for k in keys[x]], seed[x]))
    return [(1 + sum(keys[y] > keys[x] for y in entrants), x, points[x], games[x], wins[x],
             breaks[x]) for x in order]


def _went_through(record: TournamentRecord, flat: list[tuple[int, Pairing]], stage: Stage
                  ) -> Counter[int]:
    """How many of ``stage``'s rounds each player went through: byes, wins,
    and a double forfeit's better seed."""
    seed = {e.user_id: e.seed or 0 for e in record.entrants}
    out = Counter[int]()
    for _, p in flat:
        if p.stage is stage and p.result is not None:
            if p.result.decision is Decision.DOUBLE_FORFEIT:
                out[min(p.players, key=seed.__getitem__)] += 1
            else:
                assert p.result.winner is not None
                out[p.result.winner] += 1
    return out
