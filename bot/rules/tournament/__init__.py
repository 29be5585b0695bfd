"""Tournaments and leagues in a group, as pure rules (docs/tournaments.md).

No I/O here: a :class:`~bot.vocab.tournament.TournamentRecord` and an action
go in, the next record (or a ``Refusal``) comes out, as for a game.

* :mod:`.actions`: create, join, leave, start, results, deadlines,
  withdrawals, the end;
* :mod:`.pairing`: Berger tables, Swiss rounds, knockout brackets
  (:mod:`.matching` answers "can the rest still be paired?");
* :mod:`.brackets`: knockout, consolation and play-off brackets replayed
  from the results;
* :mod:`.standings`: points and tie-breaks from the results alone;
* :mod:`.prizes`: the pot split into ledger entries that add up to zero;
* :mod:`.setup`: ``/tournament``'s arguments;
* :mod:`.league`: a season table of a chat's rated games.
"""
