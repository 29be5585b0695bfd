"""Teach the long nardy net its own deeper search (issue 38): search-bootstrapped
targets, fitted supervised.

Three steps, each written to ``--work`` so a later one can be run again alone:

1. ``positions``: self-play games of the net (``--start-from``, the shipped
   one by default) at 1 ply (greedy, the
   dice explore; game ``i``'s dice from ``seed * 1_000_003 + i``); each
   position before a roll is kept with chance ``keep`` (seeded), so the kept
   ones are far apart in their games.  With each kept position: the game's
   result for its side to roll (the five outputs, :func:`ai.long_net.outcome`).
2. ``label``: each kept position valued by the net's own look two rolls ahead
   (:func:`three_ply_probs`: for each of the 21 rolls of the side to roll its
   best turn by 1 ply, then for each of the other side's 21 rolls that
   side's best reply by 1 ply, the net's five estimates there averaged with
   the rolls' chances - the strong level's 2-ply look, one roll deeper) and
   one roll ahead (:func:`roll_probs`), all five outputs, not just the equity.
3. ``fit``: the net, started from those weights (widened to ``hidden``
   units by units whose output weights are 0, so it starts as the same
   function), fitted to ``(1 - outcome_weight) * search + outcome_weight *
   result`` by Adam with the cross-entropy on the five outputs, over
   ``epochs`` passes in seeded mini-batches; a tenth of the games is held
   out and the epoch with the lowest held-out loss is kept.  Then the value
   of being on roll is fitted again (:func:`ai.train_long.fit_on_roll`).

    nice -n 19 python -m ai.distill_long --work /tmp/distill --out /tmp/distill/net.npz

Settings: :data:`SETTINGS`.  The run of 6 December 2026 and its gate
(not passed: the shipped net stays) are in docs/ai.md, "The fourth run".
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ai.long_features import Matrix, Rows, features
from ai.long_net import OUTPUTS, WEIGHTS_PATH, Adam, LongNet, flip, outcome
from ai.long_search import (
    CHANCES,
    _replies,
    afterstate_equities,
    final_rows,
    reply_positions,
    rows,
)
from ai.player import ROLLS
from engine import Dice, Position, Side, Variant

SETTINGS: dict[str, float] = {
    "seed": 20261206,
    "first_game": 0,
    "games": 1000,
    "keep": 0.2,
    "hidden": 64,
    "outcome_weight": 0.0,
    "epochs": 20,
    "batch": 128,
    "rate": 0.0003,
    "holdout": 0.1,
    "depth": 3,
}


def self_play_positions(net: LongNet, rng: random.Random, keep: float
                        ) -> tuple[list[Position], Matrix]:
    """One greedy 1-ply game of ``net`` against itself: the positions kept
    (before a roll) and, for each, the game's result for its side to roll."""
    board = [[0] * 24 + [0], [0] * 24 + [0]]
    board[0][23] = board[1][23] = 15
    side = Side.WHITE
    kept: list[Position] = []
    sides: list[Side] = []
    while True:
        other = board[side.opponent]
        position = Position.from_rows(Variant.LONG, board, side)
        if rng.random() < keep:
            kept.append(position)
            sides.append(side)
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
        movers = final_rows(position, dice)
        values = afterstate_equities(net, movers, np.array(other[:24]), False)
        chosen = movers[int(np.argmax(values))]
        board[side] = [*chosen.tolist(), 0]
        if sum(board[side]) == 0:
            won = outcome(15, np.array(board[side.opponent][:24]))
            lost = flip(won[None, :])[0]
            results = np.array([won if s is side else lost for s in sides]).reshape(-1, 5)
            return kept, results
        side = side.opponent


