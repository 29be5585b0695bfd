"""Train the long nardy evaluation by self-play: TD(λ) in the spirit of
TD-Gammon, numpy only, one process.

Each game is played by the current net against itself, greedily at 1 ply
(the dice explore).  After the game every position before a roll gets its
λ-return as target - the forward view of TD(λ): a mix of the net's own
estimates of the positions that followed (the side to roll alternates, so
each is turned round) and the game's true result - and the net takes one
Adam step on the game's positions (cross-entropy on the five sigmoid
outputs).  Every ``--checkpoint-every`` games the weights, the optimiser
and the game count are saved, so a stopped run resumes where it was; the
dice of game ``i`` come from ``--seed`` and ``i`` alone, so a run is
reproducible (and another seed plays other games).

    nice -n 19 python -m ai.train_long --minutes 45

writes ``ai/data/long_net.npz`` (and ``long_net.ckpt.npz`` beside it).  A
run ends by fitting the value of being on roll (:func:`fit_on_roll`);
``--calibrate-only`` fits it alone for the weights in ``--out``,
``--average A B`` writes the nets' average there (:meth:`LongNet.averaged`),
``--weight-mean A B`` the mean of their weights (:meth:`LongNet.weight_mean`),
``--mean-from GAMES`` writes the mean of the weights at the run's
checkpoints from that game on rather than its last weights
(:meth:`LongNet.weight_mean`), and ``--start-from WEIGHTS`` trains on from
other weights (docs/ai.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ai.long_features import WIDE_SIZE, Matrix, features
from ai.long_hand import StrategyEvaluation
from ai.long_net import WEIGHTS_PATH, Adam, LongNet, Vector, WeightSum, flip, outcome
from ai.long_search import afterstate_equities, final_rows
from engine import Dice, Position, Side, Variant

SETTINGS = {
    "seed": 20261201,
    "hidden": 64,
    "lam": 0.7,
    "rate": 0.001,
    "explore_games": 2000,
    "explore": 0.05,
}


_HAND = StrategyEvaluation()
"""The sparring partner of ``--hand``: the yardstick's evaluation."""


def self_play(net: LongNet, rng: random.Random, explore: float,
              hand: float = 0.0, cut: bool = False) -> tuple[Matrix, Matrix]:
    """One game of the net against itself: the features of each position
    before a roll (for the side to roll) and their λ-return targets.  A
    ``hand`` share of the turns is chosen by the yardstick's evaluation at
    1 ply (:class:`ai.long_hand.StrategyEvaluation`): a player who builds
    blocks, so the games reach the positions such a player makes, which
    the net's own play seldom does.

    With ``cut``, where the partner's turn is not the one the net would
    play, the position before it is valued by the net's own best turn
    instead, and the λ-return of the positions before it goes on from
    there (Watkins's cut): the net still meets the partner's positions,
    but its values stay those of its own play - without it they are the
    mixed play's, whose mars (the partner plays for the win alone) comes
    more often than the net's."""
    board = [[0] * 24 + [0], [0] * 24 + [0]]
    board[0][23] = board[1][23] = 15
    side = Side.WHITE
    mes: list[list[int]] = []
    opps: list[list[int]] = []
    cuts: dict[int, Vector] = {}
    while True:
        mover, other = board[side], board[side.opponent]
        mes.append(mover[:24])
        opps.append(other[:24])
        position = Position.from_rows(Variant.LONG, board, side)
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
        # the rows after each of legal_turns(position, dice), in its order
        movers = final_rows(position, dice)
        if len(movers) > 1 and rng.random() < explore:
            chosen = movers[rng.randrange(len(movers))]
        else:
            by_hand = hand and len(movers) > 1 and rng.random() < hand
            waiting = np.array(other[:24])
            values = afterstate_equities(_HAND if by_hand else net, movers, waiting, False)
            chosen = movers[int(np.argmax(values))]
            if by_hand and cut:
                own = movers[int(np.argmax(afterstate_equities(net, movers, waiting, False)))]
                # never a finished game: the partner takes a turn that ends it (scored
                # exactly, above its every estimate), so then the two turns agree
                if not np.array_equal(own, chosen):
                    cuts[len(mes) - 1] = flip(net.probs(waiting[None, :], own[None, :]))[0]
        board[side] = [*chosen.tolist(), 0]
        if sum(board[side]) == 0:
            final = outcome(15, np.array(board[side.opponent][:24]))
            break
        side = side.opponent
    x = features(np.array(mes), np.array(opps), net.inputs, net.legacy)
    targets = lambda_returns(net.probs_of_features(x), final, SETTINGS["lam"], cuts)
    return x, targets


