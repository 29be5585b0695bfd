"""A finished game's analysis as the chat sees it: the picture's words and
boards (:class:`bot.present.render.analysis.AnalysisPicture`), its caption,
and the text for chats with text boards (or when the picture cannot be
painted).

The figures come from :func:`ai.analysis.analyse` (docs/analysis.md): per
player the error rate (millipoints lost per decision) with GNU Backgammon's
rating word, the doubtful / bad / very bad decisions, the luck (points the
dice gave against the average roll) and the biggest mistakes with the move
played, the best one and the equity lost.  Pure: records and the analysis
in, HTML and plain data out; numbers are written the language's way
(``12,3`` in Russian and Lithuanian).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from babel.numbers import format_decimal

from ai.analysis import Analysis, CubeAction, Decision, DecisionKind, Grade, PlayerReport, Rating
from bot.present.names import LABELS, MARKS, board_labels, variant_name
from bot.present.render import BoardView, LastTurn
from bot.present.render.analysis import (
    GRAPH_MARKS,
    AnalysisPicture,
    Mark,
    Mistake,
    PlayerPanel,
)
from bot.present.webstate import plain
from bot.rules.computer import LEVEL_NAMES
from bot.rules.seats import player_on
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord
from bot.vocab.usertext import (
    CAPTION_LIMIT,
    TEXT_LIMIT,
    clean,
    fit_lines,
    html_text,
    visible_length,
)
from engine.choices import text_order
from engine.notation import format_turn
from engine.position import Side, Variant

RATING_NAMES = {
    Rating.AWFUL: N_("awful"),
    Rating.BEGINNER: N_("beginner"),
    Rating.CASUAL: N_("casual player"),
    Rating.INTERMEDIATE: N_("intermediate"),
    Rating.ADVANCED: N_("advanced"),
    Rating.EXPERT: N_("expert"),
    Rating.WORLD_CLASS: N_("world class"),
    Rating.SUPERNATURAL: N_("supernatural"),
}
"""GNU Backgammon's words for an error rate (ai/analysis.py RATINGS), worst first."""
GRADE_NAMES = {Grade.DOUBTFUL: N_("doubtful"), Grade.BAD: N_("bad"),
               Grade.VERY_BAD: N_("very bad")}
CUBE_WORDS = {CubeAction.NO_DOUBLE: N_("no double"), CubeAction.DOUBLE: N_("double"),
              CubeAction.TAKE: N_("take"), CubeAction.PASS: N_("pass")}
PICTURED = 3
"""The game's biggest mistakes drawn as boards on the picture."""
SPARK = "▁▂▃▄▅▆▇█"
SPARK_WIDTH = 36
"""Columns of the text fallback's win chance line (a phone shows ~36 in ``<pre>``)."""


def number(tr: Translator, value: float, pattern: str = "0.0") -> str:
    """``value`` written the language's way (decimal comma in ru and lt).

    >>> from bot.vocab.i18n import translator
    >>> number(translator("ru"), 12.34), number(translator("en"), -0.1234, SIGNED)
    ('12,3', '-0.123')
    """
    return str(format_decimal(value, pattern, locale=tr.lang))


SIGNED = "+0.000;-0.000"
"""Equities and luck: points, three decimals, always signed."""


def _name(record: GameRecord, side: Side, limit: int = 64) -> str:
    return clean(player_on(record, side).name, limit)


def rating_text(tr: Translator, report: PlayerReport) -> str:
    """``"24.6 — casual player"``: the error rate and its word; ``"—"`` without decisions."""
    if report.rating is None:
        return "—"
    return tr.gettext("{rate} — {word}", rate=number(tr, report.error_rate),
                      word=tr.gettext(RATING_NAMES[report.rating]))


