"""A long nardy level against the yardstick of issue 38: the hand-tuned
expectimax player (:mod:`ai.long_expectimax` with :mod:`ai.long_hand`'s
evaluation), in paired games.

    nice -n 19 python benchmarks/long_yardstick.py --pairs 100 --level strong

Each pair: two cubeless games on the same dice (one seeded roll sequence
per pair, White starting), seats swapped.  Prints the level's win share
with a 95% interval over the pairs (a pair scores 0, 1/2 or 1), its points
per game, and the CPU milliseconds of its choices (p50 / p95 / max, one
core: ``time.process_time`` around each choice), and the yardstick's own
the same way.  ``--log`` appends one JSON line per pair, ``--first N``
starts at pair ``N`` (a run split over processes; the same pairs, the same
dice); ``--summary LOG`` sums such a log up.  ``--candidates`` and
``--margin`` try another depth for the level than its table's, ``--net``
other weights; ``--weights NAME=W,...`` plays a yardstick with other hand
weights (of :data:`ai.long_hand.STRATEGY_WEIGHTS`); ``--old`` the first
yardstick (:class:`ai.long_expectimax.HandEvaluation`, fitted to the net;
``--weights`` then changes :data:`HAND_WEIGHTS`).

    nice -n 19 python benchmarks/long_yardstick.py --fit

prints where the first yardstick's :data:`ai.long_expectimax.HAND_WEIGHTS`
came from: the least-squares fit, over the contact positions of 30 games
of the medium level against itself (seeds below), of the logit of the shipped net's
chance of winning on each side's hand features (mine minus the opponent's)
and a constant (the roll).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import Level, make_player
from ai.arena import play_game
from ai.long_expectimax import HAND_WEIGHTS, ExpectimaxPlayer, HandEvaluation
from ai.long_hand import STRATEGY_WEIGHTS, StrategyEvaluation, parse_weights
from ai.long_net import Evaluation, LongNet
from ai.player import Depth, Player
from engine import Dice, Game, Position, Turn, Variant

sys.path.insert(0, str(Path(__file__).resolve().parent))
from levels_bench import _summary


class Timed(Player):
    """A player whose choices' CPU seconds are kept."""

    def __init__(self, inner: Player) -> None:
        super().__init__(inner.variant, 0, inner.koks)
        self.inner = inner
        self.name = inner.name
        self.seconds: list[float] = []

    def choose(self, state: Position | Game, dice: Dice | None = None) -> Turn:
        start = time.process_time()
        turn = self.inner.choose(state, dice)
        self.seconds.append(time.process_time() - start)
        return turn


def level_player(level: Level, seed: int, depth: Depth | None, net: LongNet | None) -> Player:
    player = make_player(Variant.LONG, level, seed)
    if depth is not None:
        player.depth = depth
    if net is not None:
        player.net = net  # type: ignore[attr-defined]
    return player


def run(level: Level, pairs: int, first: int, seed: int, depth: Depth | None,
        net: LongNet | None, evaluation: Evaluation, log: Path | None) -> None:
    start, cpu = time.time(), time.process_time()
    scores: list[float] = []
    points = 0
    seconds: list[float] = []
    theirs: list[float] = []
    for index in range(first, first + pairs):
        dice_seed = seed * 1_000_003 + index
        score, net_points = 0.0, 0
        for level_first in (True, False):
            ours = Timed(level_player(level, 2 * index + 1, depth, net))
            yardstick = Timed(ExpectimaxPlayer(2 * index + 2, evaluation=evaluation))
            white, black = (ours, yardstick) if level_first else (yardstick, ours)
            record = play_game(white, black, random.Random(dice_seed))
            won = (record.winner == 0) == level_first
            score += 0.5 * won
            net_points += record.points if won else -record.points
            seconds += ours.seconds
            theirs += yardstick.seconds
        scores.append(score)
        points += net_points
        if log is not None:
            with log.open("a") as out:
                out.write(json.dumps({"level": level.value, "pair": index, "score": score,
                                      "points": net_points}) + "\n")
        if len(scores) % 25 == 0:
            print(f"  {len(scores)} pairs: {_summary(scores, points)}", flush=True)
    ms = 1000 * np.array(seconds)
    p50, p95 = np.percentile(ms, [50, 95])
    yard = 1000 * np.array(theirs)
    y50, y95 = np.percentile(yard, [50, 95])
    print(f"long {level.value} vs the yardstick: {_summary(scores, points)}; "
          f"its CPU per move p50 {p50:.1f} p95 {p95:.1f} max {ms.max():.1f} ms "
          f"({len(ms)} moves); the yardstick's p50 {y50:.1f} p95 {y95:.1f} "
          f"max {yard.max():.1f} ms ({len(yard)} moves); {time.time() - start:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} s CPU", flush=True)


