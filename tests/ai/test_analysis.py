"""The analysis of a finished game: mistakes found and graded, a game of
best moves clean, luck that follows the dice, cube errors flagged."""

from __future__ import annotations

import importlib.util
import pickle
import random
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path

import numpy as np
import pytest

from ai import Level, make_player
from ai.analysis import (
    Analysis,
    AnalysisError,
    CubeAction,
    DecisionKind,
    Grade,
    Rating,
    analyse,
    balance,
    grade,
    rating,
    roll_lucks,
)
from ai.annotate import export_with_analysis
from ai.arena import play_recorded
from ai.backgammon import GnubgPlayer
from ai.cube import CubeState
from ai.long_player import LongNetPlayer
from ai.player import ROLLS
from engine import (
    OFF,
    Action,
    Game,
    GameOptions,
    Match,
    Phase,
    Position,
    Side,
    Step,
    Variant,
    format_match,
    legal_turns,
)
from tests.engine.gameplay import Scripted
from tests.engine.test_matfile_gnubg import assert_same, gnubg_import


class Cycle:
    """Dice: the opening roll's two dice, then the given rolls in turn,
    over and over (each roll is two ``randint`` calls)."""

    def __init__(self, opening: tuple[int, int], rolls: list[tuple[int, int]]) -> None:
        self.values = list(opening)
        self.rolls = rolls
        self.index = 0

    def randint(self, a: int, b: int) -> int:
        if not self.values:
            self.values = list(self.rolls[self.index % len(self.rolls)])
            self.index += 1
        return self.values.pop(0)


class NeverDoubles(GnubgPlayer):
    def should_double(self, position: Position, cube: CubeState) -> bool:
        return False


def strong_pair(variant: Variant) -> list:
    """Two strong players at the analysis' depth: long nardy's third look
    (3 ply) is for playing, and its choices are not always 2 ply's, which
    the analysis judges by."""
    players = [make_player(variant, Level.STRONG, seed) for seed in (1, 2)]
    for player in players:
        if isinstance(player, LongNetPlayer):
            player.third = None
    return players


def test_a_known_blunder_is_found_and_ranked_first() -> None:
    """The opening 6-5 played 8/3 8/2 (two blots, the 8 point broken)
    instead of running 24/13; the rest of the game the strong player plays
    both sides: that blunder is White's worst mistake, and only one."""
    game = Game.new(GameOptions.backgammon(cube=False)).roll(Scripted(6, 5))
    game = game.play_step(Step(8, 3, 5)).play_step(Step(8, 2, 6)).confirm()
    game = play_recorded(strong_pair(Variant.BACKGAMMON), random.Random(7), start=game)
    report = analyse(game)
    white = report.players[Side.WHITE]
    worst = white.worst[0]
    assert (worst.ply, worst.kind, worst.dice) == (0, DecisionKind.MOVE, game.events[0].dice)
    assert (worst.played, worst.best, worst.grade) == ("8/3 8/2", "24/13", Grade.VERY_BAD)
    assert round(worst.loss, 2) == 0.36
    assert worst.loss == pytest.approx(worst.equity_best - worst.equity_played)
    assert worst.position == Position.initial(Variant.BACKGAMMON)
    assert worst.best_position.board[Side.WHITE][23:25] == (1, 0)  # a back checker ran
    assert worst.best_position.board[Side.WHITE][12] == 6  # to the 13 point
    assert worst.played_steps == (Step(8, 3, 5), Step(8, 2, 6))
    assert (white.doubtful, white.bad, white.very_bad, len(white.worst)) == (0, 0, 1, 1)
    assert white.error_rate == pytest.approx(1000 * worst.loss / white.decisions)
    assert report.players[Side.BLACK].error_rate == 0


