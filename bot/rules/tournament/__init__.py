"""Tournaments and leagues in a group, as pure rules (docs/tournaments.md).

No I/O here: a :class:`~bot.vocab.tournament.TournamentRecord` and an action
go in, the next record (or a ``Refusal``) comes out, as for a game.

* :mod:`.actions`: create, join, leave, start, results, deadlines,
  withdrawals, the end;
* :mod:`.formats`: the formats, one row each (limits, rounds, byes,
  tie-breaks, texts): nothing else asks which format a tournament is;
* :mod:`.rounds`: each format's next round;
* :mod:`.pairing`: Berger tables, Swiss rounds, knockout brackets
  (:mod:`.matching` answers "can the rest still be paired?");
* :mod:`.brackets`: knockout, consolation and play-off brackets replayed
  from the results;
* :mod:`.standings`: points and tie-breaks from the results alone;
* :mod:`.prizes`: the pot split into ledger entries that add up to zero;
* :mod:`.setup`: ``/tournament``'s arguments;
* :mod:`.league`: a season table of a chat's rated games.
"""

from bot.rules.tournament.actions import (
    Setup,
    TournamentError,
    adjudicate,
    attach_game,
    cancel,
    create,
    join,
    leave,
    record_result,
    start,
    start_due,
    withdraw,
)
from bot.rules.tournament.prizes import ledger
from bot.rules.tournament.setup import SetupError, parse_setup
from bot.rules.tournament.standings import standings

__all__ = [
    "Setup",
    "SetupError",
    "TournamentError",
    "adjudicate",
    "attach_game",
    "cancel",
    "create",
    "join",
    "leave",
    "ledger",
    "parse_setup",
    "record_result",
    "standings",
    "start",
    "start_due",
    "withdraw",
]
