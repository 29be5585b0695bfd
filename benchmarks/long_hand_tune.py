"""Tune the hand evaluation of the yardstick (:mod:`ai.long_hand`) by play.

    nice -n 19 python benchmarks/long_hand_tune.py score --pairs 200
    nice -n 19 python benchmarks/long_hand_tune.py tune --pairs 200 --steps 40

``score``: the win share of the greedy hand player (each turn by the
position after it, :class:`ai.long_expectimax.ExpectimaxPlayer` with
``greedy``) against an opponent (``--against medium``, ``hand`` - the
greedy player with :data:`ai.long_hand.STRATEGY_WEIGHTS` - or ``old``, the
first yardstick's evaluation at the same depth), in paired games
(one seeded roll sequence per pair, seats swapped), with ``--weights
NAME=W,...`` changed.  ``tune``: a (1+1) evolution strategy on that share
- each step perturbs a few weights (Gaussian, relative step ``--sigma``),
plays the same pairs (common dice: the comparison is paired) and keeps
the candidate when it scores at least as well; prints each step and the
best weights.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import Level, make_player
from ai.arena import play_game
from ai.long_expectimax import HAND_WEIGHTS, ExpectimaxPlayer
from ai.long_hand import NAMES, STRATEGY_WEIGHTS, StrategyEvaluation, parse_weights
from ai.player import Player
from engine import Variant


def opponent(against: str, seed: int) -> Player:
    """``hand``: the greedy player with the shipped weights; ``old``: with
    the first yardstick's fitted evaluation; else a level by name."""
    if against == "hand":
        return ExpectimaxPlayer(seed, greedy=True)
    if against == "old":
        return ExpectimaxPlayer(seed, weights=HAND_WEIGHTS, greedy=True)
    return make_player(Variant.LONG, Level(against), seed)


def score(weights: Mapping[str, float], pairs: int, first: int, seed: int, against: str,
          deep: bool = False) -> float:
    evaluation = StrategyEvaluation(weights)
    total = 0.0
    for index in range(first, first + pairs):
        dice_seed = seed * 1_000_003 + index
        for hand_first in (True, False):
            hand = ExpectimaxPlayer(0, evaluation=evaluation, greedy=not deep)
            other = opponent(against, 2 * index + 1)
            white, black = (hand, other) if hand_first else (other, hand)
            record = play_game(white, black, random.Random(dice_seed))
            total += 0.5 * ((record.winner == 0) == hand_first)
    return total / pairs


def tune(weights: dict[str, float], pairs: int, seed: int, against: str, steps: int,
         sigma: float, rng: random.Random) -> dict[str, float]:
    best = score(weights, pairs, 0, seed, against)
    print(f"start {best:.3f} {weights}", flush=True)
    for step in range(steps):
        start = time.time()
        trial = dict(weights)
        names = rng.sample(NAMES, rng.choice((1, 2, 3)))
        for name in names:
            w = trial.get(name, 0.0)
            trial[name] = round(w + rng.gauss(0, sigma * max(abs(w), 0.3)), 3)
        result = score(trial, pairs, 0, seed, against)
        kept = result >= best
        print(f"step {step}: {result:.3f} vs {best:.3f} "
              f"{'KEPT' if kept else 'no'} {({n: trial[n] for n in names})} "
              f"{time.time() - start:.0f} s", flush=True)
        if kept:
            weights, best = trial, result
    print(f"best {best:.3f} {weights}", flush=True)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["score", "tune"])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--against", default="medium")
    parser.add_argument("--weights", action="append", default=[])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--sigma", type=float, default=0.5)
    parser.add_argument("--deep", action="store_true", help="score the 1-ply expectimax")
    args = parser.parse_args()
    weights = parse_weights(args.weights, STRATEGY_WEIGHTS)
    if args.action == "score":
        start, cpu = time.time(), time.process_time()
        share = score(weights, args.pairs, args.first, args.seed, args.against, args.deep)
        half = 1.96 * np.sqrt(share * (1 - share) / (2 * args.pairs))
        print(f"hand vs {args.against}: {share:.3f} (±{half:.3f} binomial) over "
              f"{2 * args.pairs} games; {time.time() - start:.0f} s wall, "
              f"{time.process_time() - cpu:.0f} s CPU")
    else:
        tune(weights, args.pairs, args.seed, args.against, args.steps, args.sigma,
             random.Random(args.seed))


if __name__ == "__main__":
    main()