@pytest.mark.parametrize("variant", list(Variant))
def test_a_game_of_best_moves_has_no_errors(variant: Variant) -> None:
    """The strong player on both sides, analysed at the same depth: every
    move and cube action is the analysis's own choice."""
    game = play_recorded(strong_pair(variant), random.Random(3), GameOptions(
        variant, cube=variant is Variant.BACKGAMMON))
    report = analyse(game, level=Level.STRONG)
    assert report.decisions
    for player in report.players:
        assert player.decisions > 10
        assert (player.error_rate, player.doubtful, player.bad, player.very_bad) == (0, 0, 0, 0)
        assert player.worst == ()
        assert player.rating is Rating.SUPERNATURAL
    assert all(d.loss == 0 and d.played == d.best for d in report.decisions)
    moves = sum(event.action.value == "move" for event in game.events)
    assert len(report.equity) == len(report.win_chance) == len(report.luck) == moves
    assert report.movers[0] is not report.movers[1]


@pytest.mark.parametrize(
    ("variant", "opening", "rolls"),
    [
        (Variant.BACKGAMMON, (6, 1), [(2, 1), (6, 6), (3, 1), (5, 5), (2, 1), (4, 4)]),
        (Variant.LONG, (5, 2), [(4, 4), (2, 1), (5, 5), (3, 1), (3, 3), (2, 1)]),
    ],
)
def test_luck_follows_the_dice(
    variant: Variant, opening: tuple[int, int], rolls: list[tuple[int, int]]
) -> None:
    """White rolls a double every turn, Black 2-1 or 3-1: White is lucky,
    Black unlucky, and White wins.

    In long nardy only while White's checkers can move freely (its first
    three doubles here): later Black's slow checkers stand in White's way,
    and a double that cannot be played is bad luck - over this game's
    middle both of our nets (the shipped and the one before it) judge
    White's blocked doubles unlucky, so the game's sum is no property of
    the dice there."""
    game = play_recorded(strong_pair(variant), Cycle(opening, rolls), GameOptions(variant))
    assert game.result is not None and game.result.winner is Side.WHITE
    report = analyse(game)
    white, black = report.players
    if variant is Variant.BACKGAMMON:
        assert white.luck > 0.5
        assert black.luck < 0
    else:
        whites, blacks = report.luck[0:6:2], report.luck[1:6:2]
        assert min(whites) > 0.1 and sum(whites) > 1.0
        assert sum(blacks) < 0
    # the opening lot, what starting is worth: half of it to each (White started)
    assert white.luck == pytest.approx(sum(report.luck[0::2]) + report.lot / 2)
    assert black.luck == pytest.approx(sum(report.luck[1::2]) - report.lot / 2)
    assert report.lot > 0 and report.start == pytest.approx(0, abs=1e-12)
    # the game's first roll: the opening (backgammon's 6-1, the best of the
    # 15 rolls it may be) or the starter's first roll
    assert report.luck[0] > 0


@pytest.mark.parametrize(("seed", "level"), [(11, Level.STRONG), (12, Level.STRONG),
                                           (13, Level.MEDIUM)])
def test_luck_and_skill_add_up_in_long_nardy(seed: int, level: Level) -> None:
    """The strong level against the medium one, analysed at ``level``:
    White's result is exactly its luck minus Black's, minus its errors plus
    Black's, plus what the evaluation changed its mind by between its
    depths (the drift; the opening roll decided who starts: the start is
    worth 0, the lot is luck)."""
    players = [make_player(Variant.LONG, Level.STRONG, seed),
               make_player(Variant.LONG, Level.MEDIUM, seed)]
    if seed % 2:
        players.reverse()
    game = play_recorded(players, random.Random(seed), GameOptions.long())
    report = analyse(game, level=level)
    check = balance(report)
    assert game.result is not None and check.result == (
        game.result.points if game.result.winner is Side.WHITE else -game.result.points)
    # the start is worth 0 up to rounding (the lot and being on roll cancel)
    assert check.error != 0 and check.start == pytest.approx(0, abs=1e-12) and check.drift != 0
    assert abs(check.residual) < 1e-9
    # each roll's luck: against the average of the 21 rolls of its position
    player = make_player(Variant.LONG, level)
    positions = [d.position for d in report.decisions]
    lucks = roll_lucks(player, positions)
    for decision, row in zip(report.decisions, lucks, strict=True):
        assert decision.dice is not None
        column = next(i for i, (dice, _) in enumerate(ROLLS)
                      if {dice.first, dice.second} == {decision.dice.first, decision.dice.second})
        assert report.luck[decision.ply] == pytest.approx(row[column], abs=1e-9)


