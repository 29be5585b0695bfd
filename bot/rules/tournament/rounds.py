"""Each format's next round (the ``next_round`` of its row in
:mod:`bot.rules.tournament.formats`): the pairs of the next round by stage,
[] when the tournament is over; and a Swiss's planned rounds."""

from __future__ import annotations

import math

from bot.rules.tournament import brackets, pairing
from bot.rules.tournament.standings import scores, tied_for_first
from bot.vocab.tournament import Decision, Stage, TournamentRecord

Stages = list[tuple[Stage, list[pairing.Pair]]]
"""The pairs of a round, by stage."""


def swiss_rounds(asked: int, players: int) -> int:
    """A Swiss's rounds: as asked (default ``ceil(log2 n) + 1``), at most half
    the players (rounded down).  Then every round can be paired without a
    repeat however the earlier ones went, unless players withdraw: after
    ``r - 1`` rounds each player may still meet ``n - r`` others (and the
    bye, while somebody has not had it, ``n - r + 1`` players), at least half
    the field, and such a graph always has a perfect matching (Dirac).

    >>> swiss_rounds(0, 8), swiss_rounds(0, 64), swiss_rounds(9, 5), swiss_rounds(3, 4)
    (4, 7, 2, 2)
    """
    wanted = asked or math.ceil(math.log2(players)) + 1
    return min(wanted, max(1, players // 2))


def as_asked(asked: int, players: int) -> int:
    """The planned rounds of a format whose rounds follow from its field (0:
    none planned)."""
    return asked


def gone(record: TournamentRecord) -> set[int]:
    """The players who withdrew."""
    return {e.user_id for e in record.entrants if e.withdrawn is not None}


def next_round_robin(record: TournamentRecord) -> Stages:
    seeded = brackets.seeded(record)
    played = len(brackets.stage_rounds(record, Stage.MAIN))
    if played < pairing.round_robin_rounds(len(seeded), record.double):
        return [(Stage.MAIN, pairing.round_robin(seeded, played + 1, record.double))]
    tied = tied_for_first(record)
    if len(tied) < 2:
        return []
    pairs = brackets.playoff(record, tied).next_pairs()
    return [(Stage.PLAYOFF, pairs)] if pairs else []


def next_swiss(record: TournamentRecord) -> Stages:
    left = gone(record)
    seed = brackets.seeds(record)
    playing = [p for p in brackets.seeded(record) if p not in left]
    if len(record.rounds) >= record.rounds_planned or len(playing) < 2:
        return []
    points = scores(record)
    met = {frozenset(p.players) for r in record.rounds for p in r.pairings if p.second}
    had_bye = {p.first for r in record.rounds for p in r.pairings if p.second is None}
    # FIDE C.04.1 d: nor to one who won without playing (an opponent who never
    # showed or withdrew), unless nobody else can take it
    unplayed = had_bye | {p.result.winner for r in record.rounds for p in r.pairings
                          if p.result is not None and p.result.decision is Decision.FORFEIT
                          and p.result.winner is not None}
    ranked = pairing.ranked_for_swiss(playing, points, seed)
    found = pairing.swiss(ranked, points, met, unplayed) or pairing.swiss(ranked, points, met,
                                                                           had_bye)
    if found is None:
        return []  # no pairing without a repeat is left: it ends early
    pairs, bye = found
    return [(Stage.MAIN, [*pairs, *([(bye, None)] if bye is not None else [])])]


def next_knockout(record: TournamentRecord) -> Stages:
    main = brackets.main_bracket(record)
    out: Stages = []
    if main.next_pairs():
        out.append((Stage.MAIN, main.next_pairs()))
    second = brackets.consolation(record, main)
    if second is not None and second.next_pairs():
        out.append((Stage.CONSOLATION, second.next_pairs()))
    return out