def fit(games: int = 30) -> None:
    from ai.long_features import INDEX, features
    from ai.long_player import shipped_net
    from ai.long_search import rows

    mine, theirs = [], []
    for game in range(games):
        first, second = (make_player(Variant.LONG, Level.MEDIUM, 2 * game + side)
                         for side in (1, 2))
        record = play_game(first, second, random.Random(900 + game), keep=True)
        for position, _ in record.positions:
            me, opp = rows(position)
            mine.append(me)
            theirs.append(opp)
    me_rows, opp_rows = np.array(mine), np.array(theirs)
    x = features(me_rows, opp_rows, legacy=True)  # as the first weights were fitted
    win = np.clip(shipped_net().probs(me_rows, opp_rows)[:, 0], 0.01, 0.99)
    contact = x[:, INDEX["race"]] == 0
    names = list(HAND_WEIGHTS)
    columns = np.stack([x[:, INDEX[f"me_{n}"]] - x[:, INDEX[f"opp_{n}"]] for n in names]
                       + [np.ones(len(x))], axis=1)[contact]
    target = np.log(win / (1 - win))[contact]
    weights, *_ = np.linalg.lstsq(columns, target, rcond=None)
    residual = target - columns @ weights
    print(f"{contact.sum()} contact positions of {games} games; "
          f"R² {1 - residual.var() / target.var():.3f}")
    for name, weight in zip([*names, "(on roll)"], weights, strict=True):
        print(f"  {name:14} {weight:+.2f}")


def summary(log: Path) -> None:
    """The win share over every pair of a ``--log`` (runs split by
    ``--first`` put together), per level; a pair logged twice counts once."""
    pairs: dict[tuple[str, int], dict[str, float]] = {}
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        pairs[(entry["level"], entry["pair"])] = entry
    for level in sorted({level for level, _ in pairs}):
        entries = [pairs[key] for key in sorted(pairs) if key[0] == level]
        numbers = [int(e["pair"]) for e in entries]
        points = int(sum(e["points"] for e in entries))
        print(f"long {level} vs the yardstick, pairs {min(numbers)}-{max(numbers)} "
              f"({len(numbers)}): {_summary([e['score'] for e in entries], points)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", default="strong", choices=[v.value for v in Level])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--candidates", type=int)
    parser.add_argument("--margin", type=float)
    parser.add_argument("--net", type=Path)
    parser.add_argument("--weights", action="append", default=[], metavar="NAME=W,...")
    parser.add_argument("--log", type=Path)
    parser.add_argument("--old", action="store_true", help="the first yardstick (fitted)")
    parser.add_argument("--fit", action="store_true", help="print the first weights' fit")
    parser.add_argument("--summary", type=Path, metavar="LOG", help="sum up a --log")
    args = parser.parse_args()
    if args.fit:
        fit()
        return
    if args.summary:
        summary(args.summary)
        return
    depth = None
    if args.candidates is not None:
        depth = Depth(args.candidates, args.margin if args.margin is not None else 0.2)
    net = LongNet.load(args.net) if args.net else None
    evaluation: Evaluation
    if args.old:
        evaluation = HandEvaluation(parse_weights(args.weights, dict(HAND_WEIGHTS)))
    else:
        evaluation = StrategyEvaluation(parse_weights(args.weights, dict(STRATEGY_WEIGHTS)))
    run(Level(args.level), args.pairs, args.first, args.seed, depth, net, evaluation, args.log)


if __name__ == "__main__":
    main()
