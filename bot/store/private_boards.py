"""Which game a board message belongs to: in a private chat, and a group's
boards (a command sent as a reply to one acts on its game,
bot/edge/handlers/which.py).

A game's boards in private chats (:class:`bot.vocab.records.BoardViewRef`) carry
the same ``g:<game id>:<version>:...`` buttons as its chat's board, but a
tap there arrives from the private chat, not from the game's chat.  The
bot remembers, per private chat, board message id -> :class:`GameRef`
(a hash in the chat's slot, ``nardy:{chat:<id>}:views``); the button
handler looks the tapped message up and then applies the usual checks (the
message must still be one of the record's views, the version and the seat
must match), so an entry left behind can only lead to a refusal.
"""

from __future__ import annotations

from bot.store import Store
from bot.store.client import hset_expiring
from bot.vocab.records import GameRef

VIEWS_TTL = 180 * 24 * 3600
"""A private chat's map expires half a year after its last new board."""


def _key(store: Store, chat_id: int) -> str:
    return store.keys.chat(chat_id, "views")


async def remember(store: Store, chat_id: int, message_id: int, ref: GameRef) -> None:
    key = _key(store, chat_id)
    await hset_expiring(store.redis, key, {str(message_id): str(ref)}, VIEWS_TTL)


async def forget(store: Store, chat_id: int, message_id: int) -> None:
    await store.redis.hdel(_key(store, chat_id), str(message_id))


async def game_of(store: Store, chat_id: int, message_id: int) -> GameRef | None:
    """The game whose board ``message_id`` in private chat ``chat_id`` is, if any.

    Follows a group's migration to a supergroup (its games moved)."""
    raw = await store.redis.hget(_key(store, chat_id), str(message_id))
    if raw is None:
        return None
    ref = GameRef.parse(raw)
    moved = await store.moved_to(ref.chat_id)
    return ref if moved is None else GameRef(moved, ref.thread_id, ref.game_id)