@pytest.mark.parametrize("variant", list(Variant))
def test_luck_averages_zero_over_the_rolls_of_every_position(variant: Variant) -> None:
    """The chance-weighted mean of the 21 rolls' luck is 0 in every position
    of a game (issue 38: long nardy's luck averaged +11.7 millipoints a
    roll when it was measured against what the previous turn left)."""
    game = play_recorded(strong_pair(variant), random.Random(3), GameOptions(variant))
    report = analyse(game)
    positions = [d.position for d in report.decisions if d.dice is not None][:12]
    chances = np.array([chance for _, chance in ROLLS])
    lucks = roll_lucks(make_player(variant, Level.STRONG), positions)
    assert lucks.shape == (len(positions), 21) and np.abs(lucks).max() > 0.05
    assert np.abs(lucks @ chances).max() < 1e-12


class Remembering(GnubgPlayer):
    """GNU Backgammon's evaluation at the medium depth with its roll values
    remembered (as the long nardy player's are): the 21 games that differ
    in one roll share every roll before it."""

    def __init__(self) -> None:
        super().__init__(Level.MEDIUM)
        self.seen: dict[Position, np.ndarray] = {}

    def roll_values(self, positions: Sequence[Position]) -> np.ndarray:
        missing = [p for p in dict.fromkeys(positions) if p not in self.seen]
        if missing:
            self.seen.update(zip(missing, super().roll_values(missing), strict=True))
        return np.array([self.seen[p] for p in positions])


def _replay(game: Game, rolls: int) -> Game:
    """``game`` again from its opening up to its roll number ``rolls`` (0:
    the first; backgammon's opening roll is that), the dice not yet rolled."""
    again = Game.new(game.options, starter=game.starter) if game.opening is None else (
        Game.new(game.options).roll(Scripted(*(die for pair in game.opening.rolls
                                               for die in pair))))
    rolled = sum(event.action is Action.ROLL for event in again.events)
    for event in game.events[len(again.events):]:
        if event.action is Action.ROLL:
            assert event.dice is not None
            if rolled == rolls:
                break
            again, rolled = again.roll(Scripted(event.dice.first, event.dice.second)), rolled + 1
        elif event.action is Action.MOVE and again.phase is Phase.MOVE:
            for step in event.steps:  # (a roll that cannot be played confirmed itself)
                again = again.play_step(step)
            again = again.confirm()
    assert rolled == rolls
    return again


def _played(game: Game, turn: int = 0) -> Game:
    """``game`` with its roll's ``turn``-th legal turn played (as it is when
    the roll cannot be played: it has passed the dice already)."""
    if game.phase is not Phase.MOVE:
        return game
    assert game.turn is not None
    turns = legal_turns(game.turn_start, game.turn.dice)
    for step in turns[turn % len(turns)].steps:
        game = game.play_step(step)
    return game.confirm()


def _lucks(report: Analysis) -> dict[Side, float]:
    return {side: report.players[side].luck for side in Side}


