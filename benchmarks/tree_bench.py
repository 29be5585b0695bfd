"""What the Mini App's turn tree weighs on the wire, over the positions of real games:
both variants played to the end by the computer (its easy level, both sides), the
tree of every turn the app would be sent (doubles included), as turn_tree's plain
JSON (what was sent before issue 34), packed (bot/present/webstate.py pack_tree, what
the app asks for) and packed then gzipped (the answer's Content-Encoding).

Run: ``nice .venv/bin/python benchmarks/tree_bench.py [games] [seconds]`` (default 20
games of each variant, at most 300 s in all).  Prints, per variant, for all turns and
for doubles alone: turns measured, p50 / p95 / max kB of each form.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import Level, make_player
from bot.present.webstate import pack_tree, turn_tree
from engine.game import Game, GameOptions, Phase
from engine.position import Side

FORMS = ("plain", "packed", "gzipped")


def _sizes(tree: list[dict[str, object]]) -> dict[str, int]:
    plain = json.dumps(tree, separators=(",", ":")).encode()
    packed = json.dumps(pack_tree(tree), separators=(",", ":")).encode()
    return {"plain": len(plain), "packed": len(packed),
            "gzipped": len(gzip.compress(packed, compresslevel=6))}


def play(options: GameOptions, seed: int) -> list[tuple[bool, dict[str, int]]]:
    """Each turn's tree sizes (and whether its roll was a double) in one game."""
    rng = random.Random(seed)
    player = make_player(options.variant, Level.EASY, seed=seed)
    game, out = Game.new(options), []
    while not game.is_over:
        if game.phase in (Phase.OPENING, Phase.ROLL):
            game = game.roll(rng)
            continue
        assert game.phase is Phase.MOVE and game.dice is not None
        out.append((game.dice.is_double, _sizes(turn_tree(game, Side.WHITE))))
        for step in player.choose(game).steps:
            game = game.play_step(step)
        game = game.confirm()
    return out


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 300.0
    stop = time.monotonic() + budget
    for name, options in (("long", GameOptions.long()), ("backgammon", GameOptions.backgammon())):
        turns: list[tuple[bool, dict[str, int]]] = []
        played = 0
        while played < games and time.monotonic() < stop:
            turns += play(options, played)
            played += 1
        print(f"== {name}: {played} games, {len(turns)} turns")
        for label, chosen in (("all turns", turns), ("doubles", [t for t in turns if t[0]])):
            if not chosen:
                continue
            cells = ", ".join(
                f"{form} p50 {pct([s[form] for _, s in chosen], .5):.1f} / p95 "
                f"{pct([s[form] for _, s in chosen], .95):.1f} / max "
                f"{max(s[form] for _, s in chosen) / 1000:.1f} kB" for form in FORMS)
            print(f"  {label} ({len(chosen)}): {cells}")


if __name__ == "__main__":
    main()
