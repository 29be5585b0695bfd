"""Who sits where at a game record, and whom the record waits for."""

from __future__ import annotations

from bot.rules.matchstate import table_of
from bot.vocab.records import GameRecord, Player, Status
from engine.position import Side


def seat_of(record: GameRecord, user_id: int) -> Side | None:
    for player in record.players:
        if player.user_id == user_id:
            return player.side
    return None


def player_on(record: GameRecord, side: Side) -> Player:
    return next(p for p in record.players if p.side is side)


def waiting_side(record: GameRecord) -> Side | None:
    """The side the record waits for: the player to act, after the end the
    one to answer an offer of the next game (None in a lobby, or nobody)."""
    if record.status is Status.FINISHED and record.rematch_by is not None:
        offerer = seat_of(record, record.rematch_by)
        return None if offerer is None else offerer.opponent
    if record.status is not Status.ACTIVE:
        return None
    return table_of(record).game.to_act


def waiting_user(record: GameRecord) -> int | None:
    """The user id the record waits for (see :func:`waiting_side`)."""
    side = waiting_side(record)
    return None if side is None else player_on(record, side).user_id
