"""/export: the game record as a text file in Jellyfish ``.mat`` layout
(backgammon: readable by GNU Backgammon; long nardy: the same layout with a
variation header, see :mod:`engine.matfile`).  During a match the file holds
every game of it so far; once a game is over, its analysis comes with it as
comment lines."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ai.analysis import Analysis
from ai.annotate import export_with_analysis
from bot.rules.dice import revealed, seed_of
from bot.rules.matchstate import table_of
from bot.rules.seats import player_on
from bot.vocab.records import GameRecord, Status
from bot.vocab.usertext import clean
from engine.dice import Entropy, dice_header_lines
from engine.match import Match
from engine.matfile import format_match, game_lines, header_lines
from engine.position import Side


def _safe(name: str) -> str:
    # .mat names cannot hold a colon or a line break (of any kind: a reader
    # may split lines at U+2029 or U+0085 too); bot.vocab.usertext.clean takes those
    return clean(re.sub(r":+", " ", name)) or "Player"


def dice_lines(record: GameRecord) -> list[str]:
    """The fair dice's header lines (engine/dice.py): the commitment and the
    entropy always, the seed only once the match is over or cancelled."""
    if record.dice is None:
        return []
    seed = seed_of(record.dice)
    return [*dice_header_lines(seed.commitment, Entropy.parse(record.dice.entropy),
                               seed if revealed(record) else None,
                               opening_reroll=table_of(record).game.options.opening_reroll,
                               refused=record.dice.refused), ""]


def export_text(record: GameRecord, analysis: Analysis | None = None,
                earlier: Sequence[tuple[int, Analysis]] = ()) -> tuple[str, str]:
    """The file name and the text of the record's match (or single game),
    headed by the dice's lines so that the file alone verifies its rolls.
    ``analysis``: of the record's (finished) game; ``earlier``: of the
    match's games before it, by number (:func:`bot.rules.analysis.earlier_jobs`).
    They are added as the comment lines GNU Backgammon shows as the match's
    information (ai/annotate.py): each game's figures (error rate, PR,
    Snowie's error rate, luck, cube errors) and its graded decisions, and
    for two or more games each player's totals over them."""
    name, body = _mat_text(record)
    text = "\n".join(dice_lines(record)) + body
    table = table_of(record)
    games = table.games() if earlier else ()
    analysed = [(number, games[number - 1], found) for number, found in earlier]
    if analysis is not None:
        analysed.append((table.number, table.game, analysis))
    if analysed:
        text = export_with_analysis(text, analysed, names=_names(record))
    return name, text


def _names(record: GameRecord) -> tuple[str, str]:
    return _safe(player_on(record, Side.WHITE).name), _safe(player_on(record, Side.BLACK).name)


def _mat_text(record: GameRecord) -> tuple[str, str]:
    table = table_of(record)
    game = table.game
    names = _names(record)
    cancelled = record.status is Status.CANCELLED  # a roll thrown and not played counts too
    if table.match_length and len(table.earlier) == table.number - 1:
        match = Match(game.options, table.games())
        return f"nardy-{record.game_id}.mat", format_match(match, names=names, ended=cancelled)
    # a single game, or a match stored before earlier games were kept: this game only
    score = list(table.score)
    if game.result is not None:
        score[game.result.winner] -= game.result.points
    decided = bool(table.match_length) and table.match_over and game.result is not None
    lines = [*header_lines(game), *game_lines(game, number=table.number, names=names,
                                               score=(score[0], score[1]), wins_match=decided,
                                               ended=cancelled)]
    return f"nardy-{record.game_id}.mat", "\n".join(lines) + "\n"
