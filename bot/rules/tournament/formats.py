"""The tournament formats: one row of :data:`FORMATS` each, as game options
are rows of :data:`bot.rules.options.OPTIONS`.

A row says everything that differs between formats: the ``/tournament``
words that ask for it (:mod:`.setup`), how many may play, its planned
rounds and next round (:mod:`.rounds`), what a bye scores, how its
standings rank (:mod:`.standings`), whether it has a final or puts players
out (:mod:`.brackets`), and its texts (bot/present/tournament.py).  Nothing
else asks which format a tournament is: adding one adds its row here and
its pairing function (docs/architecture.md, "Adding a tournament format";
tests/bot/rules/tournament/test_formats.py checks it).

:mod:`.standings` and :mod:`.brackets` read this table inside their
functions: it names their functions, so it is imported after them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.rules.tournament import rounds, standings
from bot.vocab.i18n import N_
from bot.vocab.tournament import Format, TournamentRecord

TieBreaks = Callable[[TournamentRecord, dict[int, standings.Tally]], dict[int, tuple[int, ...]]]
"""(record, every entrant's tally) -> each player's tie-break values, best high."""


@dataclass(frozen=True, slots=True)
class FormatRules:
    """One tournament format, as everything that differs by format sees it."""

    format: Format
    name: str
    """Its name in a title (a msgid)."""
    words: Mapping[str, Mapping[str, bool]]
    """The ``/tournament`` words that ask for it, and the setup flags each sets."""
    takes: frozenset[str]
    """The ``/tournament`` values only it takes (``rounds=``, ``final=``)."""
    min_entrants: int
    max_entrants: int
    planned_rounds: Callable[[int, int], int]
    """(rounds asked, players) -> the rounds planned at the start (0: none)."""
    next_round: Callable[[TournamentRecord], rounds.Stages]
    """The pairs of the next round by stage, [] when it is over."""
    bye_scores: bool
    """A bye scores a point (a pairing-allocated bye), or only sends the player on."""
    by_points: bool
    """Ranked by points, then :attr:`tiebreaks`; else by the tie-breaks alone."""
    tiebreaks: TieBreaks
    tiebreak_heads: tuple[str, str]
    """The tie-breaks' column heads (msgids), short for a table."""
    has_final: bool
    """The main stage's last single pair is a final (its own match length)."""
    eliminates: bool
    """A player who loses may be out (nothing to withdraw from)."""
    rounds_in_title: bool
    """Its title says the rounds planned."""
    withdrawal: str
    """What a withdrawal does besides forfeiting the game of the round (a msgid)."""


FORMATS: dict[Format, FormatRules] = {row.format: row for row in (
    FormatRules(
        format=Format.ROUND_ROBIN, name=N_("Round robin"),
        words={"rr": {}, "robin": {}, "double": {"double": True}}, takes=frozenset(),
        min_entrants=3, max_entrants=16, planned_rounds=rounds.as_asked,
        next_round=rounds.next_round_robin, bye_scores=False, by_points=True,
        tiebreaks=standings.round_robin_keys, tiebreak_heads=(N_("H2H"), N_("SB")),
        has_final=False, eliminates=False, rounds_in_title=False,
        withdrawal=N_("every later game of theirs is lost by forfeit too")),
    FormatRules(
        format=Format.SWISS, name=N_("Swiss"),
        words={"swiss": {}}, takes=frozenset({"rounds"}),
        min_entrants=3, max_entrants=64, planned_rounds=rounds.swiss_rounds,
        next_round=rounds.next_swiss, bye_scores=True, by_points=True,
        tiebreaks=standings.swiss_keys, tiebreak_heads=(N_("Buch"), N_("SB")),
        has_final=False, eliminates=False, rounds_in_title=True,
        withdrawal=N_("they are paired no more")),
    FormatRules(
        format=Format.KNOCKOUT, name=N_("Knockout"),
        words={"ko": {}, "knockout": {}, "consolation": {"consolation": True}},
        takes=frozenset({"final"}),
        min_entrants=2, max_entrants=64, planned_rounds=rounds.as_asked,
        next_round=rounds.next_knockout, bye_scores=False, by_points=False,
        tiebreaks=standings.knockout_keys, tiebreak_heads=(N_("Rounds"), N_("Cons")),
        has_final=True, eliminates=True, rounds_in_title=False,
        withdrawal=N_("they are out of the tournament")),
)}
"""Every format's row (a round robin of 16 is 15 rounds, 30 played twice; a
Swiss or knockout of 64 is 6 rounds to a knockout winner, and a Swiss pairing
of 64 is instant)."""


def rules_of(record: TournamentRecord) -> FormatRules:
    """The row of ``record``'s format."""
    return FORMATS[record.format]
