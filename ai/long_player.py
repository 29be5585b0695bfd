"""The long nardy brain: the self-taught net (:mod:`ai.long_net`) and a
search over the legal turns (:mod:`ai.long_search`).

* easy: 1 ply with a beginner's mistakes (:data:`NOISE`, the model of
  :class:`ai.player.Noise`);
* medium: 1 ply with an intermediate player's smaller mistakes;
* strong: 1 ply, then 2 ply (the opponent's 21 rolls and its best reply)
  for the best five turns within 0.3 equity of the best (three within 0.2
  lost 1.2 mp per decision against 2 ply for every turn, five 0.2, within
  its time: docs/ai.md, "The yardstick and the strong level's search"),
  then 3 ply (:func:`ai.long_search.three_ply`) for those of them within
  0.3 of the first by 2 ply, as many as a budget of positions allows
  (:data:`THIRD`);
* best: as strong without the budget, then 4 ply
  (:func:`ai.long_search.four_ply`) for its first two by 3 ply, with a
  net of its own (:data:`NETS`).

The third look is for playing; a game's analysis judges at 2 ply
(``rank(judging=True)``), the depth of its luck.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ai.long_net import WEIGHTS_PATH, LongNet
from ai.long_search import (
    CHANCES,
    afterstate_equities,
    four_ply,
    roll_values,
    rows,
    three_ply,
)
from ai.player import Depth, Level, Noise, Player, RankedTurn
from engine import Position, Turn, Variant, end_turn

NOISE = {
    Level.EASY: Noise(temperature=0.05, cap=0.30, hunch=0.30),
    Level.MEDIUM: Noise(temperature=0.022, cap=0.20, hunch=0.15),
}
"""The levels' mistakes (:class:`ai.player.Noise`), tuned by
``benchmarks/levels_bench.py`` so that each level beats the one below in
about 62-66% of the games (docs/ai.md, "Levels")."""
_DEPTH = {Level.STRONG: Depth(candidates=5, margin=0.3),
          Level.BEST: Depth(candidates=5, margin=0.3)}


@dataclass(frozen=True)
class Third:
    """A level's third look: its best ``candidates`` turns by 2 ply again at
    3 ply when they are within ``margin`` of the first (a clear first needs
    none), the opponent's reply to each roll chosen among its best
    ``replies`` by 1 ply (:func:`ai.long_search.three_ply`)."""

    candidates: int
    margin: float
    replies: int = 1
    budget: int | None = None
    """The most positions the look values at its last ply (the first two
    candidates are always looked at): :func:`ai.long_search.three_ply`."""
    fourth: int = 0
    """Then its best ``fourth`` by 3 ply again at 4 ply
    (:func:`ai.long_search.four_ply`), when at least two."""

    def __post_init__(self) -> None:
        if self.candidates < 2 or self.replies < 1 or self.fourth < 0 or (
                self.budget is not None and self.budget < 0):
            raise ValueError(f"a third look needs 2 or more candidates, 1 or more replies, "
                             f"a budget and a fourth of 0 or more: {self}")


THIRD = {Level.STRONG: Third(candidates=5, margin=0.3, budget=200_000),
         Level.BEST: Third(candidates=5, margin=0.3, fourth=2)}
"""The levels' third looks (docs/ai.md, "Strong looks a third time" and
"The net pair by pair in C"): strong's is what best's was until 7 December
2026 (five within 0.3: 85.0% against the yardstick where 2 ply won
78.0%), within a budget that keeps its CPU per move under 150 ms at p95
(200,000 positions, some 0.1 s since the net's second layer moved into
C); best's has no budget and looks at its first two by 3 ply again at
4 ply, within its 1 s (its first four: no better against strong, and
twice the time)."""
_CACHED_POSITIONS = 4096


NETS = {Level.BEST: "long_net_best.npz"}
"""The levels that play weights of their own, in ``ai/data/`` (docs/ai.md,
"A net for best"); the others play :func:`shipped_net`."""


@cache
def shipped_net() -> LongNet:
    """The weights in the repository, loaded once per process."""
    return LongNet.load()


@cache
def level_net(level: Level) -> LongNet:
    """The weights ``level`` plays (:data:`NETS`), loaded once per process."""
    name = NETS.get(level)
    return shipped_net() if name is None else LongNet.load(WEIGHTS_PATH.with_name(name))


class LongNetPlayer(Player):
    """Long nardy at one of the four levels (:class:`ai.player.Level`)."""

    def __init__(
        self,
        level: Level = Level.STRONG,
        seed: int = 0,
        koks: bool = False,
        net: LongNet | None = None,
    ) -> None:
        super().__init__(Variant.LONG, seed, koks)
        self.level = level
        self.name = f"long-{level.value}"
        self.net = net or level_net(level)
        self.depth = _DEPTH.get(level, Depth())
        self.third = THIRD.get(level)
        """The level's third look (:data:`THIRD`); ``None``: none."""
        self.noise = NOISE.get(level)
        self._rolls: dict[Position, np.ndarray] = {}

    def shallow(self, position: Position, turns: Sequence[Turn]) -> np.ndarray:
        """1 ply: the net on each position after a turn, in one batch."""
        side = position.turn
        movers = np.array([turn.position.board[side][:24] for turn in turns], dtype=np.int64)
        _, opponent = rows(position)
        return afterstate_equities(self.net, movers, opponent, self.koks)

    def deepen(self, position: Position, turns: Sequence[Turn], indices: Sequence[int]
               ) -> list[float]:
        """2 ply, all candidates in one batch: for the side that just moved,
        minus the opponent's best reply to each of its 21 rolls, weighted by
        their chances (:func:`ai.long_search.roll_values`)."""
        values = self.roll_values([end_turn(turns[i].position) for i in indices])
        return [-float(row @ CHANCES) for row in values]

    def rank(
        self, position: Position, turns: Sequence[Turn], also: Sequence[int] = (),
        full: bool = False, judging: bool = False,
    ) -> list[RankedTurn]:
        """:meth:`Player.rank`; the strong and best levels then look at
        their close first turns again at 3 ply (:data:`THIRD`) and put them
        first in that order - when playing, not ``judging`` a game (its
        analysis stays at 2 ply, the depth of its luck)."""
        ranking = super().rank(position, turns, also, full, judging)
        third = None if judging else self.third
        if third is None or len(ranking) < 2:
            return ranking
        first = ranking[0].equity
        close = [entry for entry in ranking[:third.candidates]
                 if entry.equity >= first - third.margin
                 and entry.turn.position.winner is None]
        if len(close) < 2:
            return ranking
        values = -three_ply(self.net, [end_turn(entry.turn.position) for entry in close],
                            self.koks, third.replies, third.budget)
        looked = close[: len(values)]
        deeper = sorted(zip(values, looked, strict=True), key=lambda pair: -pair[0])
        seen = {id(entry) for entry in looked}
        rest = [entry for entry in ranking if id(entry) not in seen]
        ranked = [RankedTurn(entry.turn, float(value)) for value, entry in deeper]
        if third.fourth < 2:
            return ranked + rest
        head = ranked[: third.fourth]
        fourth = -four_ply(self.net, [end_turn(entry.turn.position) for entry in head],
                           self.koks)
        deepest = sorted(zip(fourth, head, strict=True), key=lambda pair: -pair[0])
        return [RankedTurn(entry.turn, float(value)) for value, entry in deepest] + ranked[
            len(head):] + rest

    def roll_values(self, positions: Sequence[Position]) -> np.ndarray:
        """:func:`ai.long_search.roll_values`, remembered for the last few
        thousand positions: analysis asks again for the position after
        the turn played, which the 2-ply search has just looked at."""
        cache = self._rolls
        missing = list(dict.fromkeys(p for p in positions if p not in cache))
        if missing:
            if len(cache) > _CACHED_POSITIONS:
                cache.clear()
            values = roll_values(self.net, missing, self.koks)
            cache.update(zip(missing, values, strict=True))
        return np.array([cache[p] for p in positions])

    def probabilities(self, position: Position) -> tuple[float, ...]:
        me, opponent = rows(position)
        probs = self.net.probs(me[None, :], opponent[None, :])[0]
        return tuple(float(v) for v in probs)
