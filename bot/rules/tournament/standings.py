"""Standings computed from the results alone: points, games, tie-breaks, ranks.

Scoring (the main stage only; a play-off decides a tie and scores nothing):

* a win 1, a loss 0, whether played or by forfeit; a double forfeit 0 to both;
* a bye: 1 in a Swiss (a pairing-allocated bye), 0 in a round robin (the
  player simply sits the round out) and in a knockout (it only sends the
  player on).

Tie-breaks, in order (a player's ``tiebreaks`` in :class:`Place`):

* **Round robin**: head-to-head (points in the games among the players tied
  on points), Sonneborn-Berger (the final points of every opponent beaten
  over the board, once per game won), then a **play-off** for first place
  (:func:`tied_for_first`: a knockout among the players still tied, seeded):
  it decides first place only, its other players share the next rank.
* **Swiss**: Buchholz cut-1 (each round's opponent's final points, the
  lowest one dropped; a round without a game over the board - a bye, a
  forfeit either way, a round after withdrawing - counts the player's own
  final points, FIDE's "virtual opponent"), then Sonneborn-Berger.
* **Knockout**: the main bracket's rounds gone through (the winner all of
  them), then the consolation bracket's.

A forfeit win scores but carries no Sonneborn-Berger and is no game played
(``Place.games`` counts the games played over the board).
Players still equal after every tie-break share the rank (and the prizes of
the places they share, :mod:`bot.rules.tournament.prizes`); they are listed
by seed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from bot.rules.tournament.brackets import consolation, main_bracket, playoff, seeds
from bot.vocab.tournament import Decision, Pairing, Place, Stage, TournamentRecord


@dataclass
class Tally:
    """One player's results of the main stage."""

    points: int = 0
    games: int = 0
    wins: int = 0
    beaten: list[int] = field(default_factory=list)
    """Opponents beaten over the board, once per game."""
    rounds: dict[int, int | None] = field(default_factory=dict)
    """Round number -> the opponent met over the board (None: no game played)."""
    against: dict[int, int] = field(default_factory=dict)
    """Opponent -> points scored against them."""


def main_games(record: TournamentRecord) -> Iterator[tuple[int, Pairing]]:
    """(round number, pairing) of every main-stage pairing that has a result."""
    for number in record.rounds:
        for pairing in number.pairings:
            if pairing.stage is Stage.MAIN and pairing.result is not None:
                yield number.number, pairing


def tallies(record: TournamentRecord) -> dict[int, Tally]:
    """Every entrant's tally (withdrawn ones too)."""
    from bot.rules.tournament.formats import rules_of  # the table names this module's keys

    out = {e.user_id: Tally() for e in record.entrants}
    bye_scores = rules_of(record).bye_scores
    for number, pairing in main_games(record):
        result = pairing.result
        assert result is not None
        if pairing.second is None:
            out[pairing.first].points += bye_scores
            out[pairing.first].rounds[number] = None
            continue
        played = result.decision is Decision.PLAYED
        for player in pairing.players:
            mine, other = out[player], pairing.opponent(player)
            assert other is not None
            won = result.winner == player
            mine.games += played   # a forfeit is no game (it scores, it was not played)
            mine.points += won
            mine.wins += won
            mine.against[other] = mine.against.get(other, 0) + won
            mine.rounds[number] = other if played else None
            if won and played:
                mine.beaten.append(other)
    return out


def scores(record: TournamentRecord) -> dict[int, int]:
    """Each entrant's points so far."""
    return {player: tally.points for player, tally in tallies(record).items()}


def sonneborn_berger(tally: Tally, final: dict[int, Tally]) -> int:
    return sum(final[opponent].points for opponent in tally.beaten)


def buchholz_cut1(tally: Tally, final: dict[int, Tally], rounds: int) -> int:
    """The opponents' points round by round (the player's own for a round
    without a game), the lowest dropped."""
    values = []
    for number in range(1, rounds + 1):
        opponent = tally.rounds.get(number)
        values.append(tally.points if opponent is None else final[opponent].points)
    return sum(values) - min(values, default=0)


def head_to_head(final: dict[int, Tally]) -> dict[int, int]:
    """Each player's points in the games among the players tied with them on points."""
    level: dict[int, list[int]] = defaultdict(list)
    for player, tally in final.items():
        level[tally.points].append(player)
    return {player: sum(final[player].against.get(other, 0) for other in level[tally.points])
            for player, tally in final.items()}


def round_robin_keys(record: TournamentRecord, final: dict[int, Tally]
                      ) -> dict[int, tuple[int, ...]]:
    h2h = head_to_head(final)
    played_off = any(p.stage is Stage.PLAYOFF for r in record.rounds for p in r.pairings)
    # the play-off decides first place only: its winner 1, the others stay equal
    champion = playoff(record, _tied(final, h2h)).champion if played_off else None
    return {p: (h2h[p], sonneborn_berger(t, final), int(p == champion))
            for p, t in final.items()}


def tied_for_first(record: TournamentRecord) -> list[int]:
    """A round robin's players equal on points, head-to-head and
    Sonneborn-Berger at the top: two or more need a play-off."""
    final = tallies(record)
    return _tied(final, head_to_head(final))


def _tied(final: dict[int, Tally], h2h: dict[int, int]) -> list[int]:
    key = {p: (t.points, h2h[p], sonneborn_berger(t, final)) for p, t in final.items()}
    best = max(key.values())
    return [p for p in key if key[p] == best]


def swiss_keys(record: TournamentRecord, final: dict[int, Tally]) -> dict[int, tuple[int, ...]]:
    rounds = sum(r.done for r in record.rounds)   # mid-round, the rounds over
    return {p: (buchholz_cut1(t, final, rounds), sonneborn_berger(t, final))
            for p, t in final.items()}


def knockout_keys(record: TournamentRecord, final: dict[int, Tally]
                  ) -> dict[int, tuple[int, ...]]:
    main = main_bracket(record)
    second = consolation(record, main)
    won = main.rounds_won()
    extra = second.rounds_won() if second is not None else {}
    return {e.user_id: (won.get(e.user_id, 0), extra.get(e.user_id, 0))
            for e in record.entrants}


def standings(record: TournamentRecord) -> tuple[Place, ...]:
    """The standings now: by points, then the format's tie-breaks; best first."""
    from bot.rules.tournament.formats import rules_of  # the table names this module's keys

    final = tallies(record)
    row = rules_of(record)
    breaks = row.tiebreaks(record, final)
    # a knockout by the rounds won, not points
    key = {p: (final[p].points, *breaks[p]) if row.by_points else breaks[p] for p in final}
    seed = seeds(record)
    order = sorted(final, key=lambda p: (tuple(-k for k in key[p]), seed[p]))
    places: list[Place] = []
    for position, player in enumerate(order):
        rank = position + 1 if position == 0 or key[order[position - 1]] != key[player] \
            else places[-1].rank
        tally = final[player]
        places.append(Place(rank=rank, user_id=player, points=tally.points, games=tally.games,
                            wins=tally.wins, tiebreaks=breaks[player]))
    return tuple(places)