def lambda_returns(values: Matrix, final: Matrix, lam: float,
                   cuts: Mapping[int, Vector] | None = None) -> Matrix:
    """λ-returns for positions ``0..T`` whose sides to roll alternate; the
    last side to roll won with the result ``final``.  ``cuts``: positions
    whose target is given (for their side to roll); the returns before
    them go on from it."""
    cuts = cuts or {}
    count = len(values)
    targets = np.empty_like(values)
    targets[-1] = cuts.get(count - 1, final)
    for t in range(count - 2, -1, -1):
        if t in cuts:
            targets[t] = cuts[t]
            continue
        ahead = (1 - lam) * values[t + 1] + lam * targets[t + 1]
        targets[t] = flip(ahead[None, :])[0]
    return targets


def fit_on_roll(net: LongNet, games: int, seed: int) -> float:
    """The calibration of the value of being on roll (:attr:`LongNet.on_roll`):
    half the mean, over the positions before a roll of ``games`` self-play
    games at 1 ply (dice from ``seed``), of the net's own look one roll ahead
    (the average over the rolls of the best turn's 1-ply value) minus its
    estimate of the position.  Adding it to every estimate of the side to
    roll takes it off each 1-ply value (the other side is to roll there),
    so the two agree on average; moves are compared at one depth, so the
    same turns are chosen."""
    from ai.arena import play_game
    from ai.long_player import LongNetPlayer
    from ai.long_search import CHANCES, roll_values, rows
    from ai.player import Level

    plain = LongNet(net.w1, net.b1, net.w2, net.b2, legacy=net.legacy)  # its own features
    player = LongNetPlayer(Level.MEDIUM, seed=seed, net=plain)
    player.noise = None  # the plain 1-ply net: no level's mistakes in the games fitted on
    gaps: list[float] = []
    for index in range(games):
        record = play_game(player, player, random.Random(seed * 1_000_003 + index),
                           first_starts=index % 2 == 0, keep=True)
        positions = [position for position, _ in record.positions]
        me, opponent = zip(*(rows(p) for p in positions), strict=True)
        now = plain.value(plain.probs(np.array(me), np.array(opponent)))
        ahead = roll_values(plain, positions, False) @ CHANCES
        gaps.extend((ahead - now).tolist())
    return float(np.mean(gaps)) / 2


CALIBRATION = {"games": 100, "seed": 20261202}
"""The self-play games :func:`fit_on_roll` is fitted on."""


def checkpoint_path(weights: Path) -> Path:
    return weights.with_name(weights.stem + ".ckpt.npz")


def save_checkpoint(path: Path, net: LongNet, adam: Adam, games: int, seconds: float,
                    mean: WeightSum, seed: int) -> None:
    arrays: dict[str, Matrix] = {"w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": net.b2}
    arrays |= {f"m{i}": m for i, (m, _) in enumerate(adam.moments)}
    arrays |= {f"v{i}": v for i, (_, v) in enumerate(adam.moments)}
    arrays |= {f"mean{i}": total for i, total in enumerate(mean.sums or ())}
    arrays |= {
        name: np.array(value)
        for name, value in (("games", games), ("seconds", seconds), ("steps", adam.steps),
                            ("mean_count", mean.count), ("seed", seed))
    }
    np.savez(path, allow_pickle=False, **arrays)


