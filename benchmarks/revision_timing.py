"""CPU per move of the computer levels at another revision and now, side by side.

    nice -n 10 python benchmarks/revision_timing.py 2c8981f long --games 3

The positions are those ``ai_bench.py timing`` times (the strong level's,
in ``--games`` games against the greedy player, seed ``--seed``).  Two
worker processes - one on ``REVISION``'s ``ai`` and ``engine`` (``git
archive`` into a temporary directory, its C core compiled there at -O3),
one on this tree's - each keep one player per level (as ``timing`` does)
and time its choice, position by position, taking turns (which of the two
goes first alternates), so both see the same load on a shared machine.  Prints CPU p50 / p95 / max
(``time.process_time``) per level and revision, the ratio of the totals,
and the range of the load average during the run.

A speed-up meant to leave the choices alone can be checked with
``--same``: both workers also report the chosen position, and the run
fails on the first that differs.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def worker(root: str, positions: str) -> None:
    """Read ``LEVEL INDEX`` lines; answer each with the CPU ms of the
    level's choice there and the position chosen (its repr)."""
    sys.path.insert(0, root)
    from ai import Level, make_player

    seen = pickle.loads(Path(positions).read_bytes())
    variant = seen[0][0].variant
    players = {}
    for line in sys.stdin:
        level, index = line.split()
        if level not in players:
            players[level] = make_player(variant, Level(level), 1)
        position, dice = seen[int(index)]
        start = time.process_time()
        turn = players[level].choose(position, dice)
        print(f"{1000 * (time.process_time() - start)}\t{turn.position!r}", flush=True)


def _build_core(root: Path) -> None:
    """Compile the revision's C core (``ai/_longcore.c``, where it has one)
    in place: the archive holds only the source, and without the module
    the revision would time its slower fallback."""
    source = root / "ai" / "_longcore.c"
    if not source.exists():
        return
    target = source.with_name("_longcore" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(["gcc", "-O3", "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}",
                    str(source), "-o", str(target)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("variant", choices=["long", "backgammon"])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", nargs="+", default=["strong", "best"])
    parser.add_argument("--same", action="store_true", help="fail on a differing choice")
    parser.add_argument("--worker", nargs=2, metavar=("ROOT", "POSITIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from ai_bench import _met  # the timing benchmark's very positions

    from engine import Variant

    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.revision, "ai", "engine"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        _build_core(before)
        seen = _met(Variant(args.variant), args.games, args.seed)
        positions = Path(tmp) / "positions.pkl"
        positions.write_bytes(pickle.dumps(seen))
        roots = {args.revision: str(before), "now": str(ROOT)}
        workers = {
            name: subprocess.Popen(
                [sys.executable, __file__, "x", args.variant, "--worker", root, str(positions)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for name, root in roots.items()
        }
        times: dict[tuple[str, str], list[float]] = {
            (name, level): [] for name in roots for level in args.levels}
        loads = [os.getloadavg()[0]]
        for index in range(len(seen)):
            for level in args.levels:
                chosen = set()
                for name in (list(roots) if index % 2 == 0 else list(roots)[::-1]):
                    process = workers[name]
                    assert process.stdin is not None and process.stdout is not None
                    process.stdin.write(f"{level} {index}\n")
                    process.stdin.flush()
                    ms, position = process.stdout.readline().rstrip("\n").split("\t")
                    times[(name, level)].append(float(ms))
                    chosen.add(position)
                if args.same and len(chosen) > 1:
                    print(f"position {index}: {level} chose differently: {chosen}")
                    return 1
            loads.append(os.getloadavg()[0])
        for process in workers.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait()
    print(f"{args.variant}: {len(seen)} positions of {args.games} games (seed {args.seed}); "
          f"load average (1 min) {min(loads):.1f}-{max(loads):.1f}"
          + ("; every choice the same" if args.same else ""))
    for level in args.levels:
        for name in roots:
            cpu = np.array(times[(name, level)])
            p50, p95 = np.percentile(cpu, [50, 95])
            print(f"  {level:7} {name:>10}: CPU p50 {p50:7.1f} / p95 {p95:7.1f} / "
                  f"max {cpu.max():7.1f} ms, total {cpu.sum() / 1000:6.1f} s")
        old, new = (np.array(times[(name, level)]).sum() for name in roots)
        print(f"  {level:7} total CPU {args.revision} / now: {old / new:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