def roll_probs(net: LongNet, positions: Sequence[Position]) -> Matrix:
    """For each position, the five estimates for its side to roll one roll
    ahead: for each of the 21 rolls its best turn by 1 ply (as
    :func:`ai.long_search.roll_values` chooses it), the net's estimates of
    the position after it (the other side to roll) turned round, or the
    exact result of a turn that bears off the last checker; averaged with
    the rolls' chances.  A position whose other side has borne off is lost."""
    found = np.empty((len(positions), len(OUTPUTS)))
    replies = _replies(net, positions, False)
    if replies.live:
        values = replies.values[replies.where]
        lengths = np.diff([*replies.bounds, len(replies.where)])
        segment = np.repeat(np.arange(len(lengths)), lengths)
        best = np.maximum.reduceat(values, replies.bounds)
        hits = np.flatnonzero(values == best[segment])
        _, first = np.unique(segment[hits], return_index=True)
        chosen = replies.where[hits[first]]
        theirs = replies.rows[chosen]
        others = np.array([positions[i].board[positions[i].turn.opponent][:24]
                           for i in replies.live], dtype=np.int64)
        mine = np.repeat(others, len(ROLLS), axis=0)
        # valued as the search valued them
        probs = flip(net.probs_shared(others, np.repeat(np.arange(len(others)), len(ROLLS)),
                                      theirs, np.arange(len(theirs))))
        finished = np.flatnonzero(theirs.sum(axis=1) == 0)
        for i in finished:
            probs[i] = outcome(15, mine[i])
        found[replies.live] = (probs.reshape(len(replies.live), len(ROLLS), -1)
                               * CHANCES[None, :, None]).sum(axis=1)
    for index in sorted(set(range(len(positions))) - set(replies.live)):
        mover, _ = rows(positions[index])
        found[index] = flip(outcome(15, mover)[None, :])[0]
    return found


def three_ply_probs(net: LongNet, positions: Sequence[Position]) -> Matrix:
    """For each position, the five estimates for its side to roll two rolls
    ahead: for each of its 21 rolls its best turn by 1 ply, then the other
    side's :func:`roll_probs` of the position it leaves, turned round and
    averaged with the rolls' chances (:func:`ai.long_search.three_ply`'s
    look, all five outputs)."""
    after = flip(roll_probs(net, reply_positions(net, positions, False)))
    return np.asarray((after.reshape(len(positions), len(ROLLS), -1)
                       * CHANCES[None, :, None]).sum(axis=1))


def collect(net: LongNet, work: Path) -> None:
    seed, keep = int(SETTINGS["seed"]), SETTINGS["keep"]
    first_game = int(SETTINGS["first_game"])
    games = range(first_game, first_game + int(SETTINGS["games"]))
    me: list[Rows] = []
    opp: list[Rows] = []
    game_of: list[int] = []
    results: list[Matrix] = []
    positions: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
    for index in games:
        rng = random.Random(seed * 1_000_003 + index)
        kept, result = self_play_positions(net, rng, keep)
        for position in kept:
            mover, other = rows(position)
            me.append(mover)
            opp.append(other)
            game_of.append(index)
            positions.append((position.board[0], position.board[1], position.turn.value))
        results.append(result)
    np.savez(work / "positions.npz", me=np.array(me), opp=np.array(opp),
             game=np.array(game_of), result=np.concatenate(results),
             boards=np.array([[*b0, *b1, turn] for b0, b1, turn in positions]))
    print(f"positions: {len(me)} from games {games.start}..{games.stop - 1}", flush=True)


def _positions(boards: Matrix) -> list[Position]:
    found = []
    for board in boards.tolist():
        found.append(Position.from_rows(Variant.LONG, (board[:25], board[25:50]), Side(board[50])))
    return found


def label(net: LongNet, work: Path, block: int = 200) -> None:
    data = np.load(work / "positions.npz")
    positions = _positions(data["boards"])
    path = work / "labels.npz"
    one: list[Matrix] = []
    two: list[Matrix] = []
    if path.exists():
        with np.load(path) as done:
            one, two = [done["one"]], [done["two"]]
    start = sum(len(x) for x in one)
    clock = time.process_time()
    for first in range(start, len(positions), block):
        chunk = positions[first : first + block]
        one.append(roll_probs(net, chunk))
        two.append(three_ply_probs(net, chunk) if SETTINGS["depth"] >= 3 else one[-1])
        np.savez(path, one=np.concatenate(one), two=np.concatenate(two))
        print(f"labelled {first + len(chunk)} / {len(positions)}, "
              f"{time.process_time() - clock:.0f} s CPU", flush=True)


