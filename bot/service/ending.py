"""The end of a game: the one place where everything a game's end does is called.

A rule's record that ends a game being played (finished: a last checker
off, a pass, a resignation, a timeout; or cancelled by agreement) is saved
here and only here (the raw compare-and-set refuses it:
:class:`bot.store.UnbookedEnd`): in one atomic write, the record, the
ledger's stake, the history line, both players' stats and ratings and their
dice statistics (``Store.finish_game``); after it, the finished game kept for
its analysis.  A feature that follows a game's end (a tournament's pairing,
a league table) adds its call to :func:`end_game`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from bot.rules.booking import booking, outcome, updated_stats
from bot.rules.fairplay import dice_booking
from bot.rules.matchstate import table_of
from bot.service import tournament
from bot.store import Store, finished, no_upkeep
from bot.vocab.records import GameRecord, Status


def ends(old: GameRecord, new: GameRecord) -> bool:
    """Whether saving ``new`` over ``old`` ends the game being played."""
    return (old.status is Status.ACTIVE and new.game_id == old.game_id
            and new.status in (Status.FINISHED, Status.CANCELLED))


async def end_game(store: Store, old: GameRecord, new: GameRecord
                   ) -> tuple[GameRecord, Callable[[], Awaitable[None]]]:
    """Save the game's end ``new`` over ``old`` with its booking (once: a
    retried final tap finds it booked and books nothing); returns the saved
    record and what is left to do after the tap's answer."""
    ended = outcome(new)
    entry, ledger = booking(ended)
    stats = functools.partial(updated_stats, ended)
    dice = dice_booking(new, table_of(new).game) if new.engine else None
    saved = (await store.finish_game(new, old.version, entry, ledger, stats, dice=dice)).record
    await tournament.game_ended(store, saved)  # a tournament's pairing: its result
    upkeep: Callable[[], Awaitable[None]] = no_upkeep
    if saved.status is Status.FINISHED:  # kept for its analysis (bot/store/finished.py)
        upkeep = functools.partial(finished.keep, store, saved)
    return saved, upkeep
