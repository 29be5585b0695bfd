"""The standings and /league tables line up in every language: each column
head is as wide as its column, so a translated head ("Paguod" for "Cons")
never pushes the numbers under it sideways (bot/present/tournament.py)."""

from __future__ import annotations

import html
import re

import pytest

from bot.present import tournament as present
from bot.rules.tournament import actions
from bot.rules.tournament.league import LeagueRow
from bot.rules.tournament.standings import standings
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import TableOptions
from bot.vocab.tournament import Format, TournamentRecord
from engine.position import Variant

NOW = 1_000_000.0


def _started(fmt: Format, consolation: bool) -> TournamentRecord:
    record = actions.create(-100, None, 1, Variant.LONG, TableOptions(), actions.Setup(
        format=fmt, consolation=consolation, round_length=86400), NOW)
    for user in range(10, 16):
        record = actions.join(record, user, f"Player {user}", NOW)
    record = actions.start(record, 1, {}, NOW)
    return actions.withdraw(record, 11, NOW)


def _rows(text: str) -> list[str]:
    found = re.search(r"<pre>(.*)</pre>", text, re.S)
    assert found
    return html.unescape(found.group(1)).split("\n")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("fmt", "consolation"), [(Format.ROUND_ROBIN, False),
                                                  (Format.SWISS, False), (Format.KNOCKOUT, True)])
def test_the_standings_heads_fit_their_columns(lang: str, fmt: Format, consolation: bool) -> None:
    record = _started(fmt, consolation)
    head, *rows = _rows(present.table(translator(lang), record, standings(record)))
    assert rows and {len(row) for row in rows} == {len(head) + 1}  # + the withdrawn mark
    assert any(row.endswith("×") for row in rows)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_league_heads_fit_their_columns(lang: str) -> None:
    rows = [LeagueRow(rank=1, user_id=10, points=120, games=300, wins=200, rating_change=-120.4),
            LeagueRow(rank=2, user_id=11, points=-5, games=3, wins=1, rating_change=7.0)]
    text = present.league_message(translator(lang), "2026-12", rows,
                                  {10: "Ann", 11: "Bob"})
    lines = _rows(text)
    assert len({len(line) for line in lines}) == 1, lines