@pytest.mark.parametrize("variant", list(Variant))
def test_every_roll_of_a_real_game_is_lucky_by_zero_on_average(variant: Variant) -> None:
    """Issue 38: luck averages exactly 0, by the analysis players see.  In
    positions of real games (their first and last rolls, the middle, the
    bear-off), the game is analysed again with each of the 21 rolls in the
    place of the one rolled (and its turn played, or not yet: a player who
    resigns on his roll): weighted by the rolls' chances, the roller's
    luck grows by 0 and the other's does not move, and the roll is counted
    once, in the roller's rolls.  The rolls tried include ones that cannot
    be played, doubles played in part, bearing off, winning rolls and long
    nardy's first turn that leaves the head twice."""
    player = make_player(variant, Level.MEDIUM) if variant is Variant.LONG else Remembering()
    seen: set[str] = set()
    for seed in (31, 32):
        game = play_recorded([make_player(variant, Level.MEDIUM, seed + i) for i in (0, 1)],
                             random.Random(seed), GameOptions(variant))
        rolls_at = list(accumulate(event.action is Action.ROLL for event in game.events))
        count = rolls_at[-1]
        # where a roll could not be played (or else the middle)
        blocked = next((rolls_at[i] - 1 for i, event in enumerate(game.events)
                        if event.action is Action.MOVE and not event.steps), count // 2)
        first = 1 if variant is Variant.BACKGAMMON else 0  # (the opening: below)
        chosen = (first, blocked, count - 1) if seed % 2 else (first + 1, blocked)
        for rolls in chosen:
            start = _replay(game, rolls)
            before = analyse(start, player=player)
            side = start.to_act
            assert side is not None
            mean = {s: 0.0 for s in Side}
            for index, (dice, chance) in enumerate(ROLLS):
                rolled = start.roll(Scripted(dice.first, dice.second))
                played = _played(rolled, index)
                report = analyse(played, player=player)
                luck = report.luck[-1]
                waiting = analyse(rolled, player=player)
                if rolled.phase is Phase.MOVE:  # not played yet: the same luck
                    assert waiting.unplayed is not None and waiting.unplayed[0] is side
                    assert waiting.unplayed[1] == pytest.approx(luck, abs=1e-12)
                    assert len(waiting.luck) == len(before.luck)
                else:
                    seen.add("blocked" if not played.events[-1].steps else "forced")
                for done in (report, waiting):
                    assert done.players[side].rolls == before.players[side].rolls + 1
                    assert done.players[side.opponent].rolls == before.players[
                        side.opponent].rolls
                    assert _lucks(done)[side] == pytest.approx(
                        _lucks(before)[side] + luck, abs=1e-12)
                    assert _lucks(done)[side.opponent] == _lucks(before)[side.opponent]
                for s in Side:
                    mean[s] += chance * _lucks(report)[s]
                steps = played.events[-1].steps
                seen |= {"bear-off" for step in steps if step.target == OFF}
                seen |= {"won"} if played.result is not None else set()
                seen |= {"double in part"} if dice.is_double and 0 < len(steps) < 4 else set()
                seen |= {"head twice"} if sum(step.source == 24 for step in steps) > 1 else set()
            for s in Side:
                assert mean[s] == pytest.approx(_lucks(before)[s], abs=1e-12)
    assert seen >= {"blocked", "bear-off", "won", "double in part"} | (
        {"head twice"} if variant is Variant.LONG else set())


@pytest.mark.parametrize("variant", list(Variant))
def test_a_rolls_luck_is_the_same_at_every_level(variant: Variant) -> None:
    """A roll's luck is measured at one depth whatever the analysis level
    (long nardy's net at 1 ply, gnubg's 0-ply): the quick medium analysis
    gives the strong one's luck to the last bit (identity_bench counts
    rolls that way)."""
    game = play_recorded([make_player(variant, Level.MEDIUM, seed) for seed in (41, 42)],
                         random.Random(41), GameOptions(variant))
    quick, strong = analyse(game, level=Level.MEDIUM), analyse(game, level=Level.STRONG)
    assert quick.luck == strong.luck and (quick.lot, quick.start) == (strong.lot, strong.start)
    assert _lucks(quick) == _lucks(strong)
    assert quick.drift != strong.drift  # the decisions' depth differs


@pytest.mark.parametrize("options", [GameOptions.backgammon(), GameOptions.long(),
                                     GameOptions.backgammon(opening_reroll=True)],
                         ids=["backgammon", "long", "reroll"])
def test_the_opening_roll_is_lucky_by_zero_for_each_player(options: GameOptions) -> None:
    """The opening roll decides who starts (and in backgammon the
    starter's first roll, no doubles): over its 30 outcomes each player's
    luck averages exactly 0 - the lot's worth shared, half to each, the
    starter's roll against the average of the 15 rolls it may be (GNU
    Backgammon's luck gives the starter the whole roll: each player's
    averaged +0.02 a game).  Before the starter's move and after it."""
    player = make_player(options.variant, Level.MEDIUM)
    for play in (False, True):
        mean = {side: 0.0 for side in Side}
        for white in range(1, 7):
            for black in set(range(1, 7)) - {white}:
                game = Game.new(options).roll(Scripted(white, black))
                report = analyse(_played(game) if play else game, player=player)
                assert report.start == pytest.approx(0, abs=1e-12)
                assert report.lot * (1 if white > black else -1) > 0.03
                for side in Side:
                    mean[side] += _lucks(report)[side] / 30
        assert mean[Side.WHITE] == pytest.approx(0, abs=1e-12)
        assert mean[Side.BLACK] == pytest.approx(0, abs=1e-12)


def test_a_start_the_rules_chose_is_counted_apart_from_the_luck() -> None:
    """A long nardy game with its starter set (no opening roll): the
    start's worth to the starter is no one's luck, and the identity still
    holds with it."""
    game = play_recorded(strong_pair(Variant.LONG), random.Random(5),
                         start=Game.new(GameOptions.long(), starter=Side.BLACK))
    report = analyse(game)
    check = balance(report)
    assert report.movers[0] is Side.BLACK
    assert check.start < -0.1  # the side on roll is ahead: Black's start
    assert abs(check.residual) < 1e-9
    assert check.error == 0  # the strong level on both sides


def test_the_backgammon_identity_is_exact_with_gnu_backgammons_luck() -> None:
    """Backgammon's luck is GNU Backgammon's (at 0-ply, against the average
    roll) and its errors at the strong depth: the two depths' disagreement
    is the drift, and with it the identity is exact (it was off by up to
    0.6 a game without it)."""
    for seed in (21, 22):
        players = [make_player(Variant.BACKGAMMON, Level.STRONG, seed),
                   make_player(Variant.BACKGAMMON, Level.MEDIUM, seed)]
        game = play_recorded(players, random.Random(seed), GameOptions.backgammon(cube=False))
        check = balance(analyse(game))
        assert check.start == pytest.approx(0, abs=1e-12)
        assert check.drift != 0 and abs(check.residual) < 1e-9


def test_a_wrong_double_and_a_wrong_pass_are_flagged() -> None:
    """White doubles after two opening moves (far too early) and Black
    passes a trivial take."""
    game = Game.new(GameOptions.backgammon()).roll(Scripted(3, 1))
    game = game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()
    game = game.roll(Scripted(2, 1)).play_step(Step(13, 11, 2)).play_step(Step(6, 5, 1)).confirm()
    game = game.double(Side.WHITE).pass_(Side.BLACK)
    report = analyse(game)
    double, take = (d for d in report.decisions if d.kind is not DecisionKind.MOVE)
    assert (double.side, double.kind, double.ply) == (Side.WHITE, DecisionKind.DOUBLE, 2)
    assert (double.played, double.best) == (CubeAction.DOUBLE.value, CubeAction.NO_DOUBLE.value)
    assert double.grade is Grade.BAD and round(double.loss, 2) == 0.10
    assert (take.side, take.kind, take.played, take.best) == (
        Side.BLACK, DecisionKind.TAKE, "pass", "take")
    assert take.equity_played == -1.0 and take.grade is Grade.VERY_BAD
    assert round(take.loss, 2) == 0.72
    assert report.players[Side.BLACK].worst[0] is take


def test_a_missed_double_is_flagged() -> None:
    """White races ahead with doubles and never doubles: once doubling is
    right, each roll without it is a missed double."""
    players = [NeverDoubles(Level.STRONG, 1), NeverDoubles(Level.STRONG, 2)]
    rolls = [(2, 1), (6, 6), (3, 1), (5, 5), (2, 1), (4, 4)]
    game = play_recorded(players, Cycle((6, 1), rolls), GameOptions.backgammon())
    cube = [d for d in analyse(game).decisions if d.kind is DecisionKind.DOUBLE]
    assert all(d.side is Side.WHITE and d.played == "no double" for d in cube)
    first = next(d for d in cube if d.grade is not None)
    assert (first.ply, first.best, first.grade) == (6, "double", Grade.BAD)
    assert round(first.equity_played, 2) == 0.68 and round(first.equity_best, 2) == 0.76


def test_grades_and_ratings_follow_gnu_backgammon() -> None:
    assert [grade(Variant.BACKGAMMON, loss) for loss in (0.04, 0.041, 0.08, 0.081, 0.161)] == [
        None, Grade.DOUBTFUL, Grade.DOUBTFUL, Grade.BAD, Grade.VERY_BAD]
    assert [grade(Variant.LONG, loss) for loss in (0.05, 0.051, 0.101, 0.201)] == [
        None, Grade.DOUBTFUL, Grade.BAD, Grade.VERY_BAD]
    assert [rating(rate) for rate in (1.9, 2.0, 4.9, 7.9, 11.9, 17.9, 25.9, 34.9, 35.0)] == [
        Rating.SUPERNATURAL, Rating.WORLD_CLASS, Rating.WORLD_CLASS, Rating.EXPERT,
        Rating.ADVANCED, Rating.INTERMEDIATE, Rating.CASUAL, Rating.BEGINNER, Rating.AWFUL]


def test_the_analysis_pickles_and_bad_input_is_refused() -> None:
    game = play_recorded(strong_pair(Variant.LONG), random.Random(1))
    report = analyse(game, level=Level.MEDIUM)
    assert isinstance(report, Analysis)
    assert pickle.loads(pickle.dumps(report)) == report
    with pytest.raises(AnalysisError, match="analyse needs an engine Game, got dict"):
        analyse(game.to_dict())  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="a backgammon player cannot analyse long"):
        analyse(game, player=make_player(Variant.BACKGAMMON, Level.MEDIUM))
    unstarted = analyse(Game.new(GameOptions.long()))
    assert unstarted.decisions == () and unstarted.players[0].rating is None


