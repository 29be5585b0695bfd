"""A game's record loaded and saved as the rules see it.

:func:`load_current` loads the record a button acts on, at the version it
was drawn for or newer; :func:`save` / :func:`save_first` write a rule's new record over
the old one with one compare-and-set (an outdated keyboard, a duplicated
update or two taps at once can never apply twice), the end of a game booked
with it and the clock's deadline following the game; :func:`commit_game` is
the one load → change → save loop for a change outside the tap path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from bot.rules.aftergame import continued
from bot.rules.clock import with_deadline
from bot.rules.matchstate import remember_table, table_of
from bot.service.ending import end_game, ends
from bot.store import Store, VersionConflict
from bot.store.commit import commit
from bot.vocab import clock
from bot.vocab.callbacks import Callback, Kind
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import CHANGED, STALE, Refusal

FUTURE_WAITS = 25
"""Times (20 ms apart) a tap on a just-posted message waits for its record."""


async def save(store: Store, old: GameRecord, new: GameRecord, now: float | None = None
               ) -> GameRecord:
    """Write ``new`` over ``old`` (one CAS on ``old.version``); the end of a
    game is booked atomically with the ledger and history, and the clock's
    deadline follows the game (:func:`with_deadline`).  Raises
    :class:`VersionConflict` when the record changed meanwhile."""
    saved, upkeep = await save_first(store, old, new, now)
    await upkeep()
    return saved


async def save_first(store: Store, old: GameRecord, new: GameRecord, now: float | None = None
                     ) -> tuple[GameRecord, Callable[[], Awaitable[None]]]:
    """:func:`save` up to the CAS; the index upkeep is left to the caller
    (:meth:`store.games.save_first`: a tap is answered before it runs).

    A ``new`` game of another id continues ``old`` (the match's next game, a
    rematch, a new lobby from its board): both are saved in one step, ``old``
    as :func:`bot.rules.aftergame.continued` makes it."""
    now = clock.now() if now is None else now
    new = with_deadline(old, new, now)
    if ends(old, new):
        saved, upkeep = await end_game(store, old, new)
    elif new.game_id != old.game_id:
        saved, upkeep = await store.games.save_first(new, 0, closes=continued(old, new, now))
    else:
        saved, upkeep = await store.games.save_first(new, old.version)
    if saved.engine:
        remember_table(saved, table_of(new))
    return saved, upkeep


async def commit_game(store: Store, load: Callable[[], Awaitable[GameRecord | None]],
                      change: Callable[[GameRecord, float], GameRecord], *, retries: int = 2
                      ) -> tuple[GameRecord, GameRecord] | None:
    """Load a game, apply the pure ``change(record, now)`` and :func:`save` it
    with one compare-and-set at ``now``; on a lost race all again (the one
    loop, :func:`bot.store.commit.commit`).  Returns (before, after), the
    same record twice when ``change`` returned it unchanged, or None when
    ``load`` found no game.  ``change`` may raise :class:`Refusal`; after
    ``retries`` lost races: :class:`Refusal` (:data:`CHANGED`)."""
    now = clock.now()

    def step(record: GameRecord | None) -> GameRecord | None:
        nonlocal now
        if record is None:
            return None
        now = clock.now()  # the same moment for the change and its deadline
        return change(record, now)

    async def write(old: GameRecord | None, new: GameRecord | None) -> GameRecord:
        assert old is not None and new is not None  # ``step`` made ``new`` of ``old``
        return await save(store, old, new, now)

    try:
        before, after = await commit(load, step, write, retries=retries)
    except VersionConflict:
        raise Refusal(CHANGED) from None
    return None if before is None or after is None else (before, after)


async def load_current(store: Store, chat_id: int, data: Callback,
                       loaded: GameRecord | None = None) -> GameRecord:
    """The game a button names (in ``chat_id``) at the version it was drawn for
    or a newer one (an older drawing of a board whose redraw is on its way:
    :func:`bot.rules.taps.caught_up` says what such a tap may still do), else
    :class:`Refusal`.  A freshly posted message is drawn for the version its
    own save is about to create (:func:`bot.edge.handlers.board.repost`): a
    tap that arrives before that save lands waits for it a moment instead of
    being refused.  ``loaded``: that game as the caller has just read it."""
    record = loaded if loaded is not None else await store.games.load_game(chat_id, data.id)
    for _ in range(FUTURE_WAITS - 1):
        if record is None or record.version >= data.version:
            break
        await asyncio.sleep(0.02)
        record = await store.games.load_game(chat_id, data.id)
    if record is None or record.version < data.version:
        raise Refusal(STALE)
    expected = Kind.LOBBY if record.status is Status.LOBBY else Kind.GAME
    if data.kind is not expected and record.version == data.version:
        raise Refusal(STALE)
    return record
