"""A game ended in a store test as only the books may end one (the raw
compare-and-set refuses: :class:`bot.store.UnbookedEnd`)."""

from __future__ import annotations

from bot.store import Store
from bot.vocab.records import GameRecord, HistoryEntry, Status


async def end(store: Store, record: GameRecord, expected: int,
              status: Status = Status.CANCELLED) -> GameRecord:
    """``record`` saved over version ``expected`` as finished or cancelled, with
    its history line and nothing staked; the record as stored."""
    done = record.model_copy(update={"status": status})
    entry = HistoryEntry(game_id=record.game_id, thread_id=record.thread_id,
                         variant=record.variant, players=record.players,
                         result="cancelled" if status is Status.CANCELLED else "single")
    return (await store.ledger.finish_game(done, expected, entry)).record