def counts_text(tr: Translator, report: PlayerReport) -> str:
    """``"7 doubtful, 4 bad, 0 very bad"``."""
    return tr.gettext("{doubtful} doubtful, {bad} bad, {very_bad} very bad",
                      doubtful=report.doubtful, bad=report.bad, very_bad=report.very_bad)


def capital(text: str) -> str:
    """``text`` with its first letter a capital (the rest as it is).

    >>> capital("неточностей: 4, ошибок: 1"), capital("luck +0.5")
    ('Неточностей: 4, ошибок: 1', 'Luck +0.5')
    """
    return text[:1].upper() + text[1:]


def luck_text(tr: Translator, report: PlayerReport) -> str:
    return tr.gettext("luck {value}", value=number(tr, report.luck, SIGNED))


def ratings_text(tr: Translator, report: PlayerReport, variant: Variant) -> str:
    """``"PR 7.4 · Snowie 3.1"``: XG's performance rating and Snowie's error
    rate, backgammon programs' scales (docs/analysis.md); ``""`` in long
    nardy, which has only its own (the error rate and its word)."""
    if variant is not Variant.BACKGAMMON:
        return ""
    return tr.gettext("PR {pr} · Snowie {snowie}", pr=number(tr, report.performance_rating),
                      snowie=number(tr, report.snowie_error_rate))


def joined(*parts: str) -> str:
    """The non-empty ``parts`` joined by `` · ``."""
    return " · ".join(part for part in parts if part)


def luck_figures_text(tr: Translator, report: PlayerReport) -> str:
    """``"luck rate +12.3 per roll · luck-adjusted result +0.52"``."""
    return (tr.gettext("luck rate {rate} per roll",
                       rate=number(tr, report.luck_rate, "+0.0;-0.0"))
            + " · " + tr.gettext("luck-adjusted result {value}",
                                 value=number(tr, report.luck_adjusted, "+0.00;-0.00")))


def cube_errors_text(tr: Translator, report: PlayerReport) -> str:
    """The cube errors split by kind; ``""`` without cube decisions."""
    if not report.cube_decisions:
        return ""
    return tr.gettext("cube errors: {missed} missed doubles, {wrong} wrong doubles, "
                      "{takes} wrong takes, {passes} wrong passes",
                      missed=report.missed_doubles.count, wrong=report.wrong_doubles.count,
                      takes=report.wrong_takes.count, passes=report.wrong_passes.count)


def choice_text(tr: Translator, decision: Decision, which: str) -> str:
    """The move ``played`` or ``best`` in the usual notation, the decider's
    numbers and the board's words for bar and off; or the cube action."""
    text = decision.played if which == "played" else decision.best
    if decision.kind is not DecisionKind.MOVE:
        return tr.gettext(CUBE_WORDS[CubeAction(text)])
    steps = decision.played_steps if which == "played" else decision.best_steps
    if not steps:
        return text or tr.gettext(LABELS["no_move"])
    labels = board_labels(tr)
    return format_turn(decision.position, text_order(steps), numbering=decision.side,
                       bar=labels.bar, off=labels.off)


def _roll(tr: Translator, decision: Decision) -> str:
    """The roll of a move (``6-3``), or the cube a cube decision was about."""
    dice = decision.dice
    if dice is None:
        return tr.gettext("cube {value}", value=decision.cube)
    return f"{dice.first}-{dice.second}"


def mistake_text(tr: Translator, record: GameRecord, decision: Decision, *,
                 names: bool = True, limit: int = 64) -> str:
    """``"turn 6 · ○ Alice · 6-3: 24/21 23/22, best 24/23 13/10 (-0.149)"``: plain text."""
    who = f" · {MARKS[decision.side]} {_name(record, decision.side, limit)}" if names else ""
    return tr.gettext("turn {n}{who} · {roll}: {played}, best {best} ({loss})",
                      n=decision.ply + 1, who=who, roll=_roll(tr, decision),
                      played=choice_text(tr, decision, "played"),
                      best=choice_text(tr, decision, "best"),
                      loss=number(tr, -decision.loss, SIGNED))