def fit(start: LongNet, works: Sequence[Path], out: Path, target: str) -> LongNet:
    """Fit to the labelled positions of every folder in ``works``."""
    parts: list[tuple[Matrix, Matrix, Rows]] = []
    for work in works:
        data = np.load(work / "positions.npz")
        labels = np.load(work / "labels.npz")
        search = labels["two" if target == "three" else "one"]
        count = len(search)
        w = SETTINGS["outcome_weight"]
        parts.append(((1 - w) * search + w * data["result"][:count],
                      features(data["me"][:count], data["opp"][:count], start.inputs,
                               start.legacy),
                      data["game"][:count]))
    targets = np.concatenate([part[0] for part in parts])
    x = np.concatenate([part[1] for part in parts])
    games = np.concatenate([part[2] for part in parts])
    rng = np.random.default_rng(int(SETTINGS["seed"]))
    held = games % round(1 / SETTINGS["holdout"]) == 0
    train = np.flatnonzero(~held)
    net = start.widened(int(SETTINGS["hidden"]), rng)

    def loss(indices: np.ndarray) -> float:
        p = net.probs_of_features(x[indices])
        t = targets[indices]
        eps = 1e-7
        return float(-np.mean(t * np.log(p + eps) + (1 - t) * np.log(1 - p + eps)))

    def floor(indices: np.ndarray) -> float:
        t = np.clip(targets[indices], 1e-7, 1 - 1e-7)
        return float(-np.mean(t * np.log(t) + (1 - t) * np.log(1 - t)))

    test = np.flatnonzero(held)
    print(f"fit on {len(train)} positions, {len(test)} held out; target {target}, "
          f"outcome weight {w}; held-out loss at start {loss(test):.5f} "
          f"(floor {floor(test):.5f})", flush=True)
    adam = Adam(SETTINGS["rate"])
    best = (loss(test), net.w1.copy(), net.b1.copy(), net.w2.copy(), net.b2.copy(), 0)
    batch = int(SETTINGS["batch"])
    for epoch in range(1, int(SETTINGS["epochs"]) + 1):
        order = rng.permutation(train)
        for i in range(0, len(order), batch):
            part = order[i : i + batch]
            adam.step(net, x[part], targets[part])
        held_loss = loss(test)
        print(f"epoch {epoch}: train {loss(train):.5f} held out {held_loss:.5f}", flush=True)
        if held_loss < best[0]:
            best = (held_loss, net.w1.copy(), net.b1.copy(), net.w2.copy(), net.b2.copy(), epoch)
    _, w1, b1, w2, b2, epoch = best
    fitted = LongNet(w1, b1, w2, b2)
    fitted.info = {**start.info, "distilled_positions": float(len(train)),
                   "distilled_epoch": float(epoch)}
    print(f"kept epoch {epoch} (held-out loss {best[0]:.5f})", flush=True)
    fitted.save(out)
    return fitted


def main(argv: list[str] | None = None) -> int:
    from ai.train_long import CALIBRATION, fit_on_roll

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, action="append",
                        help="folder for the steps' files (fit: more than one may be given; "
                             "the others' labelled positions join the first's)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--start-from", type=Path, default=WEIGHTS_PATH)
    parser.add_argument("--steps", default="positions,label,fit",
                        help="which steps to run (comma-separated)")
    parser.add_argument("--target", choices=["one", "three"], default="three",
                        help="fit to the look one roll ahead or two")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="change one of SETTINGS (recorded in the docs)")
    args = parser.parse_args(argv)
    for item in args.set:
        name, value = item.split("=")
        assert name in SETTINGS, name
        SETTINGS[name] = float(value)
    print(f"settings {SETTINGS}", flush=True)
    work = args.work[0]
    work.mkdir(parents=True, exist_ok=True)
    net = LongNet.load(args.start_from)
    steps = args.steps.split(",")
    if "positions" in steps:
        collect(net, work)
    if "label" in steps:
        label(net, work)
    if "fit" in steps:
        fitted = fit(net, args.work, args.out, args.target)
        fitted.on_roll = fit_on_roll(fitted, CALIBRATION["games"], CALIBRATION["seed"])
        fitted.save(args.out)
        print(f"on roll {fitted.on_roll:+.5f}; wrote {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
