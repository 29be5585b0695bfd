"""Cancelling a game: a player's vote (the first proposes, the opponent's
vote cancels), and the rules of ``/cancel`` in a lobby, a game or a match.
"""

from __future__ import annotations

from bot.rules.seats import waiting_user
from bot.vocab.i18n import N_
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import NOT_PLAYING, PROPOSED, Refusal
from bot.vocab.tournament import is_tournament_game

TOURNAMENT_GAME = N_("A tournament game is not closed: either player taps {start}; a game "
                     "nobody starts by the round's deadline is lost by both.")
"""A player closing their tournament game's board alone would make the
opponent lose it too (bot/service/tournament.py: a cancelled game is a
double forfeit); only a chat admin who does not play it may."""


def cancelled(record: GameRecord) -> GameRecord:
    """The game (or the match between two of its games) ended without a
    result: nothing is booked or rated, its offers end."""
    return record.model_copy(update={"status": Status.CANCELLED, "cancel_by": None,
                                     "rematch_by": None})


def cancel_vote(record: GameRecord, user_id: int) -> GameRecord:
    """A player's vote to cancel (/cancel or the menu's button): the first
    proposes it, the opponent's vote cancels the game (or the match between
    two of its games) and books nothing."""
    if record.cancel_by is None:
        return record.model_copy(update={"cancel_by": user_id})
    if record.cancel_by == user_id:
        raise Refusal(PROPOSED)
    return cancelled(record)


ABANDONED_AFTER = 7 * 24 * 3600
"""Seconds without a change after which a player's /cancel alone ends a game
or a match the opponent left (docs/fair-dice.md: its seed is then revealed)."""


def abandoned(record: GameRecord, user_id: int, now: float) -> bool:
    """Whether ``user_id`` may end ``record`` alone: nothing changed for
    :data:`ABANDONED_AFTER` and it does not wait for ``user_id`` (a player
    cannot walk away from their own move this way)."""
    return now - record.updated_at >= ABANDONED_AFTER and waiting_user(record) != user_id


def cancel_command(record: GameRecord, user_id: int, admin: bool,
                   now: float | None = None) -> GameRecord:
    """The record after /cancel by ``user_id``; :class:`Refusal` if not allowed.

    A game being played, or a match between two of its games, ends when both
    players agree or an admin who is not playing decides; it books nothing
    (a match books its stake only when a player reaches its length).  One
    the opponent abandoned (:func:`abandoned` at ``now``) a player ends alone,
    unrated and unbooked like any cancel, and so sees its seed."""
    seated = any(p.user_id == user_id for p in record.players)
    if record.status is Status.LOBBY:
        if is_tournament_game(record.game_id) and (seated or not admin):
            raise Refusal(TOURNAMENT_GAME)
        if not (seated or admin or user_id == record.created_by):
            raise Refusal(N_("Only the players, whoever opened the lobby or an admin may "
                             "close it."))
        return record.model_copy(update={"status": Status.CANCELLED})
    if admin and not seated:
        return cancelled(record)
    if not seated:
        raise Refusal(NOT_PLAYING)
    if now is not None and abandoned(record, user_id, now):
        return cancelled(record)
    return cancel_vote(record, user_id)
