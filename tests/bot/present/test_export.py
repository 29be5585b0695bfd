"""/export of an analysed match: every game's figures (error rate, PR,
Snowie's error rate, luck, cube errors) and the match's totals as the
comment lines GNU Backgammon reads - the very lines ``python -m ai analyse
--annotate`` adds to the plain file, each game judged at the score before it."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from ai import Level, make_player
from ai.__main__ import run_analyse
from ai.analysis import Analysis
from bot.present.export import export_text
from bot.rules.analysis import analyse_job, earlier_jobs, job
from bot.rules.matchstate import MatchState, with_table
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from engine import Game, Phase, Side, Variant
from engine.game import GameOptions
from engine.matread import read_mat
from engine.scoring import ResultKind

NAMES = ("Ann Lee", "Bob")


def _played(game: Game, rng: random.Random) -> Game:
    """``game`` (just begun) played by the easy and medium levels for ten
    turns, nobody doubling, then resigned by the side to act (a single game)."""
    players = [make_player(Variant.BACKGAMMON, level, 3) for level in (Level.EASY, Level.MEDIUM)]
    game = game.roll(rng)  # the opening
    for _ in range(10):
        side = game.to_act
        assert side is not None and game.result is None
        if game.phase is Phase.ROLL:
            game = game.roll(rng)
        for step in players[side].choose(game).steps:
            game = game.play_step(step)
        game = game.confirm()
    side = game.to_act
    assert side is not None
    return game.offer_resignation(side, ResultKind.SINGLE).accept_resignation(side.opponent)


def _match_record(games: int) -> GameRecord:
    """A 5-point backgammon match's record after ``games`` games, the last
    one just finished (the record the bot keeps between two games)."""
    rng = random.Random(8)
    table = MatchState(Game.new(GameOptions.backgammon(match_length=5)))
    for number in range(1, games + 1):
        table = MatchState(_played(table.game, rng), table.score,
                           table.crawford_done, table.number, table.earlier).scored()
        if number < games:
            table = table.next_game()
    players = (Player(user_id=1, name=NAMES[0], side=Side.WHITE),
               Player(user_id=2, name=NAMES[1], side=Side.BLACK))
    base = GameRecord(chat_id=-1, variant=Variant.BACKGAMMON, players=players,
                      options=TableOptions(match_length=5))
    return with_table(base, table, status=Status.FINISHED)


def _analyses(record: GameRecord) -> tuple[Analysis, list[tuple[int, Analysis]]]:
    """What the /export handler gathers (bot/edge/handlers/commands.py),
    computed here as its worker does."""
    earlier = [(number, analyse_job(work)) for number, work in earlier_jobs(record)]
    return analyse_job(job(record)), earlier


@pytest.fixture(scope="module")
def exported() -> tuple[GameRecord, str, str]:
    record = _match_record(3)
    analysis, earlier = _analyses(record)
    _, plain = export_text(record)
    _, annotated = export_text(record, analysis, earlier)
    return record, plain, annotated


def test_the_earlier_games_are_judged_at_the_score_before_each(
        exported: tuple[GameRecord, str, str]) -> None:
    record, plain, _ = exported
    jobs = earlier_jobs(record)
    assert [number for number, _ in jobs] == [1, 2]
    in_file = [section.score for section in read_mat(plain).games]
    assert [work.score for _, work in jobs] + [job(record).score] == in_file
    assert in_file[0] == (0, 0) and in_file[2] != (0, 0)  # the score moved: it matters


def test_a_match_export_has_every_games_figures_and_the_totals(
        exported: tuple[GameRecord, str, str]) -> None:
    _, plain, annotated = exported
    comments = [line for line in annotated.splitlines() if line.startswith("; ")
                and line not in plain.splitlines()]
    assert comments[0].startswith("; Analysis by nardy, strong level")
    for who in NAMES:
        for number in (1, 2, 3):
            assert f"; Game {number}, {who}: PR " in annotated
            assert any(line.startswith(f"; Game {number}, {who}: ")
                       and "millipoints per decision" in line for line in comments)
        totals = [line for line in comments if line.startswith(f"; 3 games, {who}: ")]
        assert "millipoints per decision" in totals[0] and "luck " in totals[0]
        assert "PR " in totals[1] and "Snowie error rate" in totals[1]
        assert "luck-adjusted" in totals[1]
        # and the cube errors of a player who had cube decisions
        assert len(totals) == 2 or (len(totals) == 3 and "cube errors" in totals[2])
    assert any(line.startswith("; 3 games, ") and "cube errors" in line for line in comments)
    # exactly what the command line adds to the plain file (the same games, scores, judge)
    assert annotated == run_analyse(plain, Level.STRONG, annotate=True)


def test_a_single_game_or_an_unanalysed_match_has_no_totals() -> None:
    record = _match_record(1)
    assert earlier_jobs(record) == []
    analysis, _ = _analyses(record)
    _, text = export_text(record, analysis)
    assert f"; Game 1, {NAMES[0]}: PR " in text and " games, " not in text
    _, bare = export_text(_match_record(2))
    assert "; Analysis" not in bare and "; Game" not in bare


@pytest.mark.skipif(importlib.util.find_spec("gnubg") is None,
                    reason="GNU Backgammon's Python module (gnubg, a test extra) is not installed")
def test_gnu_backgammon_imports_the_analysed_match(
        exported: tuple[GameRecord, str, str], tmp_path: Path) -> None:
    from tests.engine.test_matfile_gnubg import gnubg_import

    _, plain, annotated = exported
    imported = gnubg_import(tmp_path, {"plain": plain, "annotated": annotated})
    assert imported["annotated"]["games"] == imported["plain"]["games"]
    comment = imported["annotated"]["match-info"]["comment"]
    assert "3 games, Ann Lee: PR " in comment and "Game 2, Bob: PR " in comment
