"""The end of a game: the one place where everything a game's end does is called.

A rule's record that ends a game being played (finished: a last checker
off, a pass, a resignation, a timeout; or cancelled by agreement) is saved
here and only here (the raw compare-and-set refuses it:
:class:`bot.store.UnbookedEnd`): in one atomic write, the record, the
ledger's stake, the history line, both players' stats and ratings, their
dice statistics and the chat's league tables (``store.ledger.finish_game``).
After it, once the tap is answered, what follows a game's end:
:data:`AFTER_END`, the one hook (a tournament's pairing: one more line there).
The booking leaves the game pending (bot/store/clock.py ``Clock.ending``) until
:func:`after_end` ran, so if the worker dies in between (whichever path ended
the game: a tap, the Mini App, the computer, a deadline) the clock's job runs it
(bot/edge/handlers/clock.py ``tick_job``).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from bot.rules import computer
from bot.rules.dice import dice_booking
from bot.rules.ledger import booking, outcome, updated_stats
from bot.rules.matchstate import table_of
from bot.rules.tournament.league import league_lines
from bot.service import tournament
from bot.store import Forfeited, Store
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import FORFEITED, Refusal

FollowUp = Callable[[Store, GameRecord], Awaitable[None]]
"""Something that follows a game's end, given the record as its end was saved."""


async def keep_for_analysis(store: Store, record: GameRecord) -> None:
    """📊 and /analyze find the game (bot/store/analysis.py)."""
    await store.analysis.keep(record)


async def move_auto_level(store: Store, record: GameRecord) -> None:
    """A game at ``level=auto`` played to its end moves its person's standing
    (bot/rules/computer.py ``auto_rung``), once: keyed by the game
    (bot/store/computer.py), as this runs again for a retried update."""
    moved = computer.auto_result(record)
    if moved is not None:
        user_id, variant, won = moved
        await store.computer.move(user_id, variant, str(record.ref), functools.partial(
            computer.auto_moved, user_id=user_id, variant=variant, person_won=won))


AFTER_END: tuple[FollowUp, ...] = (
    keep_for_analysis,
    move_auto_level,  # level=auto follows the result (bot/rules/computer.py)
    tournament.game_ended,  # a tournament's pairing: its result (bot/service/tournament.py)
)
"""What follows a game's end (finished or cancelled), in order, after the
tap's answer.  Each must be idempotent: a retried update (its first attempt
died after the save) calls them again (:func:`after_end`)."""


def ends(old: GameRecord, new: GameRecord) -> bool:
    """Whether saving ``new`` over ``old`` ends the game being played."""
    return (old.status is Status.ACTIVE and new.game_id == old.game_id
            and new.status in (Status.FINISHED, Status.CANCELLED))


async def end_game(store: Store, old: GameRecord, new: GameRecord
                   ) -> tuple[GameRecord, Callable[[], Awaitable[None]]]:
    """Save the game's end ``new`` over ``old`` with its booking (once: a
    retried final tap finds it booked and books nothing; a tournament game's
    whose match a forfeit decided meanwhile: ``Refusal(FORFEITED)``, nothing
    booked, as its close says); returns the saved
    record and what is left to do after the tap's answer (:func:`after_end`)."""
    ended = outcome(new)
    entry, ledger = booking(ended)
    stats = functools.partial(updated_stats, ended)
    dice = dice_booking(new, table_of(new).game) if new.engine else None
    try:
        booked = await store.ledger.finish_game(new, old.version, entry, ledger, stats,
                                                dice=dice, league=league_lines,
                                                match=tournament.match_of(new))
    except Forfeited:   # a withdrawal's forfeit decided it first: its close follows
        raise Refusal(FORFEITED) from None
    return booked.record, functools.partial(after_end, store, booked.record)


async def after_end(store: Store, record: GameRecord) -> None:
    """What follows the end of ``record``'s game (:data:`AFTER_END`); nothing
    while it is not over.  Also called again by a retried update, and by the
    clock's sweep for an end whose worker never got here (bot/store/clock.py
    ``Clock.ends_tick``): the booking left it pending until this says it ran."""
    if record.status in (Status.FINISHED, Status.CANCELLED):
        for follow in AFTER_END:
            await follow(store, record)
        await store.clock.followed(record.ref)
