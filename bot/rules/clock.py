"""The clock at the table: the deadline a change sets, winning on time, more
time, pause and resume (the arithmetic of time controls: bot/vocab/clock.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.matchstate import table_of
from bot.rules.play import played
from bot.rules.seats import seat_of, waiting_user
from bot.vocab import clock
from bot.vocab.i18n import N_
from bot.vocab.records import GameRecord, Player, Status
from bot.vocab.refusals import NO_CLOCK, NOT_PLAYING, PROPOSED, STALE, Refusal
from engine.position import Side


def with_deadline(old: GameRecord, new: GameRecord, now: float) -> GameRecord:
    """``new`` with its clock's deadline: a fresh period whenever the game
    starts waiting for someone else, none while paused or over (bot/vocab/clock.py)."""
    restart = new.game_id != old.game_id or waiting_user(old) != waiting_user(new)
    deadline = clock.new_deadline(new.deadline, new.options.time_control, now,
                                  running=new.status is Status.ACTIVE and new.paused_at is None,
                                  restart=restart)
    return new if deadline == new.deadline else new.model_copy(update={"deadline": deadline})


def time_is_up(record: GameRecord, now: float) -> bool:
    """The player to act ran out of time: their opponent may claim the win or
    give more time (the clock running, its deadline passed)."""
    return (record.status is Status.ACTIVE and record.paused_at is None
            and record.deadline is not None and record.deadline <= now)


def _timed_out_opponent(record: GameRecord, user_id: int, now: float) -> Side:
    """The tapper's side if they may claim a win on time or give more time."""
    side = seat_of(record, user_id)
    if record.status is not Status.ACTIVE:
        raise Refusal(N_("This game is over."))
    if side is None:
        raise Refusal(NOT_PLAYING)
    if not time_is_up(record, now):
        raise Refusal(N_("The time is not up: the clock was reset, paused or extended."))
    if table_of(record).game.to_act is side:
        raise Refusal(N_("Only your opponent can claim the win on time."))
    return side


def claim_timeout(record: GameRecord, user_id: int, now: float) -> GameRecord:
    """The opponent of a player whose time ran out wins a single game (times
    the cube); not a player whose own resignation offer waits for the answer."""
    side = _timed_out_opponent(record, user_id, now)
    offer = table_of(record).game.resign_offer
    if offer is not None and offer.side is side:
        # the time that ran out is the opponent's time to answer this very offer
        raise Refusal(N_("You offered to resign and your opponent has not answered: you "
                         "cannot claim the win on time. Give them more time, or wait."))
    return played(record, table_of(record), lambda g: g.claim_timeout(side))


def more_time(record: GameRecord, user_id: int, now: float) -> GameRecord:
    """The opponent gives the late player one more period, from now."""
    _timed_out_opponent(record, user_id, now)
    limit = record.options.time_control
    if limit is None:
        raise Refusal(NO_CLOCK)
    return record.model_copy(update={"deadline": now + limit, "updated_at": now})


def pause_request(record: GameRecord, user_id: int, now: float, *, pause: bool) -> GameRecord:
    """/pause or /resume by a player (or agreeing to the other's proposal).

    Pausing needs both players: the first proposes, the other agrees.
    Resuming: the player the game waits for resumes at once (it is their
    clock that starts again, with a full period); the other player proposes
    it and the player to move agrees.  Returns ``record`` itself when it is
    already so.
    """
    if record.status is not Status.ACTIVE:
        raise Refusal(N_("This game is over."))
    if seat_of(record, user_id) is None:
        raise Refusal(NOT_PLAYING)
    if record.options.time_control is None:
        raise Refusal(NO_CLOCK)
    paused = record.paused_at is not None
    if paused is pause:
        return record
    agreed = record.pause_by is not None and record.pause_by != user_id
    if pause and not agreed:
        if record.pause_by == user_id:
            raise Refusal(PROPOSED)
        return record.model_copy(update={"pause_by": user_id})
    if not pause and not agreed and waiting_user(record) != user_id:
        if record.pause_by == user_id:
            raise Refusal(PROPOSED)
        return record.model_copy(update={"pause_by": user_id})
    return record.model_copy(update={"pause_by": None, "paused_at": now if pause else None,
                                     "updated_at": now})


def drop_pause_request(record: GameRecord, user_id: int) -> GameRecord:
    """Either player says no to a pending pause (or resume) proposal."""
    if seat_of(record, user_id) is None:
        raise Refusal(NOT_PLAYING)
    if record.pause_by is None:
        raise Refusal(STALE)
    return record.model_copy(update={"pause_by": None})


@dataclass(frozen=True)
class Notice:
    """What a due stage of a game's clock says, and about whom."""

    late: Player
    """The player the game waits for."""
    opponent: Player
    timed_out: bool
    """The time ran out: the opponent may claim the win (else ``late`` is reminded)."""


def notice(record: GameRecord, stage: int) -> Notice | None:
    """The notice due at ``stage`` of the record's deadline
    (:data:`bot.vocab.clock.TIMED_OUT` or a reminder); None when the record
    waits for nobody, or a reminder has no deadline to name."""
    late_id = waiting_user(record)
    if late_id is None:
        return None
    timed_out = stage == clock.TIMED_OUT
    if not timed_out and record.deadline is None:
        return None
    late = next(p for p in record.players if p.user_id == late_id)
    opponent = next(p for p in record.players if p.user_id != late_id)
    return Notice(late, opponent, timed_out)
