"""Knockout brackets, replayed from a tournament's results.

A bracket is never stored: its places are computed from the seeds and the
results (:func:`replay`), so the record keeps only pairings and results.
Three brackets use this: a knockout's main bracket, its consolation bracket
(the players who lost a first-round game; played only if at least two did),
and a round robin's play-off for first place (:func:`playoff`).

Who goes through: the winner; after a double forfeit the better seed (a
knockout game must send somebody on, so the bracket always ends with one
winner); a lone player (a bye) goes through without a game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.rules.tournament.pairing import Pair, first_slots, next_slots, slot_pairs
from bot.vocab.tournament import Decision, Pairing, Stage, TournamentRecord

Slots = tuple[int | None, ...]


def seeds(record: TournamentRecord) -> dict[int, int]:
    """Each entrant's seed (1 = the top); before the start, the join order."""
    return {e.user_id: e.seed or i + 1 for i, e in enumerate(record.entrants)}


def seeded(record: TournamentRecord) -> list[int]:
    """The entrants' ids, the top seed first."""
    seed = seeds(record)
    return sorted(seed, key=seed.__getitem__)


def stage_rounds(record: TournamentRecord, stage: Stage) -> list[tuple[Pairing, ...]]:
    """The pairings of ``stage`` in each round that has some, in order."""
    out = []
    for number in record.rounds:
        mine = tuple(p for p in number.pairings if p.stage is stage)
        if mine:
            out.append(mine)
    return out


def goes_through(pairing: Pairing, seed: Mapping[int, int]) -> int | None:
    """Who goes on from a bracket's pairing; None while it has no result."""
    result = pairing.result
    if result is None:
        return None
    if result.decision is Decision.DOUBLE_FORFEIT:
        return min(pairing.players, key=seed.__getitem__)
    assert result.winner is not None
    return result.winner


@dataclass(frozen=True)
class Bracket:
    """A bracket's places round by round: ``slots[0]`` its first round's,
    ``slots[i + 1]`` who went through round ``i``'s games."""

    slots: tuple[Slots, ...]
    playing: bool
    """The last places' round is being played (some result is missing)."""

    @property
    def champion(self) -> int | None:
        last = self.slots[-1]
        return last[0] if len(last) == 1 and not self.playing else None

    def next_pairs(self) -> list[Pair]:
        """The pairs of the round to play next: [] while one is played, or when over."""
        if self.playing or len(self.slots[-1]) == 1:
            return []
        return [(a, b) if a is not None else (b, None)  # type: ignore[misc]
                for a, b in slot_pairs(self.slots[-1]) if a is not None or b is not None]

    def rounds_won(self) -> dict[int, int]:
        """How many rounds each player went through (a bye counts)."""
        out: dict[int, int] = {}
        for places in self.slots[1:]:
            for player in places:
                if player is not None:
                    out[player] = out.get(player, 0) + 1
        return out


def replay(first: Sequence[int | None], rounds: Sequence[Sequence[Pairing]],
           seed: Mapping[int, int]) -> Bracket:
    """The bracket whose first places are ``first`` after the pairings of
    ``rounds`` (its own, one tuple per round played).

    >>> from bot.vocab.tournament import Result
    >>> won = Pairing(board=1, first=3, second=2, result=Result(decision=Decision.PLAYED, winner=3))
    >>> bracket = replay([1, None, 2, 3], [[Pairing(board=1, first=1), won]], {1: 1, 2: 2, 3: 3})
    >>> bracket.slots, bracket.next_pairs()
    (((1, None, 2, 3), (1, 3)), [(1, 3)])
    """
    slots: list[Slots] = [tuple(first)]
    for pairings in rounds:
        after = _through(slots[-1], {frozenset(p.players): p for p in pairings}, seed)
        if after is None:
            return Bracket(tuple(slots), playing=True)
        slots.append(after)
    return Bracket(tuple(slots), playing=False)


def _through(slots: Slots, games: Mapping[frozenset[int], Pairing], seed: Mapping[int, int]
             ) -> Slots | None:
    """The places after a round whose pairings are ``games``; None while one has no result."""
    waiting = []

    def winner(a: int, b: int) -> int:
        passed = goes_through(games[frozenset((a, b))], seed)
        waiting.append(passed is None)
        return a if passed is None else passed

    after = tuple(next_slots(slots, winner))
    return None if any(waiting) else after


def main_bracket(record: TournamentRecord) -> Bracket:
    seed = seeds(record)
    return replay(first_slots(seeded(record)), stage_rounds(record, Stage.MAIN), seed)


def consolation(record: TournamentRecord, main: Bracket) -> Bracket | None:
    """The consolation bracket: the losers of the first round's games, in
    the places of those games; None if it is not played (not asked for, the
    first round not over, or fewer than two first-round losers)."""
    if not record.consolation or len(main.slots) < 2:
        return None
    losers: list[int | None] = []
    for (a, b), through in zip(slot_pairs(main.slots[0]), main.slots[1], strict=True):
        losers.append(None if a is None or b is None else (b if through == a else a))
    if sum(p is not None for p in losers) < 2:
        return None
    return replay(losers, stage_rounds(record, Stage.CONSOLATION), seeds(record))


def playoff(record: TournamentRecord, tied: Sequence[int]) -> Bracket:
    """The play-off for first place among ``tied`` (by seed): a knockout."""
    seed = seeds(record)
    return replay(first_slots(sorted(tied, key=seed.__getitem__)),
                  stage_rounds(record, Stage.PLAYOFF), seed)


def still_in(record: TournamentRecord, user_id: int) -> bool:
    """Whether a running tournament may still pair ``user_id`` (or is playing
    their game): a knockout's player who lost is out, unless the consolation
    bracket has them (or may still take them: its first round not over); in a
    round robin's play-off only the players tied for first still in it are in.
    A Swiss pairs everybody to the end."""
    if not record.rounds:
        return True
    current = record.rounds[-1].pairings
    if any(user_id in p.players and p.result is None for p in current):
        return True
    seed = seeds(record)

    def alive(bracket: Bracket | None, stage: Stage) -> bool:   # and not beaten this round
        return bracket is not None and user_id in bracket.slots[-1] and not any(
            p.stage is stage and user_id in p.players and p.second is not None
            and goes_through(p, seed) != user_id for p in current)

    if any(p.stage is Stage.PLAYOFF for p in current):
        return alive(playoff(record, tuple(playoff_players(record))), Stage.PLAYOFF)
    from bot.rules.tournament.formats import rules_of  # the table names what imports this

    if not rules_of(record).eliminates:
        return True
    main = main_bracket(record)
    if alive(main, Stage.MAIN):
        return True
    if len(main.slots) < 2:   # the first round is played: its losers may play the consolation
        return record.consolation
    return alive(consolation(record, main), Stage.CONSOLATION)


def playoff_players(record: TournamentRecord) -> set[int]:
    """The players of a round robin's play-off (those in its first round)."""
    stage = stage_rounds(record, Stage.PLAYOFF)
    return {player for p in (stage[0] if stage else ()) for player in p.players}
