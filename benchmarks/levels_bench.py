"""The levels calibrated: each level's error rate against the strongest
analysis we have, and the ladder of paired games (docs/ai.md, "Levels").

    nice -n 10 python benchmarks/levels_bench.py errors backgammon --positions 300
    nice -n 10 python benchmarks/levels_bench.py ladder long --games 1000

``errors``: a fixed set of positions (unforced decisions: two or more
distinct legal turns) from self-play games of the easy, medium and strong
levels in equal shares; every turn any level could play there (within the
largest noise cap of the best by the level's shallow eye, and each search
level's choice) is valued by the reference - backgammon: GNU Backgammon's
2-ply (gnubg-nn, as :mod:`ai.backgammon` calls it); long nardy: our net's
2-ply search (:meth:`ai.long_player.LongNetPlayer.deepen`) - and a level's
error rate is ``1000 x`` the mean over the positions of its expected loss
(each turn's loss against the reference's best, weighed by the level's
chance of playing it: :meth:`ai.player.Player.chances`): millipoints per
decision, as ``ai.analysis`` counts them for 📊.  It also prints the share
of decisions (expected) losing more than 0.08 and 0.16 - bad and very bad
mistakes in GNU Backgammon's words.

``ladder``: each level against the one below over ``--games`` games in
pairs: the same dice (one seeded roll sequence per pair, White starting),
seats swapped.  Prints the upper level's win share with a 95% interval
over the pairs (a pair scores 0, 1/2 or 1) and its points per game;
``--log`` appends one JSON line per pair so a stopped run still counts:
``summary LOG`` prints each pairing's figures from it.

``--noise LEVEL=TEMPERATURE,CAP,HUNCH`` (``errors`` and ``ladder``, again
for more levels) plays a level with another :class:`ai.player.Noise` than
its brain's table, to try a setting before it goes into the table;
``--first N`` starts a ladder at pair ``N`` (a pairing split over
processes: the same pairs, the same dice; ``summary`` of their logs adds
them up).

``analysis``: what the bot's 📊 itself says (``ai.analysis.analyse`` at
its default, strong depth) of each level over ``--games`` games against
itself.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pickle
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from ai import Level, Player, make_player
from ai.arena import play_game
from ai.backgammon import NOISE as BACKGAMMON_NOISE
from ai.backgammon import turn_equity
from ai.long_player import NOISE as LONG_NOISE
from ai.long_player import LongNetPlayer
from ai.player import Noise
from engine import Dice, Position, Turn, Variant, legal_turns

LADDER = (Level.EASY, Level.MEDIUM, Level.STRONG, Level.BEST)
NOISE = {Variant.BACKGAMMON: BACKGAMMON_NOISE, Variant.LONG: LONG_NOISE}


def levels_of(variant: Variant) -> tuple[Level, ...]:
    """The levels of ``variant`` (in long nardy too best differs from strong
    since issue 38)."""
    return LADDER


@dataclass
class Sample:
    """One decision: the turns and the reference's value of those valued
    (``nan`` for turns no level can play)."""

    position: Position
    dice: Dice
    turns: list[Turn]
    reference: np.ndarray


def decisions(variant: Variant, count: int, seed: int) -> list[tuple[Position, Dice]]:
    """``count`` unforced decisions from self-play games of easy, medium and
    strong in equal shares, one in five of a game's decisions at random."""
    rng = random.Random(seed)
    found: list[tuple[Position, Dice]] = []
    game = 0
    while len(found) < count:
        level = LADDER[game % 3]
        first, second = make_player(variant, level, seed + game), make_player(
            variant, level, seed + game + 7919)
        record = play_game(first, second, random.Random(seed * 7 + game), keep=True)
        for position, dice in record.positions:
            if len(found) < count and rng.random() < 0.2 and len(legal_turns(position, dice)) > 1:
                found.append((position, dice))
        game += 1
    return found


def reference_values(variant: Variant, position: Position, turns: Sequence[Turn],
                     wanted: Sequence[int]) -> dict[int, float]:
    if variant is Variant.BACKGAMMON:
        return {i: turn_equity(turns[i], 2) for i in wanted}
    values = _long_reference().deepen(position, turns, list(wanted))
    return dict(zip(wanted, values, strict=True))


_LONG: list[LongNetPlayer] = []


def _long_reference() -> LongNetPlayer:
    if not _LONG:
        _LONG.append(LongNetPlayer(Level.STRONG))
    return _LONG[0]


