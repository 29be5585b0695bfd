"""Is the long nardy net calibrated?  Its predicted chances against what happened.

    python benchmarks/calibration_bench.py --games 400
    python benchmarks/calibration_bench.py --games 200 --weights /tmp/long_net.npz

Plays ``--games`` self-play games of the net at 1 ply (as it trains; the
medium level's ranking without its mistakes; the starter alternating, dice
from ``--seed``) and keeps every position before a roll.  For each, the
net's five estimates for the side to roll (win, win with mars, win with
koks, lose with mars, lose with koks) are set against that side's outcome
of the game, in buckets of the prediction: per bucket the positions, the mean predicted chance
("expected") and the share that happened ("observed"); then the same for the
equity (predicted points against the points won) and the Brier score and
mean error of each output.

``--consistency N`` also measures, on every N-th position, how far the
net's estimate of a position before a roll is from its own 1-ply look at
it (the average over the 36 rolls of the best turn's value): the analysis's
luck is measured against the one and its errors by the other
(docs/analysis.md, "Luck and skill add up"); an evaluation that agrees with
itself has a mean difference of 0.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import Level
from ai.arena import play_game
from ai.long_net import OUTPUTS, LongNet
from ai.long_player import LongNetPlayer
from ai.long_search import CHANCES, rows
from engine import Position, Side

EDGES = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 1.0)


def collect(player: LongNetPlayer, games: int, seed: int
            ) -> tuple[list[Position], np.ndarray]:
    """The positions before each roll of ``games`` self-play games and the
    outcomes for the side to roll (rows of five 0/1, as :data:`OUTPUTS`)."""
    positions: list[Position] = []
    outcomes: list[list[float]] = []
    for index in range(games):
        record = play_game(player, player, random.Random(seed * 1_000_003 + index),
                           first_starts=index % 2 == 0, keep=True)
        winner = Side.WHITE if record.winner == 0 else Side.BLACK
        mars, koks = record.points >= 2, record.points >= 3
        for position, _ in record.positions:
            won = position.turn is winner
            positions.append(position)
            outcomes.append([float(won), float(won and mars), float(won and koks),
                             float(not won and mars), float(not won and koks)])
    return positions, np.array(outcomes)


def predictions(net: LongNet, positions: list[Position]) -> np.ndarray:
    me, opponent = zip(*(rows(p) for p in positions), strict=True)
    return net.probs(np.array(me), np.array(opponent))


def table(name: str, predicted: np.ndarray, observed: np.ndarray, edges: tuple[float, ...]
          ) -> None:
    print(f"  {name}: bucket, positions, expected, observed")
    for low, high in itertools.pairwise(edges):
        inside = (predicted >= low) & ((predicted < high) | (high == edges[-1]))
        count = int(inside.sum())
        if count:
            print(f"    {low:+5.2f}..{high:+5.2f}  {count:6}  {predicted[inside].mean():+.3f}  "
                  f"{observed[inside].mean():+.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--weights", type=Path, help="another net's .npz (default: shipped)")
    parser.add_argument("--consistency", type=int, default=0, metavar="N",
                        help="also the net against its own 1-ply look, every N-th position")
    args = parser.parse_args()
    net = LongNet.load(args.weights) if args.weights else None
    player = LongNetPlayer(Level.MEDIUM, seed=args.seed, net=net)
    player.noise = None  # the plain 1-ply net, as it trains: not the medium level's mistakes
    positions, outcomes = collect(player, args.games, args.seed)
    probs = predictions(player.net, positions)
    print(f"{args.games} self-play games (1 ply), {len(positions)} positions before "
          f"a roll; net trained {player.net.info.get('games', 0):.0f} games, on roll "
          f"{player.net.on_roll:+.4f}")
    for column, name in enumerate(OUTPUTS):
        if name.endswith("koks"):
            continue
        table(name, probs[:, column], outcomes[:, column], EDGES)
    points = 2 * outcomes[:, 0] - 1 + outcomes[:, 1] - outcomes[:, 3]
    table("equity (points, koks off)", player.net.value(probs), points,
          (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0))
    print("  output: Brier score, mean predicted - observed")
    for column, name in enumerate(OUTPUTS):
        error = probs[:, column] - outcomes[:, column]
        print(f"    {name:10} {np.mean(error**2):.4f}  {np.mean(error):+.4f}")
    gap = player.net.value(probs) - points
    print(f"  equity: mean predicted - points won {np.mean(gap):+.4f}")
    if args.consistency:
        sample = positions[:: args.consistency]
        ahead = player.roll_values(sample) @ CHANCES
        now = player.net.value(predictions(player.net, sample))
        diff = ahead - now
        half = 1.96 * statistics.stdev(diff) / np.sqrt(len(diff))
        print(f"  1-ply look minus the net's own estimate, {len(sample)} positions: mean "
              f"{np.mean(diff):+.4f} (95% {np.mean(diff) - half:+.4f} .. "
              f"{np.mean(diff) + half:+.4f}), mean size {np.mean(np.abs(diff)):.4f}")
        racing = np.array([p.pips(p.turn) < 100 for p in sample])
        for label, part in (("a side under 100 pips", racing), ("both 100 pips or more",
                                                                 ~racing)):
            if part.any():
                print(f"    {label}: {int(part.sum())} positions, mean {np.mean(diff[part]):+.4f}")


if __name__ == "__main__":
    main()
