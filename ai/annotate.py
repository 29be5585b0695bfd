"""An analysis as comment lines of a ``.mat`` file (for /export).

GNU Backgammon's ``import mat`` keeps the comment lines (``;`` or ``#``)
before the `` N point match`` line as the match's comment (its *Match
information* window) and reads nothing else from them; a comment among the
moves would be read as a move.  So the analysis goes there, one line per
figure, each naming its game and the row of the file it is about::

    ; Analysis by nardy (strong level: GNU Backgammon's nets, ...)
    ; Game 1, Ann: 12.3 millipoints per decision (intermediate), 25 decisions, ...
    ; Game 1, Ann: PR 6.2, Snowie error rate 3.1, luck rate +12.0 millipoints per roll, ...
    ; Game 1, row 7, Ann 52: 13/8 13/11, best 13/11 6/1* (-0.123, bad)

A file of several analysed games (``python -m ai analyse`` of a match)
ends with each player's totals over them (:func:`ai.analysis.totals`).
Lines never start with a tag gnubg reads (``[Game``, ``[Variation`` ...) and
stay short (gnubg reads lines of up to 1,023 characters).

>>> import random
>>> from ai import Level, make_player
>>> from ai.analysis import analyse
>>> from ai.arena import play_recorded
>>> from engine import GameOptions, Variant, format_game
>>> players = [make_player(Variant.BACKGAMMON, level, 1) for level in (Level.EASY, Level.MEDIUM)]
>>> game = play_recorded(players, random.Random(4), GameOptions.backgammon())
>>> names = ("Ann", "Bob")
>>> text = format_game(game, names=names)
>>> text = export_with_analysis(text, [(1, game, analyse(game))], names=names)
>>> for line in text.splitlines()[:12]:  # doctest: +NORMALIZE_WHITESPACE
...     print(line)
; [Jacoby "Off"]
; [Beaver "Off"]
; Analysis by nardy, strong level (GNU Backgammon's nets, 0-ply then 1-ply for the best
8); cube by money rules (Janowski); losses in points per game at cube 1
; Game 1, Ann: 37.4 millipoints per decision (awful), 33 decisions: 6 doubtful, 5 bad, 1
very bad; luck -0.90
; Game 1, Ann: PR 18.7, Snowie error rate 16.9, luck rate -24.9 millipoints per roll,
result -2, luck-adjusted -1.32
; Game 1, Ann: cube errors 0 missed doubles, 0 wrong doubles, 0 wrong takes, 0 wrong
passes
; Game 1, Bob: 23.1 millipoints per decision (casual), 31 decisions: 4 doubtful, 4 bad,
0 very bad; luck -0.35
; Game 1, Bob: PR 11.5, Snowie error rate 9.8, luck rate -9.6 millipoints per roll,
result +2, luck-adjusted +1.32
; Game 1, Bob: cube errors 0 missed doubles, 0 wrong doubles, 0 wrong takes, 0 wrong
passes
; Game 1, row 2, Ann 16: 24/18 6/5, best 13/7 8/7 (-0.124, bad)
; Game 1, row 5, Ann 45: bar/21 8/3, best bar/21 13/8 (-0.046, doubtful)
; Game 1, row 8, Ann 21: 24/22 3/2, best 6/3 (-0.061, doubtful)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ai.analysis import Analysis, Decision, DecisionKind, PlayerReport, totals
from ai.player import Level
from engine import Game, Side, Variant
from engine.matfile import turn_rows

MAX_LINE = 250
"""Characters per comment line at most (names are cut to fit)."""

_DEPTHS = {
    (Variant.BACKGAMMON, Level.STRONG): "GNU Backgammon's nets, 0-ply then 1-ply for the best 8",
    (Variant.LONG, Level.STRONG): "our own net, 1 ply then 2 ply for the best 5",
    (Variant.BACKGAMMON, Level.MEDIUM): "GNU Backgammon's nets, 0-ply",
    (Variant.LONG, Level.MEDIUM): "our own net, 1 ply",
}
_MATCH_LINE = re.compile(r"\s*\d+ point match\s*")


def _line(text: str) -> str:
    text = " ".join(text.split())  # no line breaks or tabs from names
    return f"; {text}"[:MAX_LINE]


def _name(names: tuple[str, str], side: Side) -> str:
    return names[side][:40]


def _decision_text(decision: Decision, rows: Sequence[int], names: tuple[str, str]) -> str:
    who = _name(names, decision.side)
    row = rows[decision.ply] if decision.ply < len(rows) else None
    grade = decision.grade.value.replace("_", " ") if decision.grade else "ok"
    loss = f"(-{decision.loss:.3f}, {grade})"
    if decision.kind is DecisionKind.MOVE:
        assert decision.dice is not None
        where = f"row {row}" if row is not None else "the last turn"
        dice = f"{decision.dice.first}{decision.dice.second}"
        played = decision.played or "no move"
        return f"{where}, {who} {dice}: {played}, best {decision.best} {loss}"
    where = f"before row {row}" if row is not None else "at the end"
    return f"{where}, {who} cube: {decision.played}, best {decision.best} {loss}"


def header_line(analysis: Analysis) -> str:
    """Which evaluation judged, and in which units."""
    depth = _DEPTHS.get((analysis.variant, analysis.level), analysis.level.value)
    if analysis.match_score:
        judged = ("; at the match score (GNU Backgammon's match equity table and cubeful "
                  "match cube, gnubg-nn); losses in normalised points (EMG)")
    elif analysis.variant is Variant.BACKGAMMON:
        judged = "; cube by money rules (Janowski); losses in points per game at cube 1"
    else:
        judged = "; losses in points per game at cube 1"
    return _line(f"Analysis by nardy, {analysis.level.value} level ({depth}){judged}")


def report_lines(who: str, report: PlayerReport, variant: Variant) -> list[str]:
    """One player's figures (of a game or, from :func:`ai.analysis.totals`,
    a match): the error rate with its rating word, the counts, the luck,
    then (backgammon) XG's performance rating and Snowie's error rate, the luck per roll
    and the luck-adjusted result; in backgammon with cube decisions the
    cube errors split by kind (docs/analysis.md)."""
    rating = report.rating.value.replace("_", " ") if report.rating else "n/a"
    lines = [_line(
        f"{who}: {report.error_rate:.1f} millipoints per decision ({rating}), "
        f"{report.decisions} decisions: {report.doubtful} doubtful, {report.bad} bad, "
        f"{report.very_bad} very bad; luck {report.luck:+.2f}"),
        # XG's PR and Snowie's error rate are backgammon programs' scales
        _line(f"{who}: " + (f"PR {report.performance_rating:.1f}, Snowie error rate "
                            f"{report.snowie_error_rate:.1f}, "
                            if variant is Variant.BACKGAMMON else "")
              + f"luck rate {report.luck_rate:+.1f} millipoints per roll, result "
              f"{report.result:+.0f}, luck-adjusted {report.luck_adjusted:+.2f}")]
    if variant is Variant.BACKGAMMON and report.cube_decisions:
        tallies = ((report.missed_doubles, "missed doubles"), (report.wrong_doubles,
                   "wrong doubles"), (report.wrong_takes, "wrong takes"),
                   (report.wrong_passes, "wrong passes"))
        lines.append(_line(f"{who}: cube errors " + ", ".join(
            f"{tally.count} {word}" + (f" (-{tally.loss:.3f})" if tally.count else "")
            for tally, word in tallies)))
    return lines


def totals_lines(analysed: Sequence[tuple[int, Game, Analysis]], names: tuple[str, str]
                 ) -> list[str]:
    """Each player's figures over all the analysed games (a match), when
    there are two or more."""
    if len(analysed) < 2:
        return []
    lines = []
    for side in (Side.WHITE, Side.BLACK):
        report = totals([analysis.players[side] for _, _, analysis in analysed])
        lines += report_lines(f"{report.games} games, {_name(names, side)}", report,
                              analysed[0][2].variant)
    return lines


def comment_lines(
    game: Game, analysis: Analysis, *, number: int = 1, names: tuple[str, str] = ("White", "Black"),
    header: bool = True,
) -> list[str]:
    """The comment lines of one game's analysis: (with ``header``) which
    evaluation judged, then each player's figures and every graded
    decision with the row of the game's moves it is about.  ``number``:
    the game's number in the file; ``names``: White's and Black's."""
    lines = []
    if header:
        lines.append(header_line(analysis))
    for report in analysis.players:
        lines += report_lines(f"Game {number}, {_name(names, report.side)}", report,
                              analysis.variant)
    rows = turn_rows(game)
    for decision in analysis.decisions:
        if decision.grade is not None:
            lines.append(_line(f"Game {number}, {_decision_text(decision, rows, names)}"))
    return lines


def export_with_analysis(
    mat_text: str, analysed: Sequence[tuple[int, Game, Analysis]],
    names: tuple[str, str] = ("White", "Black"),
) -> str:
    """``mat_text`` (a ``.mat`` file as :mod:`engine.matfile` writes it, any
    header lines before it kept) with the analysis of each ``(game number,
    game, analysis)`` as comment lines right before its `` N point match``
    line, where GNU Backgammon reads comments.  Raises :class:`ValueError`
    for a text without that line."""
    lines = mat_text.split("\n")
    at = next((i for i, line in enumerate(lines) if _MATCH_LINE.fullmatch(line)), None)
    if at is None:
        raise ValueError("not a .mat text: no 'N point match' line")
    comments: list[str] = []
    for index, (number, game, analysis) in enumerate(analysed):
        comments += comment_lines(game, analysis, number=number, names=names, header=index == 0)
    comments += totals_lines(analysed, names)
    if at > 0 and lines[at - 1] == "":
        at -= 1  # the tags' blank line stays right before the match line
    elif comments:
        comments.append("")
    return "\n".join([*lines[:at], *comments, *lines[at:]])