@pytest.mark.skipif(importlib.util.find_spec("gnubg") is None,
                    reason="GNU Backgammon's Python module (gnubg, a test extra) is not installed")
def test_the_exported_analysis_is_a_comment_gnu_backgammon_reads(tmp_path: Path) -> None:
    """GNU Backgammon itself imports the annotated file: the same games as
    without the comments, and the comment lines as the match's comment."""
    options = GameOptions.backgammon(match_length=3)
    match = Match.new(options)
    players = [make_player(Variant.BACKGAMMON, level, 5) for level in (Level.EASY, Level.MEDIUM)]
    rng = random.Random(9)
    while not match.is_over:
        match = match.next_game()
        assert match.current is not None
        match = match.update(play_recorded(players, rng, start=match.current.roll(rng)))
    names = ("Ann Lee", "Bob")
    analysed = [(number, game, analyse(game)) for number, game in enumerate(match.games, 1)]
    text = export_with_analysis(format_match(match, names=names), analysed, names=names)
    comments = [line for line in text.splitlines() if line.startswith("; ")]
    assert len(comments) >= 1 + 2 * len(match.games)
    assert comments[1].startswith("; Game 1, Ann Lee: ")
    assert comments[2].startswith("; Game 1, Ann Lee: PR ")  # XG's and Snowie's figures too
    if len(match.games) > 1:  # and the match's totals
        assert any(line.startswith(f"; {len(match.games)} games, Ann Lee: ")
                   for line in comments)
    imported = gnubg_import(tmp_path, {"annotated": text})["annotated"]
    assert_same(match, imported)
    assert imported["match-info"]["comment"] == "\n".join(line[2:] for line in comments) + "\n"
