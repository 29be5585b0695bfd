"""The prize split: the pot of entry stakes shared out by the final standings,
as ledger entries that add up to zero exactly.

Every entrant (withdrawn ones too) puts the entry stake in the pot; at the
end the pot goes to the best places by the split, in percent:

* a split given at creation (``split=50/30/20``): 1 to 8 places, whole
  percents adding up to 100, best place first, none bigger than the one
  before; used unless it has more places than there are entrants;
* otherwise the default for the number of entrants (:data:`DEFAULT_SPLITS`):
  2-3 entrants 100; 4-9 70/30; 10 or more 60/30/10 - so a paid place gets
  back at least its own entry stake (30 % of 4 stakes is 1.2 stakes; 10 % of
  10 stakes is one).

Amounts are whole units (stakes are integers, as everywhere in the ledger).
A place's amount is its percent of the pot rounded down; the units left
over go one each to the places with the biggest fractions cut off, the
better place first on a tie (the largest-remainder method).  Players who
share a rank share the amounts of the places they take up, equally; the
units that do not divide go one each to the better seeds among them.  So the
amounts add up to the pot, and each player's net (prize minus stake) adds up
to zero over the entrants.

The nets become ledger entries (:func:`ledger`): the paid places, best
first, are paid by the others, from the top of the standings down, each
debtor paying what they owe to as few winners as the order allows - at most
one entry fewer than the entrants.  Booked once, with the final result; a
cancelled tournament books nothing.

>>> amounts(1000, (60, 30, 10)), amounts(7, (60, 30, 10))
([600, 300, 100], [4, 2, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby, pairwise

from bot.vocab.records import Status
from bot.vocab.tournament import Place, TournamentRecord

MAX_PLACES = 8
DEFAULT_SPLITS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (10, (60, 30, 10)),
    (4, (70, 30)),
    (0, (100,)),
)
"""(at least this many entrants, the split), the biggest first (a lobby still
filling shows the split of the entrants it has so far)."""


class SplitError(ValueError):
    """A prize split no tournament can have."""


def check_split(split: Sequence[int]) -> tuple[int, ...]:
    """``split`` if it is one (see the module doc), else :class:`SplitError`.

    >>> check_split([50, 30, 20])
    (50, 30, 20)
    >>> check_split([30, 70])
    Traceback (most recent call last):
    ...
    bot.rules.tournament.prizes.SplitError: a split gives the best place the most: (30, 70)
    """
    split = tuple(split)
    if not 1 <= len(split) <= MAX_PLACES or any(part < 1 for part in split):
        raise SplitError(f"a split is 1 to {MAX_PLACES} positive percents: {split}")
    if sum(split) != 100:
        raise SplitError(f"a split adds up to 100, not {sum(split)}: {split}")
    if any(a < b for a, b in pairwise(split)):
        raise SplitError(f"a split gives the best place the most: {split}")
    return split


def default_split(entrants: int) -> tuple[int, ...]:
    """The split of :data:`DEFAULT_SPLITS` for ``entrants``.

    >>> default_split(0), default_split(3), default_split(9), default_split(10)
    ((100,), (100,), (70, 30), (60, 30, 10))
    """
    return next(split for least, split in DEFAULT_SPLITS if entrants >= least)


def split_of(record: TournamentRecord) -> tuple[int, ...]:
    """The split the tournament pays out by."""
    count = len(record.entrants)
    if record.prize_split and len(record.prize_split) <= count:
        return record.prize_split
    return default_split(count)


def amounts(pot: int, split: Sequence[int]) -> list[int]:
    """Each place's whole amount of ``pot`` (largest remainder; ties to the better place)."""
    floors = [pot * part // 100 for part in split]
    left = pot - sum(floors)
    by_fraction = sorted(range(len(split)), key=lambda i: (-(pot * split[i] % 100), i))
    for i in by_fraction[:left]:
        floors[i] += 1
    return floors


def prizes(places: Sequence[Place], pot: int, split: Sequence[int]) -> dict[int, int]:
    """What each player of ``places`` (the final standings, listed best first,
    ties by seed) receives; shared ranks share their places' amounts.

    >>> tied = [Place(rank=1, user_id=5, points=3, games=3, wins=3),
    ...         Place(rank=2, user_id=6, points=1, games=3, wins=1),
    ...         Place(rank=2, user_id=7, points=1, games=3, wins=1),
    ...         Place(rank=4, user_id=8, points=1, games=3, wins=1)]
    >>> prizes(tied, 41, (60, 30, 10))
    {5: 25, 6: 8, 7: 8, 8: 0}
    """
    paid = amounts(pot, split)
    out: dict[int, int] = {}
    position = 0
    for _, group in groupby(places, key=lambda place: place.rank):
        members = [place.user_id for place in group]
        pool = sum(paid[position:position + len(members)])
        share, odd = divmod(pool, len(members))
        for i, player in enumerate(members):
            out[player] = share + (i < odd)
        position += len(members)
    return out


def nets(record: TournamentRecord) -> dict[int, int]:
    """Each entrant's prize minus the entry stake, once the tournament is over
    (all zero before, for an unstaked or a cancelled one)."""
    players = [e.user_id for e in record.entrants]
    if record.status is not Status.FINISHED or not record.entry_stake:
        return dict.fromkeys(players, 0)
    pot = record.entry_stake * len(players)
    got = prizes(record.final, pot, split_of(record))
    return {player: got.get(player, 0) - record.entry_stake for player in players}


def ledger(record: TournamentRecord) -> dict[tuple[int, int], int]:
    """The ledger entries the end books: (winner id, loser id) -> what the loser
    pays (the format of :func:`bot.rules.ledger.booking`); {} if nothing.

    Creditors and debtors are taken in the order of the final standings."""
    net = nets(record)
    order = [place.user_id for place in record.final]
    owed = [[p, net[p]] for p in order if net[p] > 0]
    owing = [[p, -net[p]] for p in order if net[p] < 0]
    out: dict[tuple[int, int], int] = {}
    i = j = 0
    while i < len(owed) and j < len(owing):
        amount = min(owed[i][1], owing[j][1])
        out[(owed[i][0], owing[j][0])] = amount
        owed[i][1] -= amount
        owing[j][1] -= amount
        i += owed[i][1] == 0
        j += owing[j][1] == 0
    return out
