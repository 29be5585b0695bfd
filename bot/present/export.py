"""/export: the game record as a text file in Jellyfish ``.mat`` layout
(backgammon: readable by GNU Backgammon; long nardy: the same layout with a
variation header, see :mod:`engine.matfile`).  During a match the file holds
every game of it so far."""

from __future__ import annotations

import re

from bot.present.usertext import clean
from bot.rules.actions import player_on, table_of
from bot.store.records import GameRecord
from engine.match import Match
from engine.matfile import format_match, game_lines, header_lines
from engine.position import Side


def _safe(name: str) -> str:
    # .mat names cannot hold a colon or a line break (of any kind: a reader
    # may split lines at U+2029 or U+0085 too); bot.present.usertext.clean takes those
    return clean(re.sub(r":+", " ", name)) or "Player"


def export_text(record: GameRecord) -> tuple[str, str]:
    """The file name and the text of the record's match (or single game)."""
    table = table_of(record)
    game = table.game
    names = (_safe(player_on(record, Side.WHITE).name), _safe(player_on(record, Side.BLACK).name))
    if table.match_length and len(table.earlier) == table.number - 1:
        match = Match(game.options, table.games())
        return f"nardy-{record.game_id}.mat", format_match(match, names=names)
    # a single game, or a match stored before earlier games were kept: this game only
    score = list(table.score)
    if game.result is not None:
        score[game.result.winner] -= game.result.points
    decided = bool(table.match_length) and table.match_over and game.result is not None
    lines = [*header_lines(game), *game_lines(game, number=table.number, names=names,
                                               score=(score[0], score[1]), wins_match=decided)]
    return f"nardy-{record.game_id}.mat", "\n".join(lines) + "\n"
