"""Our ``.mat`` files imported by GNU Backgammon itself (PyPI ``gnubg``, a
test extra: the real program's ``import mat``): every game comes back with
the same moves, cube actions, resignations, scores, Crawford games and
results.  GNU Backgammon runs in a subprocess (its state is global and it
prints boards on stdout)."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.game import Action, Game, GameOptions, Phase
from engine.match import Match
from engine.matfile import format_match
from engine.position import Dice, Side
from engine.scoring import resign_kinds
from engine.turns import legal_turns
from tests.engine.gameplay import Scripted

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None,
    reason="GNU Backgammon's Python module (gnubg, in the test extras) is not installed",
)

W, B = Side.WHITE, Side.BLACK
PLAYER = {W: "X", B: "O"}  # gnubg calls the left column X, the right one O

IMPORTER = """
import json, sys
import gnubg
requests = json.load(open(sys.argv[1]))
found = {}
for path, jacoby in requests:
    gnubg.command("set jacoby " + ("on" if jacoby else "off"))
    gnubg.command("import mat " + path)
    found[path] = gnubg.match(analysis=False, boards=False, statistics=False, verbose=False)
json.dump(found, open(sys.argv[2], "w"))
"""


def gnubg_import(tmp_path: Path, files: dict[str, str]) -> dict[str, Any]:
    """Import each ``.mat`` text into GNU Backgammon, its Jacoby rule set
    from the file's header as a user must (gnubg reads no Jacoby header)."""
    requests = []
    for name, text in files.items():
        path = tmp_path / f"{name}.mat"
        path.write_text(text)
        requests.append((str(path), '; [Jacoby "On"]' in text))
    asked, answered = tmp_path / "requests.json", tmp_path / "answers.json"
    asked.write_text(json.dumps(requests))
    run = subprocess.run([sys.executable, "-c", IMPORTER, str(asked), str(answered)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(answered.read_text())
    return {name: found[str(tmp_path / f"{name}.mat")] for name in files}


# -- what gnubg should find -----------------------------------------------------


def expected_actions(game: Game) -> list[list[Any]]:
    """The game's actions as gnubg's ``match()`` lists them."""
    actions: list[list[Any]] = []
    events = game.events
    dice: list[int] = []
    rolled = False  # dice rolled and not played yet
    for index, event in enumerate(events):
        player = PLAYER[event.side]
        rolled = rolled and event.action is not Action.MOVE
        if event.action is Action.ROLL:
            assert event.dice is not None
            dice, rolled = [event.dice.first, event.dice.second], True
        elif event.action is Action.MOVE:
            steps = sorted([step.source, step.target] for step in event.steps)
            actions.append(["move", player, dice, steps])
        elif event.action in (Action.DOUBLE, Action.BEAVER):  # gnubg: a beaver is a redouble
            actions.append(["double", player])
        elif event.action is Action.TAKE:
            actions.append(["take", player])
        elif event.action is Action.PASS:
            actions.append(["drop", player])
        elif event.action in (Action.ACCEPT, Action.TIMEOUT):  # the loser's resignation
            if rolled:
                actions.append(unplayed(game, dice))
            actions.append(["resign", PLAYER[event.side.opponent]])
        else:  # a resignation offer (its answer decides) or a declined one
            assert event.action in (Action.RESIGN, Action.DECLINE), index
    return actions


def unplayed(game: Game, dice: list[int]) -> list[Any]:
    """What gnubg makes of dice rolled and not played before the game ended:
    it plays a forced turn itself, else it only sets the dice."""
    turns = legal_turns(game.turn_start, Dice(*dice))
    if len(turns) == 1:
        steps = sorted([step.source, step.target] for step in turns[0].steps)
        return ["move", PLAYER[game.turn_start.turn], dice, steps]
    return ["set", PLAYER[game.turn_start.turn]]


def found_actions(records: list[dict[str, Any]]) -> list[list[Any]]:
    actions: list[list[Any]] = []
    for record in records:
        kind, player = record["action"], record["player"]
        if kind == "move":
            steps = sorted(list(step) for step in record["move"])
            actions.append(["move", player, list(record["dice"]), steps])
        else:
            actions.append([kind, player])
    return actions


def assert_same(match: Match, imported: dict[str, Any]) -> None:
    games = imported["games"]
    assert len(games) == len(match.games)
    assert imported["match-info"]["match-length"] == match.length
    score = [0, 0]
    for number, (game, found) in enumerate(zip(match.games, games, strict=True), start=1):
        info = found["info"]
        where = f"game {number}"
        assert (info["score-X"], info["score-O"]) == (score[0], score[1]), where
        assert found_actions(found["game"]) == expected_actions(game), where
        if match.length:
            assert info.get("crawford", False) is game.crawford, where  # listed when True
        result = game.result
        assert result is not None, where
        assert (info["winner"], info["points-won"]) == (PLAYER[result.winner], result.points), where
        score[result.winner] += result.points


# -- the games ------------------------------------------------------------------


def play(game: Game, rng: random.Random) -> Game:
    """A random game with every kind of action: doubles, takes, drops,
    beavers (taken and refused), resignations accepted and declined (also in
    the middle of a turn) and timeouts."""
    while not game.is_over:
        side, phase, roll = game.to_act, game.phase, rng.random()
        if phase is Phase.OPENING:
            game = game.roll(rng)
        elif phase is Phase.DOUBLE:
            assert side is not None and game.cube is not None
            answers = [game.take, game.take, game.pass_]
            if game.cube.why_not_beaver(side) is None:
                answers.append(game.beaver)
            game = rng.choice(answers)(side)
        elif phase is Phase.RESIGNATION:
            assert side is not None
            answer = game.accept_resignation if roll < 0.5 else game.decline_resignation
            game = answer(side)
        elif roll < 0.004 and side is not None:
            game = game.claim_timeout(side.opponent)
        elif roll < 0.012:
            resigner = rng.choice([W, B])
            game = game.offer_resignation(resigner, rng.choice(resign_kinds(game.variant)))
        elif phase is Phase.ROLL:
            assert side is not None
            if game.cube is not None and game.cube.may_double(side) and roll < 0.1:
                game = game.double(side)
            else:
                game = game.roll(rng)
        elif game.turn is not None and game.turn.is_complete:
            game = game.confirm()
        else:
            game = game.play_step(rng.choice(sorted(game.legal_steps, key=repr)))
    return game


def play_match(options: GameOptions, rng: random.Random, games: int = 4) -> Match:
    match = Match.new(options)
    while not match.is_over and len(match.games) < (games if not options.match_length else 99):
        match = match.next_game()
        assert match.current is not None
        match = match.update(play(match.current, rng))
    return match


SESSIONS = {
    "money": GameOptions.backgammon(),
    "money-jacoby": GameOptions.backgammon(jacoby=True),
    "money-beavers": GameOptions.backgammon(beavers=True),
    "money-jacoby-beavers": GameOptions.backgammon(jacoby=True, beavers=True),
    "money-no-cube": GameOptions.backgammon(cube=False),
    "match-1": GameOptions.backgammon(match_length=1),
    "match-3": GameOptions.backgammon(match_length=3),
    "match-5": GameOptions.backgammon(match_length=5),
    "match-7-no-cube": GameOptions.backgammon(match_length=7, cube=False),
}


def scripted_drops_and_beavers() -> dict[str, Match]:
    """The cases of the issue, each ending a game: a drop by either column,
    a beaver taken and then a resigned gammon (8 points), a beaver refused."""
    options = GameOptions.backgammon(beavers=True)

    def opened(white_die: int, black_die: int) -> Game:
        game = Game.new(options).roll(Scripted(white_die, black_die))
        steps = sorted(game.legal_steps, key=repr)
        game = game.play_step(steps[0])
        return game.play_step(sorted(game.legal_steps, key=repr)[0]).confirm()

    on_roll = opened(3, 1)  # White opened, Black on roll
    cases = {
        "left-drops": on_roll.double(B).pass_(W),
        "right-drops": opened(1, 3).double(W).pass_(B),
        "beaver-taken-then-resigned": on_roll.double(B).beaver(W).take(B)
        .offer_resignation(B, resign_kinds(on_roll.variant)[1]).accept_resignation(W),
        "beaver-refused": on_roll.double(B).beaver(W).pass_(B),
        "beaver-timeout": on_roll.double(B).beaver(W).claim_timeout(W),
    }
    return {name: Match(options, (game,)) for name, game in cases.items()}


def test_every_exported_game_and_match_imports_into_gnubg(tmp_path: Path) -> None:
    matches = scripted_drops_and_beavers()
    for seed in range(3):
        for name, options in SESSIONS.items():
            matches[f"{name}-{seed}"] = play_match(options, random.Random(f"{name}{seed}"))
    names = ("Ann Lee", "Bob")
    imported = gnubg_import(tmp_path, {name: format_match(m, names=names)
                                       for name, m in matches.items()})
    for name, match in matches.items():
        try:
            assert_same(match, imported[name])
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}\n{format_match(match, names=names)}") from None
    # the corpus holds what it is for
    events = [event.action for m in matches.values() for g in m.games for event in g.events]
    for action in (Action.BEAVER, Action.PASS, Action.TIMEOUT, Action.ACCEPT, Action.DECLINE):
        assert action in events, action
    assert any(g.crawford for m in matches.values() for g in m.games)
    assert scripted_drops_and_beavers()["beaver-taken-then-resigned"].games[0].result.points == 8  # type: ignore[union-attr]


LONG_NAMES = {
    "ascii": ("Alexandra Konstantinopoulou-Smith", "🤖 Nardy bot"),
    "cyrillic": ("Жозефина Ксаверьевна Тараканова", "Ёлка"),
    "at-the-cut": ("x" * 30 + "ẞ" * 3, "ẞ" * 40),  # the cut falls inside a character
    "emoji": ("🎲" * 12, "Bob"),
}


def test_long_and_non_ascii_names_import_whole_characters_apart(tmp_path: Path) -> None:
    """gnubg keeps 31 bytes of a name: ours are cut there on a character
    boundary (else its module fails to decode the match), and the two names
    stay apart (a long left one ran into the right one)."""
    match = play_match(GameOptions.backgammon(match_length=3), random.Random("names"))
    imported = gnubg_import(tmp_path, {key: format_match(match, names=names)
                                       for key, names in LONG_NAMES.items()})
    for key, (white, black) in LONG_NAMES.items():
        info = imported[key]["match-info"]
        for found, name in ((info["X"]["name"], white), (info["O"]["name"], black)):
            assert name.startswith(found) and len(found.encode()) <= 31, (key, found)
            assert len(found.encode()) > 31 - 4 or found == name  # cut at most one character
        assert_same(match, imported[key])
