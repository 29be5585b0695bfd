"""The prize split: worked examples, and whole units that always add up."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.tournament.prizes import (
    SplitError,
    amounts,
    check_split,
    default_split,
    ledger,
    nets,
    prizes,
)
from bot.vocab.records import Status
from bot.vocab.tournament import Entrant, Format, Place, TournamentRecord
from engine.position import Variant


def finished(ranks: list[int], stake: int, split: tuple[int, ...] = ()) -> TournamentRecord:
    """A finished tournament whose players 1..n placed with ``ranks``."""
    players = range(1, len(ranks) + 1)
    return TournamentRecord(
        chat_id=-1, format=Format.SWISS, variant=Variant.LONG, created_by=1,
        status=Status.FINISHED, entry_stake=stake, prize_split=split,
        entrants=tuple(Entrant(user_id=p, name=f"p{p}", seed=p) for p in players),
        final=tuple(Place(rank=r, user_id=p, points=0, games=0, wins=0)
                    for p, r in zip(players, ranks, strict=True)))


def test_ten_players_at_ten_split_60_30_10() -> None:
    record = finished(list(range(1, 11)), 10)
    assert nets(record) == {1: 50, 2: 20, 3: 0, **{p: -10 for p in range(4, 11)}}
    # the best place is paid first, by the players from the top of the standings down
    assert ledger(record) == {(1, 4): 10, (1, 5): 10, (1, 6): 10, (1, 7): 10, (1, 8): 10,
                              (2, 9): 10, (2, 10): 10}


def test_fewer_entrants_fall_back_to_smaller_splits() -> None:
    assert default_split(2) == default_split(3) == (100,)
    assert default_split(4) == default_split(9) == (70, 30)
    assert nets(finished([1, 2, 3], 10)) == {1: 20, 2: -10, 3: -10}
    assert nets(finished([1, 2, 3, 4], 10)) == {1: 18, 2: 2, 3: -10, 4: -10}
    # a split is used while it has no more places than entrants
    assert nets(finished([1, 2, 3], 10, (50, 30, 20))) == {1: 5, 2: -1, 3: -4}
    assert nets(finished([1, 2], 10, (50, 30, 20))) == {1: 10, 2: -10}


def test_remainders_go_to_the_biggest_fractions_then_the_better_place() -> None:
    assert amounts(7, (60, 30, 10)) == [4, 2, 1]     # 4.2, 2.1, 0.7: the 0.7 gets the unit
    assert amounts(10, (34, 33, 33)) == [4, 3, 3]    # 3.4, 3.3, 3.3
    assert amounts(11, (34, 33, 33)) == [4, 4, 3]    # 3.74, 3.63, 3.63: better place first
    assert amounts(0, (60, 30, 10)) == [0, 0, 0]


def test_shared_places_share_their_prizes_and_the_odd_units_go_to_the_better_seed() -> None:
    # two share 1st: 60 + 30 of 50 = 45, 22 and 23 -> 23 to seed 1
    record = finished([1, 1, 3, 4, 5], 10, (60, 30, 10))
    assert prizes(record.final, 50, (60, 30, 10)) == {1: 23, 2: 22, 3: 5, 4: 0, 5: 0}
    assert sum(nets(record).values()) == 0
    # a three-way tie for 2nd shares 30 + 10 + 0
    assert prizes(finished([1, 2, 2, 2], 7).final, 28, (60, 30, 10)) == {
        1: 17, 2: 4, 3: 4, 4: 3}


def test_nothing_is_booked_unless_finished_and_staked() -> None:
    for status in (Status.CANCELLED, Status.ACTIVE, Status.LOBBY):
        record = finished([1, 2, 3], 10).model_copy(update={"status": status})
        assert ledger(record) == {} and set(nets(record).values()) == {0}
    assert ledger(finished([1, 2, 3], 0)) == {}


def test_a_split_is_checked() -> None:
    assert check_split((50, 50)) == (50, 50)
    for bad in [(), (60, 30), (50, 30, 20, 0), (30, 70), (10,) * 10]:
        with pytest.raises(SplitError):
            check_split(bad)


@given(st.lists(st.integers(1, 40), min_size=2, max_size=64), st.integers(0, 10**6),
       st.sampled_from([(), (100,), (60, 30, 10), (50, 25, 15, 10), (34, 33, 33),
                        (20, 20, 20, 20, 20)]))
def test_every_split_adds_up_to_zero_exactly(ranks: list[int], stake: int,
                                             split: tuple[int, ...]) -> None:
    ranks = sorted(ranks)   # the standings list the best first
    record = finished(ranks, stake, split)
    net = nets(record)
    assert sum(net.values()) == 0
    assert all(v >= -stake for v in net.values())
    balance = dict.fromkeys(net, 0)
    for (winner, loser), amount in ledger(record).items():
        assert amount > 0
        balance[winner] += amount
        balance[loser] -= amount
    assert balance == net
    assert len(ledger(record)) < len(ranks)
