"""Where an inline game is kept: keyed by its message's ``inline_message_id``.

A game played on a message sent "via @bot" (inline mode) has no chat the bot
knows: a tap on it brings only the ``inline_message_id``.  The game lives
under a synthetic chat id made from that id (48 bits of its SHA-256 below
:data:`bot.vocab.records.INLINE_CHAT_BASE`), so each inline message's game has
its own hash tag, ``nardy:{chat:<synthetic id>}:…``: record, history, stats and
booked ids in one slot, booked by the same atomic finish as every game.  The
record keeps the ``inline_message_id`` itself, and a record found under the
hash of another id (a 48-bit collision) is not taken for it.

This is the only place that knows how an inline game is keyed.

>>> inline_chat_id("AgAAAxyz") == inline_chat_id("AgAAAxyz") != inline_chat_id("AgAAAxyw")
True
>>> from bot.vocab.records import INLINE_CHAT_BASE, is_private_game_chat
>>> INLINE_CHAT_BASE - 2**48 < inline_chat_id("AgAAAxyz") <= INLINE_CHAT_BASE
True
>>> is_private_game_chat(inline_chat_id("AgAAAxyz"))
True
"""

from __future__ import annotations

import base64
import hashlib

from bot.store.games import Games
from bot.vocab.records import INLINE_CHAT_BASE, GameRecord


def inline_chat_id(inline_message_id: str) -> int:
    """The synthetic chat id of the game on this inline message."""
    digest = hashlib.sha256(inline_message_id.encode()).digest()
    return INLINE_CHAT_BASE - int.from_bytes(digest[:6], "big")


def lobby_id(inline_message_id: str) -> str:
    """The game id of an inline message's lobby: made from the message's id,
    so the two ways a lobby is first stored (the chosen result's feedback, the
    first Join) make the same record, and only one lands.

    >>> lobby_id("AgAAAxyz") == lobby_id("AgAAAxyz") != lobby_id("AgAAAxyw"), len(lobby_id("A"))
    (True, 8)
    """
    digest = hashlib.sha256(b"lobby:" + inline_message_id.encode()).digest()
    return base64.urlsafe_b64encode(digest[:6]).decode()


class Inline:
    """Inline games by their message (a part of :class:`bot.store.Store`: ``store.inline``)."""

    def __init__(self, games: Games) -> None:
        self.games = games

    async def game(self, inline_message_id: str) -> GameRecord | None:
        """The game (or lobby) an inline message shows now, None if it has none
        yet: the live one of its chat (a rematch continues the game there under a
        new id), else the newest ended one."""
        for record in await self.games.chat_games(inline_chat_id(inline_message_id)):
            if record.inline_message_id == inline_message_id:
                return record
        return None
