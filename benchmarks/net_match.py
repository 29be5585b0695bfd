"""Two long nardy nets against each other over paired games: is the new one stronger?

    python benchmarks/net_match.py NEW.npz --pairs 500 --level medium
    python benchmarks/net_match.py NEW.npz --old ai/data/long_net.npz --pairs 1000 --level strong

Each pair is two cubeless games with the same dice (``random.Random(seed *
1_000_003 + pair)``): in the first the new net plays White and starts, in
the second the old one does, so neither the dice nor the start favour one
net.  Prints the new net's wins out of the games with their 95% Wilson
interval, its points per game, and how many pairs each net won both games
of.  docs/ai.md asks, before a new net replaces the shipped one at the
strong level, 1,000 pairs or more with the interval's lower end above 52%.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import Level
from ai.arena import Score, play_game
from ai.long_net import WEIGHTS_PATH, LongNet
from ai.long_player import LongNetPlayer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new", type=Path)
    parser.add_argument("--old", type=Path, default=WEIGHTS_PATH)
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--first", type=int, default=0,
                        help="the first pair's number (to split a match over processes)")
    parser.add_argument("--level", choices=["medium", "strong"], default="strong")
    args = parser.parse_args()
    level = Level(args.level)
    new = LongNetPlayer(level, seed=1, net=LongNet.load(args.new))
    old = LongNetPlayer(level, seed=2, net=LongNet.load(args.old))
    wins = points = both_new = both_old = 0
    for pair in range(args.first, args.first + args.pairs):
        won = []
        for new_first in (True, False):
            rng = random.Random(args.seed * 1_000_003 + pair)
            first, second = (new, old) if new_first else (old, new)
            record = play_game(first, second, rng, first_starts=True)
            new_won = (record.winner == 0) == new_first
            won.append(new_won)
            wins += new_won
            points += record.points if new_won else -record.points
        both_new += all(won)
        both_old += not any(won)
        done = pair + 1 - args.first
        if done % 50 == 0:
            print(f"{done} pairs: {Score(2 * done, wins, points)}", flush=True)
    score = Score(2 * args.pairs, wins, points)
    print(f"new {args.new} against {args.old}, {level.value}, pairs {args.first}.."
          f"{args.first + args.pairs - 1} (seed {args.seed}): {score}; "
          f"pairs won twice by the new net {both_new}, by the old {both_old}")


if __name__ == "__main__":
    main()
