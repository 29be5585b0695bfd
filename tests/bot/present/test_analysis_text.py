"""The analysis as the chat sees it (bot/present/analysis.py and
bot/present/render/analysis.py): every word in three languages, the caption
and the text within Telegram's limits at the worst case, strict HTML, and a
picture for each kind of decision."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from ai.analysis import (
    Analysis,
    CubeAction,
    Decision,
    DecisionKind,
    Grade,
    PlayerReport,
    Rating,
    grade,
)
from ai.player import Level
from bot.present.analysis import (
    CUBE_WORDS,
    GRADE_NAMES,
    RATING_NAMES,
    analysis_picture,
    analysis_text,
    biggest,
    caption,
    mistake_text,
    sparkline,
)
from bot.present.render.analysis import PHOTO_SIDE, WIDTH, render_analysis
from bot.rules.matchstate import MatchState
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import GameRecord, Player, Status
from bot.vocab.usertext import CAPTION_LIMIT, TEXT_LIMIT
from engine import Dice, Game, GameOptions, Position, Side, Variant, legal_turns
from tests.botapi.formatting import parse_html, strip_text, utf16_len

ROLL = Dice(6, 5)


def _move(ply: int, side: Side, variant: Variant, loss: float, dice: Dice = ROLL) -> Decision:
    """A move decision on the opening position: the first legal turn played,
    the last one best."""
    start = Position.initial(variant, side)
    turns = legal_turns(start, dice)
    played, best = turns[0], turns[-1]
    return Decision(ply=ply, side=side, kind=DecisionKind.MOVE, dice=dice,
                    played="bar/22* 22/16* 16/10* 10/4*", best="24/13", equity_played=-loss,
                    equity_best=0.0, loss=loss, grade=grade(variant, loss), position=start,
                    played_position=played.position, best_position=best.position,
                    played_steps=played.steps, best_steps=best.steps)


def _cube(ply: int, side: Side, loss: float) -> Decision:
    start = Position.initial(Variant.BACKGAMMON, side)
    return Decision(ply=ply, side=side, kind=DecisionKind.DOUBLE, dice=None,
                    played=CubeAction.NO_DOUBLE.value, best=CubeAction.DOUBLE.value,
                    equity_played=0.5, equity_best=0.5 + loss, loss=loss,
                    grade=grade(Variant.BACKGAMMON, loss), position=start,
                    played_position=start, best_position=start, cube=64)


def _report(side: Side, decisions: tuple[Decision, ...]) -> PlayerReport:
    worst = tuple(sorted((d for d in decisions if d.side is side and d.grade), key=lambda d:
                         -d.loss)[:3])
    return PlayerReport(side=side, decisions=1234, error_rate=1234.5, rating=Rating.AWFUL,
                        doubtful=888, bad=777, very_bad=666, luck=-12.345, worst=worst)


def _analysis(variant: Variant, *, cube: bool = True, turns: int = 140) -> Analysis:
    decisions = [_move(3, Side.WHITE, variant, 0.05), _move(8, Side.BLACK, variant, 0.09),
                 _move(20, Side.WHITE, variant, 0.3), _move(21, Side.BLACK, variant, 0.5),
                 _move(40, Side.WHITE, variant, 0.2), _move(60, Side.BLACK, variant, 0.01)]
    if cube:
        decisions.append(_cube(30, Side.BLACK, 0.7))
    ordered = tuple(sorted(decisions, key=lambda d: d.ply))
    chances = tuple(0.5 + 0.45 * ((n % 30) - 15) / 15 for n in range(turns))
    return Analysis(variant=variant, level=Level.STRONG,
                    players=(_report(Side.WHITE, ordered), _report(Side.BLACK, ordered)),
                    decisions=ordered, movers=tuple(Side(n % 2) for n in range(turns)),
                    equity=tuple(2 * c - 1 for c in chances), win_chance=chances,
                    luck=tuple(0.0 for _ in range(turns)))


def _record(variant: Variant, names: tuple[str, str] = ("W" * 64, "Ж" * 64)) -> GameRecord:
    options = (GameOptions.long() if variant is Variant.LONG
               else GameOptions.backgammon(cube=True))
    game = Game.new(options, starter=Side.WHITE)
    players = tuple(Player(user_id=n + 1, name=name, side=Side(n))
                    for n, name in enumerate(names))
    return GameRecord(chat_id=-100, variant=variant, status=Status.FINISHED, players=players,
                      engine=MatchState(game).to_dict())


WORST_NAMES = ("😀" * 64, "<b>&amp;" + "Ж" * 56)
"""Names at their longest in UTF-16 units (an emoji counts two) and with HTML."""


def test_every_rating_grade_and_cube_word_has_its_words() -> None:
    assert set(RATING_NAMES) == set(Rating)
    assert set(GRADE_NAMES) == set(Grade)
    assert set(CUBE_WORDS) == set(CubeAction)
    for lang in ("ru", "lt"):
        tr = translator(lang)
        for msgid in [*RATING_NAMES.values(), *GRADE_NAMES.values(), *CUBE_WORDS.values()]:
            assert tr.gettext(msgid) != msgid, (lang, msgid)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("variant", list(Variant))
def test_caption_and_text_fit_at_the_worst_case_as_strict_html(lang: str, variant: Variant
                                                              ) -> None:
    tr = translator(lang)
    analysis = _analysis(variant, cube=variant is Variant.BACKGAMMON)
    record = _record(variant, WORST_NAMES)
    for text, limit in ((caption(tr, record, analysis), CAPTION_LIMIT),
                        (analysis_text(tr, record, analysis), TEXT_LIMIT)):
        plain, _ = strip_text(*parse_html(text))  # the local server's strict parser
        assert utf16_len(plain) <= limit, (lang, utf16_len(plain), limit)
        assert "&lt;b&gt;&amp;amp;" in text  # the name is escaped, not markup
    text = analysis_text(tr, record, analysis)
    assert tr.gettext(RATING_NAMES[Rating.AWFUL]) in text
    assert text.count(tr.gettext("turn {n}{who} · {roll}: {played}, best {best} ({loss})")
                      .split("{n}")[0]) >= 5  # the three worst of each player


def test_the_caption_names_the_biggest_mistake_and_both_players() -> None:
    tr = translator("en")
    analysis = _analysis(Variant.BACKGAMMON)
    text = caption(tr, _record(Variant.BACKGAMMON, ("Ann", "Bob")), analysis)
    lines = text.split("\n")
    assert lines[0] == "<b>📊 Analysis</b> · Backgammon · ○ Ann – ● Bob"
    assert lines[1] == ("○ <b>Ann</b>: error rate 1234.5 — awful · PR 617.2 · Snowie 0.0 · "
                        "888 doubtful, 777 bad, 666 very bad · luck -12.345")
    # the biggest loss of both players: Bob's missed double (0.7)
    assert lines[3] == ("Biggest mistake: turn 31 · ● Bob · cube 64: no double, best double "
                        "(-0.700)")


def test_numbers_are_written_the_languages_way() -> None:
    analysis = _analysis(Variant.LONG, cube=False)
    record = _record(Variant.LONG, ("Ann", "Bob"))
    ru = caption(translator("ru"), record, analysis)
    assert "уровень ошибок 1234,5 — ужасно" in ru, ru
    assert "везение -12,345" in ru
    lt = caption(translator("lt"), record, analysis)
    assert "klaidų lygis 1234,5 — siaubingai" in lt, lt


def test_the_biggest_mistakes_of_the_game_are_pictured_worst_first() -> None:
    analysis = _analysis(Variant.BACKGAMMON)
    assert [round(d.loss, 2) for d in biggest(analysis)] == [0.7, 0.5, 0.3]
    picture = analysis_picture(translator("en"), _record(Variant.BACKGAMMON, ("Ann", "Bob")),
                               analysis)
    assert [m.title.split(" · ")[0] for m in picture.mistakes] == [
        "1. turn 31", "2. turn 22", "3. turn 21"]
    assert picture.mistakes[0].best is None  # a cube decision: one board
    assert picture.mistakes[1].best is not None
    numbered = {mark.ply: mark.number for mark in picture.marks if mark.number}
    assert numbered == {30: 1, 21: 2, 20: 3}
    # the 0.01 loss is no mistake: not marked
    assert 60 not in {mark.ply for mark in picture.marks}


@pytest.mark.parametrize("variant", list(Variant))
def test_the_picture_of_each_variant(variant: Variant) -> None:
    analysis = _analysis(variant, cube=variant is Variant.BACKGAMMON)
    png = render_analysis(analysis_picture(translator("lt"), _record(variant, WORST_NAMES),
                                           analysis))
    with Image.open(io.BytesIO(png)) as image:
        assert image.width == WIDTH and 2200 < image.height <= PHOTO_SIDE, image.size
        # the limits of a Telegram photo: sides' sum and ratio, and the longest side it
        # keeps (a taller picture would be scaled down, its point numbers with it)
        assert image.width + image.height <= 10_000 and image.height / image.width <= 20


def test_a_game_without_decisions_draws_and_says_so() -> None:
    empty = Analysis(variant=Variant.LONG, level=Level.STRONG,
                     players=tuple(PlayerReport(side, 0, 0.0, None, 0, 0, 0, 0.0, ())
                                   for side in Side),  # type: ignore[arg-type]
                     decisions=(), movers=(), equity=(), win_chance=(), luck=())
    record = _record(Variant.LONG, ("Ann", "Bob"))
    tr = translator("en")
    png = render_analysis(analysis_picture(tr, record, empty))
    with Image.open(io.BytesIO(png)) as image:
        assert image.width == WIDTH
    text = caption(tr, record, empty)
    assert "error rate — ·" in text and "Biggest mistake" not in text
    assert "<pre>" not in analysis_text(tr, record, empty)


def test_sparkline_folds_a_long_game_into_its_width() -> None:
    line = sparkline([n / 99 for n in range(100)], 10)
    assert line == "▁▂▂▃▄▅▆▇▇█"
    assert sparkline([]) == ""
    assert re.fullmatch("[▁-█]{36}", sparkline([0.5] * 200))


def test_the_sample_picture_of_the_docs(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    """``python -m bot.present.analysis``: a whole game of the easy bot against the
    medium one, analysed and drawn (docs/analysis-example.png is the long nardy one)."""
    from bot.present.analysis import main

    out = tmp_path / "analysis.png"
    main([str(out), "backgammon", "ru"])
    with Image.open(out) as image:
        assert image.width == WIDTH and image.height > 1500  # three mistakes drawn
    said = capsys.readouterr().out
    assert said.startswith("<b>📊 Анализ</b> · Бэкгаммон · ○ Alice – ● Борис\n"), said
    assert "Самая большая ошибка: ход " in said


def test_moves_are_written_in_the_numbers_and_words_of_the_board() -> None:
    rows = [[0] * 25, [0] * 25]
    rows[0][24], rows[0][5], rows[1][5] = 1, 14, 15  # White on the bar, both at home
    start = Position.from_rows(Variant.BACKGAMMON, rows, Side.WHITE)
    turns = legal_turns(start, Dice(3, 1))
    played, best = turns[0], turns[-1]
    decision = Decision(ply=4, side=Side.WHITE, kind=DecisionKind.MOVE, dice=Dice(3, 1),
                        played="bar/22 6/5", best="bar/24 6/3", equity_played=-0.2,
                        equity_best=0.0, loss=0.2, grade=Grade.VERY_BAD, position=start,
                        played_position=played.position, best_position=best.position,
                        played_steps=played.steps, best_steps=best.steps)
    record = _record(Variant.BACKGAMMON, ("Ann", "Bob"))
    texts = {lang: mistake_text(translator(lang), record, decision) for lang in LANGUAGES}
    assert texts["en"].startswith("turn 5 · ○ Ann · 3-1: bar/"), texts
    assert texts["ru"].startswith("ход 5 · ○ Ann · 3-1: бар/"), texts
    assert texts["lt"].startswith("ėjimas 5 · ○ Ann · 3-1: juosta/"), texts
    assert "bar" not in texts["ru"] + texts["lt"]


def test_the_figures_players_of_gnubg_and_xg_expect_are_shown() -> None:
    """PR, Snowie's error rate, the luck per roll, the luck-adjusted result
    and the cube errors split by kind, in the text, on the picture's panels
    and in every language (issue #28)."""
    import dataclasses

    from ai.analysis import Tally
    from bot.present.analysis import analysis_picture

    analysis = _analysis(Variant.BACKGAMMON)
    white = dataclasses.replace(
        analysis.players[0], error_total=10.0, decisions=40, error_rate=250.0, both_rolls=80,
        rolls=40, luck=0.5, result=2.0, luck_cubed=1.0, opponent_luck_cubed=0.25,
        cube_decisions=3, missed_doubles=Tally(1, 0.1), wrong_takes=Tally(2, 0.3))
    analysis = dataclasses.replace(analysis, players=(white, analysis.players[1]))
    record = _record(Variant.BACKGAMMON, ("Ann", "Bob"))
    text = analysis_text(translator("en"), record, analysis)
    assert "PR 125.0 · Snowie 125.0 · luck rate +12.5 per roll · luck-adjusted result +1.25" in text
    assert ("Cube errors: 1 missed doubles, 0 wrong doubles, 2 wrong takes, 0 wrong passes"
            in text)
    panel = analysis_picture(translator("en"), record, analysis).panels[0]
    assert any("PR 125.0" in line for line in panel.lines)
    assert "Wrong takes 2 · wrong passes 0" in panel.lines
    for lang in LANGUAGES:
        tr = translator(lang)
        shown = analysis_text(tr, record, analysis)
        assert "PR 125" in shown and "{" not in shown
        if lang != "en":
            assert tr.gettext("luck-adjusted result {value}") != "luck-adjusted result {value}"


def test_long_nardy_shows_its_own_scale_not_backgammons() -> None:
    """XG's PR and Snowie's error rate are backgammon programs' scales: a
    long nardy analysis shows its own error rate and word, in the text, the
    caption, the picture's panels and the export, in every language
    (issue 38)."""
    import random

    from ai import make_player
    from ai.analysis import analyse
    from ai.annotate import report_lines
    from ai.arena import play_recorded

    analysis = _analysis(Variant.LONG, cube=False)
    record = _record(Variant.LONG, ("Ann", "Bob"))
    for lang in LANGUAGES:
        tr = translator(lang)
        shown = [analysis_text(tr, record, analysis), caption(tr, record, analysis),
                 *(line for panel in analysis_picture(tr, record, analysis).panels
                   for line in panel.lines)]
        assert not any("PR" in text or "Snowie" in text or "XG" in text for text in shown)
        assert all(" ·  · " not in text and not text.startswith(" · ") for text in shown)
        assert tr.gettext(RATING_NAMES[Rating.AWFUL]) in shown[0]  # our own word
    players = [make_player(Variant.LONG, level, 1) for level in (Level.EASY, Level.MEDIUM)]
    game = play_recorded(players, random.Random(2), GameOptions.long())
    report = analyse(game, level=Level.MEDIUM).players[0]
    lines = report_lines("Ann", report, Variant.LONG)
    assert lines[1].startswith("; Ann: luck rate ") and "PR" not in "".join(lines)
    # backgammon keeps them
    assert "PR " in analysis_text(translator("en"), _record(Variant.BACKGAMMON, ("A", "B")),
                                  _analysis(Variant.BACKGAMMON))