def biggest(analysis: Analysis, count: int = PICTURED) -> tuple[Decision, ...]:
    """The game's ``count`` biggest mistakes over both players, the worst first."""
    worst = [d for report in analysis.players for d in report.worst]
    return tuple(sorted(worst, key=lambda d: -d.loss)[:count])


def _title(tr: Translator, record: GameRecord, limit: int) -> str:
    white, black = (html_text(_name(record, side, limit)) for side in Side)
    return (f"<b>📊 {escape(tr.gettext('Analysis'))}</b> · "
            f"{escape(variant_name(tr, record.variant))} · "
            f"{MARKS[Side.WHITE]} {white} – {MARKS[Side.BLACK]} {black}")


def _player_line(tr: Translator, record: GameRecord, report: PlayerReport, limit: int) -> str:
    name = html_text(_name(record, report.side, limit))
    return (f"{MARKS[report.side]} <b>{name}</b>: "
            + escape(joined(tr.gettext("error rate {rating}", rating=rating_text(tr, report)),
                            ratings_text(tr, report, record.variant),
                            counts_text(tr, report), luck_text(tr, report))))


def _footnote(tr: Translator, analysis: Analysis) -> str:
    """What the figures are, and the level of the bot that judged."""
    level = tr.gettext(LEVEL_NAMES[analysis.level])
    scales = "" if analysis.variant is not Variant.BACKGAMMON else " " + escape(tr.gettext(
        "PR: XG's performance rating, half the error rate; Snowie: thousandths of a point "
        "lost per move of both players; a match game is judged at the match score."))
    return ("<i>" + escape(tr.gettext(
        "Error rate: thousandths of a point lost per decision, as judged by the bot at its "
        "{level} level; luck: points the dice gave against an average roll.", level=level))
        + scales + "</i>")


def caption(tr: Translator, record: GameRecord, analysis: Analysis) -> str:
    """The picture's caption: the two players' figures and the biggest
    mistake, within Telegram's 1024 characters whatever the names."""
    for limit in (64, 24, 12):
        lines = [_title(tr, record, limit),
                 *(_player_line(tr, record, report, limit) for report in analysis.players)]
        top = biggest(analysis, 1)
        if top:
            lines.append(escape(tr.gettext("Biggest mistake: {what}",
                                           what=mistake_text(tr, record, top[0], limit=limit))))
        lines.append(_footnote(tr, analysis))
        text = "\n".join(lines)
        if visible_length(text) <= CAPTION_LIMIT:
            return text
    return fit_lines(lines, CAPTION_LIMIT, [len(lines) - 1])


