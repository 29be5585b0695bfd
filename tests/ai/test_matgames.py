"""``.mat`` files read back into games for ``python -m ai analyse``: our
exports replay to the same actions and results (a resigned game or one lost
on time by its ``Wins N points`` line), and the command prints the analysis."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ai.__main__ import main
from ai.matgames import MatGameError, read_games
from engine import Action, Event, Game, GameOptions, Match, Side, Variant, format_game, format_match
from engine.scoring import resign_kinds
from tests.engine.test_matfile_gnubg import SESSIONS, play_match

NOT_WRITTEN = {Action.RESIGN, Action.DECLINE, Action.ACCEPT, Action.TIMEOUT}
"""Resignation offers and timeouts leave no trace in a .mat file."""


def written(events: tuple[Event, ...]) -> list[object]:
    """What a .mat file tells of the events: not the resignations and
    timeouts, and of a step only where from and to (``1/0`` with a 4-2:
    the 2 or the 4?)."""
    return [(e.side, e.action, e.dice, [(s.source, s.target) for s in e.steps])
            for e in events if e.action not in NOT_WRITTEN]


@pytest.mark.parametrize("name", [*SESSIONS, "long", "long-match"])
def test_an_exported_match_replays_to_the_same_actions(name: str) -> None:
    options = {"long": GameOptions.long(), "long-match": GameOptions.long(match_length=3)}.get(
        name) or SESSIONS[name]
    match = play_match(options, random.Random(f"replay {name}"))
    replays = read_games(format_match(match, names=("Ann Lee", "Bob")))
    assert [r.number for r in replays] == list(range(1, len(match.games) + 1))
    for replay, game in zip(replays, match.games, strict=True):
        assert replay.names == ("Ann Lee", "Bob")
        assert written(replay.game.events) == written(game.events)
        assert replay.game.crawford is game.crawford
        if game.result is not None and game.events[-1].action not in NOT_WRITTEN:
            assert replay.game.result == game.result
        elif game.result is not None:  # resigned or out of time: the "Wins N points" line
            assert replay.game.result is not None
            assert (replay.game.result.winner, replay.game.result.points) == (
                game.result.winner, game.result.points)
        else:
            assert replay.game.result is None


@pytest.mark.parametrize("variant", list(Variant))
def test_a_game_resigned_or_lost_on_time_comes_back_with_its_result(variant: Variant) -> None:
    """The file tells only ``Wins N points`` (in the winner's column, on the
    line after the rows): read as the loser's resignation of those points."""
    rng = random.Random(3)
    options = GameOptions.long() if variant is Variant.LONG else GameOptions.backgammon()
    begun = Game.new(options, starter=Side.WHITE if variant is Variant.LONG else None).roll(rng)
    big = resign_kinds(variant)[1]  # mars or gammon: two points
    mover = begun.to_act
    assert mover is not None
    resigned = begun.offer_resignation(mover, big).accept_resignation(mover.opponent)
    timed_out = begun.claim_timeout(mover.opponent)
    other = begun.offer_resignation(mover.opponent, big).accept_resignation(mover)
    for game in (resigned, timed_out, other):  # either column wins
        assert game.result is not None
        [replay] = read_games(format_game(game, names=("Ann", "Bob")))
        assert replay.game.result is not None
        assert (replay.game.result.winner, replay.game.result.points) == (
            game.result.winner, game.result.points)
    assert read_games(format_game(begun))[0].game.result is None  # unfinished stays so


def test_a_file_with_an_illegal_move_is_refused() -> None:
    text = " 0 point match\n\n Game 1\n Ann : 0            Bob : 0\n  1) 31: 24/18\n"
    with pytest.raises(MatGameError) as refused:
        read_games(text)
    assert str(refused.value) == (
        "game 1, White's '31: 24/18': '24/18' is not a legal turn with 3-1")


def test_the_command_prints_the_analysis(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    match = Match(GameOptions.long(), (play_match(GameOptions.long(), random.Random(5),
                                                  games=1).games[0],))
    path = tmp_path / "game.mat"
    path.write_text(format_match(match, names=("Ann", "Bob")))
    assert main(["analyse", str(path), "--level", "medium"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Analysis by nardy, medium level (our own net, 1 ply); losses in points " \
                       "per game at cube 1"
    # long nardy: its own scale, no PR (a backgammon scale)
    assert lines[1].startswith("Game 1, Ann: ") and lines[2].startswith("Game 1, Ann: luck rate ")
    assert lines[3].startswith("Game 1, Bob: ")
    assert main(["analyse", str(path), "--annotate"]) == 0
    assert capsys.readouterr().out.startswith('; [Variation "Long Nardy"]\n; Analysis by nardy')
    path.write_text("not a match")
    assert main(["analyse", str(path)]) == 1
    assert capsys.readouterr().err == (
        "python -m ai analyse: not a .mat file: no 'N point match' line\n")