def build(variant: Variant, count: int, seed: int) -> list[Sample]:
    """The positions and the reference's values of every turn a level may play."""
    players = [make_player(variant, level) for level in levels_of(variant)]
    caps = [noise.cap for noise in NOISE[variant].values()]
    cap = max(caps) + 1e-9
    samples = []
    for position, dice in decisions(variant, count, seed):
        turns = legal_turns(position, dice)
        shallow = players[0].shallow(position, turns)
        wanted = set(np.flatnonzero(shallow >= shallow.max() - cap).tolist())
        for player in players:
            if player.noise is None:
                wanted.add(turns.index(player.rank(position, turns)[0].turn))
        values = np.full(len(turns), np.nan)
        for i, value in reference_values(variant, position, turns, sorted(wanted)).items():
            values[i] = value
        samples.append(Sample(position, dice, turns, values))
    return samples


def expected_losses(player: Player, samples: Sequence[Sample]) -> np.ndarray:
    """Per sample, the expected loss of ``player``'s choice against the
    reference's best."""
    losses = []
    for sample in samples:
        chances = player.chances(sample.position, sample.turns)
        known = ~np.isnan(sample.reference)
        if chances[~known].sum() > 1e-9:
            raise AssertionError("a level may play a turn the reference did not value")
        loss = np.nanmax(sample.reference) - np.where(known, sample.reference, 0.0)
        losses.append(float(chances[known] @ loss[known]))
    return np.array(losses)


def mistake_shares(player: Player, samples: Sequence[Sample], bound: float) -> float:
    """The expected share of decisions losing more than ``bound``."""
    total = 0.0
    for sample in samples:
        chances = player.chances(sample.position, sample.turns)
        known = ~np.isnan(sample.reference)
        loss = np.nanmax(sample.reference) - np.where(known, sample.reference, 0.0)
        total += float(chances[known & (loss > bound)].sum())
    return total / len(samples)


def errors(variant: Variant, count: int, seed: int, save: Path | None = None) -> None:
    start = time.process_time()
    if save is not None and save.exists():
        samples = pickle.loads(save.read_bytes())
    else:
        samples = build(variant, count, seed)
        if save is not None:
            save.write_bytes(pickle.dumps(samples))
    print(f"{variant.value}: {len(samples)} decisions valued by the reference in "
          f"{time.process_time() - start:.0f} s CPU", flush=True)
    print("level   | error rate (mp/decision, 95% CI) | > 0.08 | > 0.16 | noise")
    for level in levels_of(variant):
        player = make_player(variant, level)
        losses = 1000 * expected_losses(player, samples)
        half = 1.96 * losses.std(ddof=1) / math.sqrt(len(losses))
        print(f"{level.value:7} | {losses.mean():5.1f} ({losses.mean() - half:4.1f}-"
              f"{losses.mean() + half:4.1f})              | "
              f"{100 * mistake_shares(player, samples, 0.08):5.1f}% | "
              f"{100 * mistake_shares(player, samples, 0.16):5.1f}% | {player.noise}",
              flush=True)


def analysed(variant: Variant, games: int, seed: int) -> None:
    """What the bot's 📊 says: each level's error rate by
    :func:`ai.analysis.analyse` (at its default, strong depth) over
    ``games`` cubeless games of the level against itself (both sides
    counted)."""
    from ai.analysis import PlayerReport, analyse, totals
    from ai.arena import play_recorded

    for level in levels_of(variant):
        reports: list[PlayerReport] = []
        for game in range(games):
            players = [make_player(variant, level, seed + 2 * game + side) for side in (0, 1)]
            report = analyse(play_recorded(players, random.Random(seed * 7_919 + game)))
            reports.extend(report.players)
        both = totals(reports)
        print(f"{variant.value} {level.value:7}: 📊 {both.error_rate:5.1f} mp per decision "
              f"({both.decisions} decisions, {games} games), {both.rating}", flush=True)


def pair(variant: Variant, lower: Level, upper: Level, index: int, seed: int
         ) -> tuple[float, int]:
    """One pair of games on the same dice, seats swapped: the upper level's
    score (wins / 2) and net points."""
    dice_seed = seed * 1_000_003 + index
    score = 0.0
    points = 0
    for upper_first in (True, False):
        up = make_player(variant, upper, seed=2 * index + 1)
        down = make_player(variant, lower, seed=2 * index + 2)
        first, second = (up, down) if upper_first else (down, up)
        record = play_game(first, second, random.Random(dice_seed))
        won = (record.winner == 0) == upper_first
        score += 0.5 * won
        points += record.points if won else -record.points
    return score, points