def sparkline(chances: Sequence[float], width: int = SPARK_WIDTH) -> str:
    """White's win chance as a line of block characters, at most ``width``
    columns (turns averaged into columns).

    >>> sparkline([0.5, 0.6, 0.9, 1.0, 0.1, 0.0], 6)
    '▄▅██▁▁'
    """
    if not chances:
        return ""
    columns = min(width, len(chances))
    out = []
    for column in range(columns):
        part = chances[column * len(chances) // columns:(column + 1) * len(chances) // columns]
        value = sum(part) / len(part)
        out.append(SPARK[min(len(SPARK) - 1, max(0, math.ceil(value * len(SPARK)) - 1))])
    return "".join(out)


def analysis_text(tr: Translator, record: GameRecord, analysis: Analysis) -> str:
    """The analysis as a text message (text-board chats, or when the picture
    cannot be painted): each player's figures and three biggest mistakes,
    and White's win chance turn by turn as a line of blocks."""
    lines = [_title(tr, record, 64)]
    drop = []
    for report in analysis.players:
        side = report.side
        lines.append("")
        lines.append(f"{MARKS[side]} <b>{html_text(_name(record, side))}</b>")
        lines.append(escape(tr.gettext("Error rate: {rating} ({n} decisions)",
                                       rating=rating_text(tr, report), n=report.decisions)))
        lines.append(escape(capital(counts_text(tr, report)) + " · "
                            + luck_text(tr, report)))
        lines.append(escape(joined(ratings_text(tr, report, analysis.variant),
                                   luck_figures_text(tr, report))))
        cube = cube_errors_text(tr, report)
        if cube:
            lines.append(escape(capital(cube)))
        for n, decision in enumerate(report.worst, start=1):
            drop.append(len(lines))
            lines.append(escape(f"{n}. " + mistake_text(tr, record, decision, names=False)))
    if analysis.win_chance:
        drop.append(len(lines))
        lines.append("")
        white = html_text(_name(record, Side.WHITE, 24))
        lines.append(tr.gettext("Win chance of {name}, turn by turn:",
                                name=f"{MARKS[Side.WHITE]} {white}")
                     + f"\n<pre>{sparkline(analysis.win_chance)}</pre>")
    lines.append("")
    lines.append(_footnote(tr, analysis))
    return fit_lines(lines, TEXT_LIMIT, sorted(drop, reverse=True))


# ---------------------------------------------------------------- the picture


def _board(tr: Translator, record: GameRecord, decision: Decision, which: str) -> BoardView:
    """A small board of a mistake: the position after the ``played`` or the
    ``best`` turn, its steps marked as the last turn, from the decider's side."""
    side = decision.side
    names = (_name(record, Side.WHITE, 24), _name(record, Side.BLACK, 24))
    if decision.kind is not DecisionKind.MOVE:
        return BoardView(decision.position, side, names=names, labels=board_labels(tr))
    after = decision.played_position if which == "played" else decision.best_position
    steps = decision.played_steps if which == "played" else decision.best_steps
    return BoardView(after, side, names=names, dice=decision.dice,
                     last_turn=LastTurn(side, steps, decision.position), labels=board_labels(tr))


def _mistake(tr: Translator, record: GameRecord, decision: Decision, n: int) -> Mistake:
    grade = tr.gettext(GRADE_NAMES[decision.grade]) if decision.grade is not None else ""
    title = f"{n}. " + mistake_text(tr, record, decision, limit=24)
    return Mistake(
        title=title + (f" · {grade}" if grade else ""),
        played_label=tr.gettext("Played: {move}", move=choice_text(tr, decision, "played")),
        played=_board(tr, record, decision, "played"),
        best_label=tr.gettext("Best: {move}", move=choice_text(tr, decision, "best")),
        best=_board(tr, record, decision, "best") if decision.kind is DecisionKind.MOVE
        else None,
        grade=decision.grade.value if decision.grade is not None else "",
    )


def _panel(tr: Translator, record: GameRecord, report: PlayerReport) -> PlayerPanel:
    cube: tuple[str, ...] = ()
    if report.cube_decisions:  # the cube errors by kind, two to a line
        cube = (capital(tr.gettext("missed doubles {missed} · wrong doubles {wrong}",
                                   missed=report.missed_doubles.count,
                                   wrong=report.wrong_doubles.count)),
                capital(tr.gettext("wrong takes {takes} · wrong passes {passes}",
                                   takes=report.wrong_takes.count,
                                   passes=report.wrong_passes.count)))
    lines = (tr.gettext("Error rate: {rating}", rating=rating_text(tr, report)),
             joined(tr.ngettext("{n} decision", "{n} decisions", report.decisions,
                                n=report.decisions), ratings_text(tr, report, record.variant)),
             capital(counts_text(tr, report)),
             capital(luck_text(tr, report)) + " · " + tr.gettext(
                 "luck rate {rate} per roll", rate=number(tr, report.luck_rate, "+0.0;-0.0")),
             capital(tr.gettext("luck-adjusted result {value}",
                                value=number(tr, report.luck_adjusted, "+0.00;-0.00"))),
             *cube)
    return PlayerPanel(report.side, _name(record, report.side, 32), lines)


def summary(tr: Translator, record: GameRecord, analysis: Analysis) -> dict[str, object]:
    """The analysis as the board app shows it (issue 34), plain text: each player's
    figures as the picture's panel words them (error rate, decisions, doubtful / bad /
    very bad, luck) and their biggest mistakes, and what the figures are."""
    players = []
    for report in analysis.players:
        panel = _panel(tr, record, report)
        players.append({"side": int(report.side), "name": panel.name, "lines": list(panel.lines),
                        "worst": [mistake_text(tr, record, d, names=False)
                                  for d in report.worst]})
    return {"title": tr.gettext("Analysis"), "players": players,
            "footnote": plain(_footnote(tr, analysis))}


def analysis_picture(tr: Translator, record: GameRecord, analysis: Analysis) -> AnalysisPicture:
    """What the picture shows, every word translated (it crosses to the painter)."""
    pictured = biggest(analysis)
    numbered = {(d.ply, d.side, d.kind): n for n, d in enumerate(pictured, start=1)}
    marks = tuple(Mark(d.ply, d.grade.value, numbered.get((d.ply, d.side, d.kind), 0))
                  for d in analysis.decisions if d.grade is not None and
                  d.grade.value in GRAPH_MARKS)
    white, black = (_name(record, side, 24) for side in Side)
    return AnalysisPicture(
        title=f"{tr.gettext('Analysis')} · {variant_name(tr, record.variant)}",
        panels=(_panel(tr, record, analysis.players[0]), _panel(tr, record, analysis.players[1])),
        chances=tuple(analysis.win_chance),
        marks=marks,
        graph_title=tr.gettext("Win chance, turn by turn"),
        top=f"{MARKS[Side.WHITE]} {white} 100%",
        bottom=f"{MARKS[Side.BLACK]} {black} 100%",
        legend=(tr.gettext(GRADE_NAMES[Grade.DOUBTFUL]), tr.gettext(GRADE_NAMES[Grade.BAD]),
                tr.gettext(GRADE_NAMES[Grade.VERY_BAD])),
        mistakes=tuple(_mistake(tr, record, d, n) for n, d in enumerate(pictured, start=1)),
        turn_word=tr.gettext("turn"),
    )


# ---------------------------------------------------------------- a sample


def sample(variant: Variant, seed: int = 4) -> tuple[GameRecord, Analysis]:
    """A whole game of the easy bot against the medium one (many mistakes
    to show), analysed: the docs' example picture (docs/analysis.md)."""
    import random

    from ai import Level, make_player
    from ai.analysis import analyse
    from ai.arena import play_recorded
    from bot.rules.matchstate import MatchState
    from bot.vocab.records import Player, Status

    players = [make_player(variant, level, seed) for level in (Level.EASY, Level.MEDIUM)]
    game = play_recorded(players, random.Random(seed))
    record = GameRecord(chat_id=1, variant=variant, status=Status.FINISHED,
                        players=(Player(user_id=1, name="Alice", side=Side.WHITE),
                                 Player(user_id=2, name="Борис", side=Side.BLACK)),
                        engine=MatchState(game).to_dict())
    return record, analyse(game)


def main(argv: Sequence[str]) -> None:
    """``python -m bot.present.analysis OUT.png [long|backgammon] [en|ru|lt]``:
    the sample's picture; its caption is printed."""
    from bot.present.render.analysis import render_analysis
    from bot.vocab.i18n import translator

    out, *rest = argv
    variant = Variant(rest[0]) if rest else Variant.LONG
    tr = translator(rest[1] if len(rest) > 1 else "en")
    record, analysis = sample(variant)
    with open(out, "wb") as file:
        file.write(render_analysis(analysis_picture(tr, record, analysis)))
    print(caption(tr, record, analysis))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
