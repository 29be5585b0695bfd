"""Jellyfish .mat export: the layout of a real match file, cube actions,
results, matches and long nardy."""

from __future__ import annotations

import random
import re

import pytest

from engine.game import Game, GameOptions
from engine.match import Match
from engine.matfile import MatFileError, format_game, format_match, game_lines
from engine.notation import parse_step
from engine.position import Side
from engine.scoring import ResultKind
from tests.engine.gameplay import Scripted, play_random

W, B = Side.WHITE, Side.BLACK

# The start of a real match file (Mochizuki - Suzuki, a public .mat record):
REAL = """\
 Game 1
 Mochizuki_Masayouki_(JPN) : 0  Takumitsu_Suzuki_(JPN) : 0
  1)                             32: 24/21 13/11
  2) 52: 13/8 6/4*               54: 25/21* 13/8
  3) 43: 25/21 24/21             53: 24/21 13/8
  4) 62: 13/7 7/5                64: 21/15 15/11
  5) 44: 13/9 9/5 8/4* 8/4       21: 25/23 23/22
  6)  Doubles => 2                Takes
  7) 21: 6/4 4/3*                32: 25/22* 8/6"""

NAMES = ("Mochizuki_Masayouki_(JPN)", "Takumitsu_Suzuki_(JPN)")


def play(game: Game, dice: str, moves: str) -> Game:
    """Roll ``dice`` (like "52") and play the steps of ``moves`` in order."""
    game = game.roll(Scripted(int(dice[0]), int(dice[1])))
    for token in moves.split():
        game = game.play_step(parse_step(token))
    return game.confirm()


def real_game() -> Game:
    game = Game.new(GameOptions.backgammon(match_length=7)).roll(Scripted(2, 3))
    for token in ["24/21", "13/11"]:
        game = game.play_step(parse_step(token))
    game = game.confirm()
    for dice, moves in [
        ("52", "13/8 6/4*"),
        ("54", "25/21* 13/8"),
        ("43", "25/21 24/21"),
        ("53", "24/21 13/8"),
        ("62", "13/7 7/5"),
        ("64", "21/15 15/11"),
        ("44", "13/9 9/5 8/4* 8/4"),
        ("21", "25/23 23/22"),
    ]:
        game = play(game, dice, moves)
    game = game.double(W).take(B)
    game = play(game, "21", "6/4 4/3*")
    return play(game, "32", "25/22* 8/6")


def test_matches_a_real_match_file() -> None:
    lines = game_lines(real_game(), names=NAMES)
    assert "\n".join(lines) == REAL


def test_file_header_and_drops_in_either_column() -> None:
    game = Game.new(GameOptions.backgammon(match_length=7)).roll(Scripted(3, 1))
    game = play_first(game, "8/5 6/5").double(B).pass_(W)
    text = format_game(game, names=("Al", "Bo"))
    assert text.startswith(" 7 point match\n\n Game 1\n Al : 0")
    # gnubg's own layout: the left column's Drops and the doubler's Wins share a line
    assert text.splitlines()[-2:] == [
        "  1) 31: 8/5 6/5                  Doubles => 2",
        "  2)  Drops                       Wins 1 point",
    ]
    right = Game.new(GameOptions.backgammon(match_length=7)).roll(Scripted(1, 3))
    right = play_first(right, "8/5 6/5").double(W).pass_(B)
    assert format_game(right).splitlines()[-3:] == [
        "  1)                             31: 8/5 6/5",
        "  2)  Doubles => 2                Drops",
        "      Wins 1 point",
    ]


def test_resignation_and_timeout_results_sit_in_the_winners_column() -> None:
    game = real_game()
    resigned = game.offer_resignation(B, ResultKind.GAMMON).accept_resignation(W)
    assert format_game(resigned).splitlines()[-1] == "      Wins 4 points"
    timed_out = game.claim_timeout(B)
    assert format_game(timed_out).splitlines()[-1] == " " * 34 + "Wins 2 points"


