"""Every text of the standings' picture fits its slot, in every language, at
4, 8 and 16 players with long names (bot/present/render/tournament.py).

Measured as drawn (:func:`bot.present.render.tournament.layout`): the title
and the lines under the table within the margins, each head and cell within
its column (no head cut), a withdrawn player's × kept after a name cut
short, and every pairing line whole - its score and its marks ("(forfeit)",
"match to 7") were cut off with the second name before."""

from __future__ import annotations

import pytest

from bot.present.render.tournament import WIDTH, layout
from bot.present.tournament import standings_picture
from bot.rules.tournament import actions
from bot.rules.tournament.actions import Setup
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import Status, TableOptions
from bot.vocab.tournament import Decision, Format, Result, TournamentRecord
from engine.position import Variant

NAMES = ("Александра Константинопольская", "Wolfgang Amadeus Mozart-Salieri 🎲🎲",
         "Ąžuolas Šarūnas Vaitkevičius-Čiurlionis", "Bob", "Ли", "Maximilian von Habsburg",
         "Жемайтийская Бирута", "Jonas")
TOLERANCE = 0.5


def _tournament(players: int, fmt: Format, **setup: object) -> TournamentRecord:
    """Round 1 played, then player 2 withdrew (a forfeit in round 2)."""
    record = actions.create(-5, None, 1, Variant.LONG, TableOptions(match_length=3),
                            Setup(format=fmt, **setup), 100.0)  # type: ignore[arg-type]
    for user in range(1, players + 1):
        name = NAMES[(user - 1) % len(NAMES)] + (f" {user}" if user > len(NAMES) else "")
        record = actions.join(record, user, name, 100.0)
    record = actions.start(record, 1, {u: (1900.0 - 10 * u, 60.0)
                                       for u in range(1, players + 1)}, 200.0)
    for pairing in record.rounds[-1].pairings:
        if pairing.result is None:
            record = actions.record_result(record, pairing.board, Result(
                decision=Decision.PLAYED, winner=pairing.first, points=2), 300.0)
    return actions.withdraw(record, 2, 310.0)


CASES = {
    "4, round robin": lambda: _tournament(4, Format.ROUND_ROBIN),
    "8, Swiss": lambda: _tournament(8, Format.SWISS, round_matches=(1, 3, 5)),
    "16, knockout with consolation": lambda: _tournament(
        16, Format.KNOCKOUT, consolation=True, final_match=7, round_matches=(1, 3)),
    "4, knockout: its final and the consolation's at once": lambda: _final_round(),
}


def _final_round() -> TournamentRecord:
    """A knockout of 8 with consolation in its last round: the final (7 points)
    beside the consolation final (3): each pairing line says its length."""
    record = _tournament(8, Format.KNOCKOUT, consolation=True, final_match=7,
                         round_matches=(1, 3))
    while len(record.rounds) < 3:
        for pairing in record.rounds[-1].pairings:
            if pairing.result is None:
                record = actions.record_result(record, pairing.board, Result(
                    decision=Decision.PLAYED, winner=pairing.first, points=3), 400.0)
    assert record.status is Status.ACTIVE
    return record


def _outside(box: tuple[float, ...], slot: tuple[int, ...]) -> bool:
    return box[0] < slot[0] - TOLERANCE or box[2] > slot[2] + TOLERANCE


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_text_of_the_standings_fits(lang: str, case: str) -> None:
    record = CASES[case]()
    picture = standings_picture(translator(lang), record)
    placed = layout(picture)
    wrong = [(p.what, p.text, p.box, p.slot) for p in placed
             if _outside(p.box, p.slot) or p.box[2] > WIDTH - 20]
    assert not wrong, (lang, case, wrong)
    heads = [p.text for p in placed if p.what == "head"]
    assert heads == list(picture.head), heads   # no head cut
    players = [p for p in placed if p.what == "player"]
    assert len(players) == len(record.entrants)
    gone = [p.text for p, struck in zip(players, picture.struck, strict=True) if struck]
    assert len(gone) == 1 and gone[0].endswith(" ×"), gone
    lines = [p.text for p in placed if p.what == "line"]
    assert lines == [" ".join(line.replace("🎲", "").split()) for line in picture.lines]
    assert any("(" in line for line in lines[1:])   # the forfeit's mark, kept whole


def test_a_round_whose_games_differ_in_length_says_each() -> None:
    picture = standings_picture(translator("en"), _final_round())
    assert picture.lines[0] == "Round 3"
    assert sorted(line.rsplit("· ", 1)[-1] for line in picture.lines[1:3]) == [
        "match to 3", "match to 7"]