def load_checkpoint(path: Path, adam: Adam) -> tuple[LongNet, int, float, WeightSum, int]:
    """The checkpoint's net, games, seconds, weight sum and seed (one saved
    before ``--seed`` was: the default's)."""
    with np.load(path) as data:
        net = LongNet(data["w1"], data["b1"], data["w2"], data["b2"])
        adam.steps = int(data["steps"])
        adam.moments = [(data[f"m{i}"], data[f"v{i}"]) for i in range(4)]
        count = int(data["mean_count"]) if "mean_count" in data.files else 0
        mean = WeightSum([data[f"mean{i}"] for i in range(4)], count) if count else WeightSum()
        seed = int(data["seed"]) if "seed" in data.files else int(SETTINGS["seed"])
        return net, int(data["games"]), float(data["seconds"]), mean, seed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=45.0, help="wall clock budget of this run")
    parser.add_argument("--games", type=int, default=10**9, help="stop after this many games")
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    parser.add_argument("--checkpoint-every", type=int, default=500)
    parser.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    parser.add_argument("--start-from", type=Path, metavar="WEIGHTS",
                        help="without a checkpoint: go on from these weights (a fresh optimiser, "
                             "the game count theirs, so the dice go on where they stopped)")
    parser.add_argument("--widen", type=int, metavar="HIDDEN",
                        help="with --start-from: go on with this many hidden units "
                             "(the new ones start silent: LongNet.widened)")
    parser.add_argument("--blocks", action="store_true",
                        help="with --start-from: add the block inputs "
                             "(ai.long_features.WIDE_SIZE), their weights starting at 0")
    parser.add_argument("--hand", type=float, default=0.0, metavar="SHARE",
                        help="this share of the turns chosen by the yardstick's evaluation")
    parser.add_argument("--cut", action="store_true",
                        help="with --hand: where the partner's turn is not the net's, value the "
                             "position by the net's own best turn (its values stay its own play's)")
    parser.add_argument("--rate", type=float, default=SETTINGS["rate"], help="Adam's step size")
    parser.add_argument("--seed", type=int, default=SETTINGS["seed"],
                        help="the dice of game i: random.Random(seed × 1,000,003 + i); another "
                             "seed plays other games from the same start (an ensemble's members)")
    parser.add_argument("--mean-from", type=int, metavar="GAMES",
                        help="write the mean of the weights at every checkpoint from this game "
                             "on (LongNet.weight_mean), not the last weights")
    parser.add_argument("--average", type=Path, nargs="+", metavar="WEIGHTS",
                        help="no training: write to --out the nets' average (LongNet.averaged), "
                             "its value of being on roll fitted")
    parser.add_argument("--weight-mean", type=Path, nargs="+", metavar="WEIGHTS",
                        help="no training: write to --out the mean of the nets' weights "
                             "(LongNet.weight_mean: runs from one start, whose units still "
                             "match), its value of being on roll fitted")
    parser.add_argument("--calibrate-only", action="store_true",
                        help="fit the value of being on roll of the weights in --out, no training")
    args = parser.parse_args(argv)
    if not 0 <= args.hand <= 1:
        parser.error(f"--hand is a share of the turns, 0 to 1, not {args.hand}")
    if args.cut and not args.hand:
        parser.error("--cut cuts the λ-return at the turns of --hand's partner: give --hand")
    if (args.widen or args.blocks) and not args.start_from:
        parser.error("--widen and --blocks widen the net of --start-from")
    # the options that write one net made of others, and how each makes it
    combining = [(option, paths, make) for option, paths, make in (
        ("--average", args.average, LongNet.averaged),
        ("--weight-mean", args.weight_mean, LongNet.weight_mean)) if paths]
    if args.mean_from is not None and (combining or args.calibrate_only):
        parser.error("--mean-from takes the mean of a training run's checkpoints: "
                     "not with --average, --weight-mean or --calibrate-only")
    if len(combining) > 1:
        parser.error("--average and --weight-mean each write a new net: give one")
    if combining and (args.calibrate_only or args.start_from):
        parser.error(f"{combining[0][0]} writes a new net: not with --calibrate-only or "
                     "--start-from")

    def load(path: Path) -> LongNet:
        try:
            return LongNet.load(path)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
            parser.error(f"cannot read a net from {path}: {error!r}")

    if args.calibrate_only or combining:
        if args.calibrate_only:
            net = load(args.out)
        else:
            option, paths, make = combining[0]
            try:
                net = make([load(path) for path in paths])
            except ValueError as error:  # nets on other features, or of other shapes
                parser.error(f"{option} cannot combine {[str(path) for path in paths]}: {error}")
        net.on_roll = fit_on_roll(net, CALIBRATION["games"], CALIBRATION["seed"])
        net.save(args.out)
        print(f"on roll {net.on_roll:+.5f} ({CALIBRATION['games']} self-play games, seed "
              f"{CALIBRATION['seed']})", flush=True)
        return 0
    ckpt = checkpoint_path(args.out)
    resume = ckpt.exists() and not args.fresh
    start_net = load(args.start_from) if args.start_from and not resume else None
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    adam = Adam(args.rate)
    mean = WeightSum()
    if resume:
        net, games, seconds, mean, seed = load_checkpoint(ckpt, adam)
        if seed != args.seed:  # its games so far were on other dice: not one run
            parser.error(f"{ckpt} was trained with --seed {seed}: resume it with that seed, "
                         "or start again with --fresh")
        print(f"resuming after {games} games, {seconds:.0f} s", flush=True)
    elif start_net is not None:
        # every net trained from now on reads the exact sums, whatever its start read
        net = LongNet(start_net.w1, start_net.b1, start_net.w2, start_net.b2, legacy=False)
        if args.widen or args.blocks:
            net = net.widened(args.widen or net.w1.shape[1],
                              np.random.default_rng(args.seed),
                              WIDE_SIZE if args.blocks else net.inputs)
        games, seconds = int(start_net.info.get("games", 0)), start_net.info.get("seconds", 0.0)
        print(f"going on from {args.start_from} after {games} games", flush=True)
    else:
        net = LongNet.fresh(int(SETTINGS["hidden"]), np.random.default_rng(args.seed))
        games, seconds = 0, 0.0
    start = time.monotonic()
    deadline = start + 60 * args.minutes
    losses: list[float] = []
    while games < args.games and time.monotonic() < deadline:
        rng = random.Random(args.seed * 1_000_003 + games)
        explore = SETTINGS["explore"] if games < SETTINGS["explore_games"] else 0.0
        x, targets = self_play(net, rng, explore, args.hand, args.cut)
        losses.append(adam.step(net, x, targets))
        games += 1
        if games % args.checkpoint_every == 0:
            elapsed = seconds + time.monotonic() - start
            if args.mean_from is not None and games >= args.mean_from:
                mean.add(net)
            save_checkpoint(ckpt, net, adam, games, elapsed, mean, args.seed)
            net.info = {"games": games, "seconds": elapsed}
            net.save(args.out)
            print(
                f"{games} games, {elapsed:.0f} s, loss {np.mean(losses):.4f}",
                flush=True,
            )
            losses = []
    elapsed = seconds + time.monotonic() - start
    save_checkpoint(ckpt, net, adam, games, elapsed, mean, args.seed)
    if args.mean_from is not None:
        if mean.count:
            net = mean.mean(legacy=net.legacy)
            print(f"the mean of the weights at {mean.count} checkpoints", flush=True)
        else:
            print(f"no checkpoint from game {args.mean_from} on: the last weights", flush=True)
    net.info = {"games": games, "seconds": elapsed}
    net.on_roll = fit_on_roll(net, CALIBRATION["games"], CALIBRATION["seed"])
    net.save(args.out)
    print(f"done: {games} games, {elapsed:.0f} s of training, on roll {net.on_roll:+.5f}",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