def ladder(variant: Variant, games: int, seed: int, log: Path | None,
           pairs_of: Sequence[tuple[Level, Level]] | None = None, first: int = 0) -> None:
    levels = levels_of(variant)
    steps = pairs_of or list(itertools.pairwise(levels))
    for lower, upper in steps:
        start, cpu = time.time(), time.process_time()
        scores: list[float] = []
        points = 0
        for index in range(first, first + games // 2):
            score, net = pair(variant, lower, upper, index, seed)
            scores.append(score)
            points += net
            if log is not None:
                with log.open("a") as out:
                    out.write(json.dumps({"variant": variant.value, "lower": lower.value,
                                          "upper": upper.value, "pair": index,
                                          "score": score, "points": net}) + "\n")
            if len(scores) % 100 == 0:
                print(f"  {upper.value} vs {lower.value}: {_summary(scores, points)}",
                      flush=True)
        print(f"{variant.value} {upper.value} vs {lower.value}: {_summary(scores, points)}; "
              f"{time.time() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU",
              flush=True)


def summary(log: Path) -> None:
    """Each pairing's figures from a ``--log`` (of a run stopped or not)."""
    pairs: dict[tuple[str, str, str], tuple[list[float], list[int]]] = {}
    for line in log.read_text().splitlines():
        row = json.loads(line)
        scores, points = pairs.setdefault((row["variant"], row["upper"], row["lower"]), ([], []))
        scores.append(row["score"])
        points.append(row["points"])
    for (variant, upper, lower), (scores, points) in pairs.items():
        print(f"{variant} {upper} vs {lower}: {_summary(scores, sum(points))}")


def set_noise(variant: Variant, settings: Sequence[str]) -> None:
    """Play levels with other noise than the brain's table: each setting
    ``LEVEL=TEMPERATURE,CAP,HUNCH`` (the players read the table when made)."""
    for setting in settings:
        level, _, numbers = setting.partition("=")
        temperature, cap, hunch = (float(n) for n in numbers.split(","))
        NOISE[variant][Level(level)] = Noise(temperature, cap, hunch)


def _summary(scores: Sequence[float], points: int) -> str:
    array = np.array(scores)
    mean = float(array.mean())
    half = 1.96 * float(array.std(ddof=1)) / math.sqrt(len(array)) if len(array) > 1 else 0.0
    return (f"{2 * len(array)} games, {100 * mean:.1f}% won "
            f"(95% CI {100 * (mean - half):.1f}-{100 * (mean + half):.1f}%), "
            f"{points / (2 * len(array)):+.3f} points/game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("errors")
    one.add_argument("variant", choices=[v.value for v in Variant])
    one.add_argument("--positions", type=int, default=300)
    one.add_argument("--seed", type=int, default=1)
    one.add_argument("--save", type=Path, help="keep the valued positions here (and reuse them)")
    two = sub.add_parser("ladder")
    two.add_argument("variant", choices=[v.value for v in Variant])
    two.add_argument("--games", type=int, default=1000)
    two.add_argument("--seed", type=int, default=1)
    two.add_argument("--log", type=Path)
    two.add_argument("--first", type=int, default=0, help="the first pair's index")
    two.add_argument("--pair", nargs=2, metavar=("LOWER", "UPPER"),
                     help="only this pairing, e.g. medium strong")
    four = sub.add_parser("analysis")
    four.add_argument("variant", choices=[v.value for v in Variant])
    four.add_argument("--games", type=int, default=20)
    four.add_argument("--seed", type=int, default=1)
    three = sub.add_parser("summary")
    three.add_argument("log", type=Path)
    for command in (one, two):
        command.add_argument("--noise", action="append", default=[],
                             metavar="LEVEL=TEMPERATURE,CAP,HUNCH")
    args = parser.parse_args()
    if args.command == "summary":
        summary(args.log)
        return
    variant = Variant(args.variant)
    set_noise(variant, getattr(args, "noise", []))
    if args.command == "analysis":
        analysed(variant, args.games, args.seed)
    elif args.command == "errors":
        errors(variant, args.positions, args.seed, args.save)
    else:
        chosen = [(Level(args.pair[0]), Level(args.pair[1]))] if args.pair else None
        ladder(variant, args.games, args.seed, args.log, chosen, args.first)


if __name__ == "__main__":
    main()
