"""A yardstick for long nardy: a hand-tuned 1-ply expectimax player, and
paired games of a level against it (issue 38).

    nice -n 10 python benchmarks/yardstick.py --games 200 --level strong
    nice -n 10 python benchmarks/yardstick.py --games 40 --level strong --against greedy

The yardstick sees a position through :mod:`ai.long_features` with weights
set by hand, not learned: the pip lead and the checkers borne off, blocks
(its longest run of held points, the points held, the opponent's home
points held), mobility for each die, stacks and checkers left on the
head, each against the opponent's same figure.  Their sum is the logit
of the side to roll's chance to win; mars is likely for a side whose
``mars_margin`` is low.  It plays 1-ply expectimax: every turn by that
hand evaluation, then its best :data:`CANDIDATES` again with the
opponent's 21 rolls and its best reply to each by the same evaluation,
averaged (:class:`ai.long_player.LongNetPlayer`'s search with the hand
evaluation in place of the net).

``--level`` plays against it over ``--games`` games in pairs: the same
dice (one seeded roll sequence per pair), seats swapped; prints the
level's share with a 95% interval over the pairs and its points a game,
and the level's CPU time per move (p50 / p95); ``--log`` appends a JSON
line per pair.  ``--against greedy`` plays the yardstick against the
greedy baseline instead (a check that the hand weights make sense).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from ai import GreedyPlayer, Level, Player, make_player
from ai.arena import play_game
from ai.long_features import INDEX, SIZE, Matrix, Rows, features
from ai.long_player import LongNetPlayer
from ai.player import Depth
from engine import Dice, Position, Turn, Variant

WEIGHTS = {
    "pip_lead": 4.5,
    "me_off": 3.0, "opp_off": -3.0,
    "me_run": 1.6, "opp_run": -1.6,
    "me_spread": 0.8, "opp_spread": -0.8,
    "me_their_home": 0.6, "opp_their_home": -0.6,
    "me_stack": -1.2, "opp_stack": 1.2,
    "me_head": -0.6, "opp_head": 0.6,
    **{f"me_mobility_{d}": 0.35 for d in range(1, 7)},
    **{f"opp_mobility_{d}": -0.35 for d in range(1, 7)},
}
"""The hand weights: logit points of the chance to win per unit of each
feature (:mod:`ai.long_features` scales them to about 0..1)."""
ON_ROLL = 0.2
"""The logit of being on roll in an even position (about 8 pips)."""
CANDIDATES = 8
"""Turns looked at again with the opponent's rolls."""

_VECTOR = np.zeros(SIZE)
for _name, _weight in WEIGHTS.items():
    _VECTOR[INDEX[_name]] = _weight


class HandEvaluation:
    """What :mod:`ai.long_search` needs of an evaluation (``probs`` and
    ``value``), by hand: five probabilities for the side to roll."""

    def probs(self, me: Rows, opp: Rows) -> Matrix:
        x = features(me, opp)
        win = 1 / (1 + np.exp(-(x @ _VECTOR + ON_ROLL)))
        # mars: likelier the lower the side's margin (pips to come home
        # against the other side's race), none once a checker is off
        their_mars = (1 - x[:, INDEX["opp_any_off"]]) / (
            1 + np.exp(4 * x[:, INDEX["opp_mars_margin"]] + 2))
        my_mars = (1 - x[:, INDEX["me_any_off"]]) / (
            1 + np.exp(4 * x[:, INDEX["me_mars_margin"]] + 2))
        zeros = np.zeros(len(x))
        return np.stack([win, win * their_mars, zeros, (1 - win) * my_mars, zeros], axis=1)

    def value(self, probs: Matrix, koks: bool = False) -> np.ndarray:
        return np.asarray(2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3])


class Yardstick(LongNetPlayer):
    """The hand-tuned 1-ply expectimax player."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(Level.STRONG, seed, net=HandEvaluation())  # type: ignore[arg-type]
        self.name = "yardstick"
        self.depth = Depth(candidates=CANDIDATES, margin=10.0)


class Timed(Player):
    """A player whose choices' CPU time is kept."""

    def __init__(self, inner: Player, times: list[float]) -> None:
        super().__init__(inner.variant)
        self.inner, self.times = inner, times
        self.name = inner.name

    def choose(self, state: Position | object, dice: Dice | None = None) -> Turn:
        start = time.process_time()
        turn = self.inner.choose(state, dice)  # type: ignore[arg-type]
        self.times.append(time.process_time() - start)
        return turn


def pair(level: str, index: int, seed: int, times: list[float]) -> tuple[float, int]:
    """One pair on the same dice, seats swapped: ``level``'s score (wins / 2)
    and net points."""
    dice_seed = seed * 1_000_003 + index
    score, points = 0.0, 0
    for tested_first in (True, False):
        if level == "greedy":
            tested: Player = GreedyPlayer(Variant.LONG, 2 * index + 1)
        else:
            tested = Timed(make_player(Variant.LONG, Level(level), 2 * index + 1), times)
        stick = Yardstick(2 * index + 2)
        first, second = (tested, stick) if tested_first else (stick, tested)
        record = play_game(first, second, random.Random(dice_seed))
        won = (record.winner == 0) == tested_first
        score += 0.5 * won
        points += record.points if won else -record.points
    return score, points


def summary(scores: Sequence[float], points: int) -> str:
    array = np.array(scores)
    mean = float(array.mean())
    half = 1.96 * float(array.std(ddof=1)) / math.sqrt(len(array)) if len(array) > 1 else 0.0
    return (f"{2 * len(array)} games, {100 * mean:.1f}% won "
            f"(95% CI {100 * (mean - half):.1f}-{100 * (mean + half):.1f}%), "
            f"{points / (2 * len(array)):+.3f} points/game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="strong", choices=[level.value for level in Level])
    parser.add_argument("--against", choices=["level", "greedy"], default="level")
    parser.add_argument("--log", type=Path)
    args = parser.parse_args()
    tested = "greedy" if args.against == "greedy" else args.level
    scores: list[float] = []
    points = 0
    times: list[float] = []
    start = time.time()
    for index in range(args.games // 2):
        score, net = pair(tested, index, args.seed, times)
        scores.append(score)
        points += net
        if args.log is not None:
            with args.log.open("a") as out:
                out.write(json.dumps({"tested": tested, "pair": index, "score": score,
                                      "points": net}) + "\n")
        if len(scores) % 10 == 0:
            print(f"  {tested} vs yardstick: {summary(scores, points)}", flush=True)
    print(f"{tested} vs yardstick: {summary(scores, points)}; {time.time() - start:.0f} s")
    if times:
        p50, p95 = np.percentile(np.array(times) * 1000, [50, 95])
        print(f"  {tested}'s CPU per move: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
              f"({len(times)} moves)")


if __name__ == "__main__":
    main()