def test_beavers_are_written_as_gnubg_records_them_and_the_money_header() -> None:
    options = GameOptions.backgammon(beavers=True, jacoby=True)
    game = Game.new(options).roll(Scripted(3, 1))
    beavered = play_first(game, "8/5 6/5").double(B).beaver(W)
    taken = format_game(beavered.take(B)).splitlines()
    assert taken[:4] == ['; [Jacoby "On"]', '; [Beaver "On"]', "", " 0 point match"]
    # the beaver is a redouble while the double waits, then the doubler's answer
    assert taken[-3:] == [
        " White : 0                      Black : 0",
        "  1) 31: 8/5 6/5                  Doubles => 2",
        "  2)  Doubles => 4                Takes",
    ]
    refused = format_game(beavered.pass_(B)).splitlines()
    assert refused[-2:] == ["  2)  Doubles => 4                Drops", "      Wins 2 points"]
    off = format_game(Game.new(GameOptions.backgammon()).roll(Scripted(3, 1)))
    assert off.startswith('; [Jacoby "Off"]\n; [Beaver "Off"]\n\n 0 point match\n')


def test_a_row_without_a_right_cell_keeps_gnubgs_padding() -> None:
    game = Game.new(GameOptions.backgammon(match_length=3)).roll(Scripted(1, 3))
    game = play_first(game, "8/5 6/5").double(W).take(B).roll(Scripted(2, 1))
    game = play_first(game, "13/11 6/5")  # White's move: the last row, left only
    resigned = game.offer_resignation(B, ResultKind.SINGLE).accept_resignation(W)
    assert format_game(resigned).splitlines()[-2:] == [
        f"  3) {'21: 13/11 6/5':<27} ",
        "      Wins 2 points",
    ]


def play_first(game: Game, moves: str) -> Game:
    for token in moves.split():
        game = game.play_step(parse_step(token))
    return game.confirm()


def test_bear_off_dance_and_the_match_win() -> None:
    rng = random.Random(8)
    match = Match.new(GameOptions.backgammon(match_length=1, cube=False))
    match = match.next_game()
    assert match.current is not None
    match = match.update(play_random(match.current, rng)[-1])
    text = format_match(match, names=("Al", "Bo"))
    assert text.startswith('; [CubeLimit "1"]\n\n 1 point match\n\n Game 1\n')
    assert re.search(r"\n +Wins \d points? and the match\n", text)
    assert re.search(r"\d\d: 25/\d+", text)  # entering from the bar, written 25
    assert re.search(r"\d/0", text)  # bearing off, written 0
    rows = [line for line in text.splitlines() if re.match(r" *\d+\) ", line)]
    game = match.games[0]
    moves = [e for e in game.events if e.action.value == "move"]
    assert len(rows) == (len(moves) + 1) // 2 + (moves[0].side is B and len(moves) % 2 == 0)
    cell = r"\d\d:(?: (?:\d+/\d+\*?)(?: \d+/\d+\*?)*)?"
    for number, line in enumerate(rows, start=1):
        # "%3d) " + the left cell padded to 27 + a space + the right cell, exactly
        left, right = line[5:32].rstrip(), line[33:]
        assert line[:5] == f"{number:3d}) " and line[32] == " ", line
        assert re.fullmatch(cell, left) or (number == 1 and left == ""), line
        assert re.fullmatch(cell, right) or (number == len(rows) and right == ""), line
        assert len(line) == 33 if not right else line[33] != " ", line


def test_a_match_file_lists_the_scores_before_each_game() -> None:
    match = Match.new(GameOptions.long(match_length=3))
    for winner, kind in ((W, ResultKind.MARS), (B, ResultKind.OIN)):
        match = match.next_game()
        game = match.current
        assert game is not None
        if game.opening is None and game.starter is None:
            game = game.roll(Scripted(5, 2))
        match = match.update(
            game.offer_resignation(winner.opponent, kind).accept_resignation(winner)
        )
    text = format_match(match)
    assert text.startswith('; [Variation "Long Nardy"]\n\n 3 point match\n')
    scores = re.findall(r"White : (\d+) +Black : (\d+)", text)
    assert scores == [("0", "0"), ("2", "0")]
    assert "Wins 2 points\n" in text and text.count("and the match") == 0


def test_long_nardy_game() -> None:
    game = play_random(Game.new(GameOptions.long()), random.Random(2))[-1]
    text = format_game(game)
    assert text.startswith('; [Variation "Long Nardy"]\n\n 0 point match\n')
    assert "25/" not in text and re.search(r"  1\) +\d\d: 24/", text)


def test_running_game_and_bad_names() -> None:
    game = real_game().roll(Scripted(6, 5))
    game = game.play_step(sorted(game.legal_steps, key=repr)[0])
    assert format_game(game).splitlines()[-1].startswith("  7) 21: 6/4 4/3*")
    with pytest.raises(MatFileError, match="colon"):
        format_game(game, names=("a:b", "c"))
    with pytest.raises(MatFileError, match="no games"):
        format_match(Match.new(GameOptions.long()))
