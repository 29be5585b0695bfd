"""The turn tree's packed wire format (bot/present/webstate.py pack_tree): the app's
decoder (bot/webapp/static/tree.js, run here by node) and unpack_tree give back
exactly the nodes turn_tree makes, for trees of both variants, doubles included;
and the packed tree is a fraction of the plain one."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from bot.edge.webapp import STATIC
from bot.present.webstate import pack_tree, turn_tree, unpack_tree
from engine.game import Game, GameOptions, Phase
from engine.position import Side


def _trees(options: GameOptions, seed: int, count: int) -> list[list[dict[str, object]]]:
    """The trees of the first ``count`` turns of a game walked at random."""
    rng, trees = random.Random(seed), []
    game = Game.new(options)
    while len(trees) < count and not game.is_over:
        if game.phase in (Phase.OPENING, Phase.ROLL):
            game = game.roll(rng)
            continue
        if game.phase is not Phase.MOVE:
            break
        tree = turn_tree(game, Side.WHITE)
        trees.append(tree)
        while game.turn is not None and not game.turn.is_complete:
            game = game.play_step(rng.choice(sorted(game.turn.legal_steps,
                                                    key=lambda s: (s.source, s.die))))
        game = game.confirm()
    return trees


TREES = [tree for options in (GameOptions.long(), GameOptions.backgammon())
         for seed in (1, 2, 3) for tree in _trees(options, seed, 15)]


def test_the_python_decoder_gives_back_every_tree() -> None:
    assert any(len(t) > 100 for t in TREES)  # doubles' trees among them
    for tree in TREES:
        assert unpack_tree(pack_tree(tree)) == tree
        assert len(json.dumps(pack_tree(tree))) < len(json.dumps(tree)) / 2


@pytest.mark.skipif(not shutil.which("node"), reason="node is not installed")
def test_the_apps_decoder_gives_back_every_tree() -> None:
    source = (STATIC / "tree.js").read_text().replace("export function", "function")
    script = source + """
let input = "";
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(JSON.parse(input).map(unpackTree)));
});
"""
    packed = json.dumps([pack_tree(tree) for tree in TREES] + [None])
    done = subprocess.run(["node", "-e", script], input=packed, capture_output=True, text=True,
                          timeout=60, check=True)
    assert json.loads(done.stdout) == [*TREES, None]
