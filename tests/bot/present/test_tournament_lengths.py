"""Every tournament message fits Telegram's limits at the biggest sizes and
the longest names: a 64-player Swiss or knockout, a 16-player round robin,
every name 64 emoji (128 UTF-16 code units, what Telegram counts).  A
message over 4,096 was refused: the lobby's edits were dropped (it kept its
Join and ✖ Cancel after the start), and the round, standings and final
posts failed, so the tournament job failed on every run (nothing after it
was ever posted)."""

from __future__ import annotations

import pytest

from bot.present import tournament as present
from bot.rules.tournament import actions
from bot.rules.tournament.prizes import nets
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import Status, TableOptions
from bot.vocab.tournament import Decision, Format, Result, TournamentRecord
from bot.vocab.usertext import CAPTION_LIMIT, TEXT_LIMIT, visible_length
from engine.position import Variant

NOW = 1_000_000.0
NAMES = ["🎲" * 64, "&<b>" * 16, "W" * 64]


def _lobby(fmt: Format, name: str) -> TournamentRecord:
    setup = actions.Setup(format=fmt, entry_stake=1_000_000, consolation=fmt is Format.KNOCKOUT,
                          prize_split=(30, 20, 15, 10, 10, 5, 5, 5))
    record = actions.create(-100, None, 1, Variant.LONG, TableOptions(match_length=5), setup, NOW)
    for user in range(10, 10 + actions.MAX_ENTRANTS[fmt]):
        record = actions.join(record, user, name[:63] + str(user % 10), NOW)
    return record


def _finished(record: TournamentRecord) -> TournamentRecord:
    while record.status is Status.ACTIVE:
        pairing = next(p for p in record.rounds[-1].pairings if p.result is None)
        record = actions.record_result(record, pairing.board, Result(
            decision=Decision.PLAYED, winner=pairing.first, points=5), NOW)
    return record


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", NAMES, ids=["emoji", "html", "wide"])
@pytest.mark.parametrize("fmt", list(Format))
def test_every_tournament_message_fits(fmt: Format, name: str, lang: str) -> None:
    tr = translator(lang)
    lobby = _lobby(fmt, name)
    started = actions.start(lobby, 1, {}, NOW)
    finished = _finished(started)
    texts = [present.lobby_message(tr, lobby)[0], present.lobby_message(tr, started)[0],
             present.round_message(tr, started, tr), present.standings_message(tr, started)[0],
             present.standings_message(tr, finished)[0],
             present.final_message(tr, finished, nets(finished)),
             present.pairing_notice(tr, started, 10, tr) or ""]
    for text in texts:
        assert visible_length(text) <= TEXT_LIMIT, (visible_length(text), text[:200])
    # nothing that matters was cut: the lobby's every line, every pairing of
    # the round, and the prizes (a long table and round under the standings may be)
    for whole in texts[:3]:
        assert not whole.endswith("\n…"), whole[-300:]
    money = next(line for line in texts[5].split("\n") if "-1000000" in line)
    assert money.count(",") == sum(1 for net in nets(finished).values() if net) - 1
    for record in (lobby, started, finished):
        assert visible_length(present.standings_caption(tr, record)) <= CAPTION_LIMIT
