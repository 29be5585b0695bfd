"""Invitations to a private game: one-use, expiring, unguessable deep links.

``/invite`` stores an :class:`Invitation` under a fresh token and hands out
``t.me/<bot>?start=i<token>``; whoever opens it redeems the token and plays
the inviter in a private game.  The token is ``secrets.token_urlsafe(16)``:
128 random bits in 22 characters of ``[A-Za-z0-9_-]`` (a deep-link payload
allows 64 of those).

Keys (one hash slot per token, so the redeeming script may touch both)::

    nardy:{invite:<token>}:offer   hash {u: inviter id, d: Invitation JSON}, expires
    nardy:{invite:<token>}:used    "<redeemer id>:<Invitation JSON>", kept a week

Redeeming is one Lua script: it reads the offer, refuses the inviter
themselves without using the link up, else deletes the offer and marks it
used, so two people opening the link at the same moment cannot both get
the game.  A link that is neither offered nor marked used has expired (or
never existed; the two cannot be told apart, nor need to be).

The used mark keeps the invitation, and the game's chat id follows from
the token (:func:`game_chat_id`), so the redeemer opening the link again
(or Telegram delivering the ``/start`` again after the bot died between
using the link up and saving the game) can tell whether the game exists
and start it if not: a used link never leaves its redeemer without a game.

>>> payload = invite_payload("AAAAAAAAAAAAAAAAAAAAAA")
>>> payload, token_of(payload), token_of("games"), token_of("i" + "A" * 21)
('iAAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAA', None, None)
"""

from __future__ import annotations

import base64
import enum
import hashlib
import re
import secrets
import time
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from bot.store.client import RedisClient, as_text, hset_expiring
from bot.store.keys import Keys
from bot.vocab.records import (
    PRIVATE_CHAT_BASE,
    SCHEMA_VERSION,
    DiceState,
    TableOptions,
    decode,
)
from engine.position import Variant

INVITE_TTL = 24 * 3600
"""An invitation link works for 24 hours."""
USED_TTL = 7 * 24 * 3600
"""How long a used link still answers "already used" (then: expired)."""
TOKEN_BYTES = 16
PREFIX = "i"
"""Deep-link payloads starting with this are invitations (``/start i<token>``)."""
_PAYLOAD = re.compile(rf"{PREFIX}([A-Za-z0-9_-]{{22}})")  # fullmatch: "$" allows a final "\n"

# KEYS: offer, used.  ARGV: redeemer id, seconds to remember the use.
# Returns {'ok', JSON}, {'own', ''}, {'used', "<redeemer id>[:JSON]"} or
# {'expired', ''} (marks written before the JSON was kept hold only the id).
_REDEEM = """
local inviter = redis.call('HGET', KEYS[1], 'u')
if not inviter then
  local used = redis.call('GET', KEYS[2])
  if used then return {'used', used} end
  return {'expired', ''}
end
if inviter == ARGV[1] then return {'own', ''} end
local data = redis.call('HGET', KEYS[1], 'd')
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1] .. ':' .. data, 'EX', tonumber(ARGV[2]))
return {'ok', data}
"""


class Invitation(BaseModel):
    """What an invitation offers: a game of ``variant`` with ``options`` against ``inviter``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = SCHEMA_VERSION
    token: str = Field(pattern=r"^[A-Za-z0-9_-]{22}$")
    inviter: int
    name: str
    language: str | None = Field(default=None, description="the inviter's Telegram language")
    variant: Variant
    options: TableOptions = TableOptions()
    created_at: float = Field(default_factory=time.time)
    dice: DiceState | None = Field(default=None, description="the game's dice, committed "
                                   "with the invitation (bot/rules/dice.py)")


class RedeemOutcome(enum.StrEnum):
    OK = "ok"
    OWN = "own"
    USED = "used"
    EXPIRED = "expired"


@dataclass(frozen=True)
class Redemption:
    """What opening a link did: ``invitation`` with OK (and with USED when
    known), ``used_by`` with USED."""

    outcome: RedeemOutcome
    invitation: Invitation | None = None
    used_by: int | None = None


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def invite_payload(token: str) -> str:
    return PREFIX + token


def token_of(payload: str) -> str | None:
    """The token of an invitation payload; None for any other ``/start`` payload."""
    match = _PAYLOAD.fullmatch(payload)
    return match.group(1) if match else None


def link(bot_username: str, token: str) -> str:
    return f"https://t.me/{bot_username}?start={invite_payload(token)}"


def game_chat_id(token: str) -> int:
    """The synthetic chat id of the private game an invitation starts: 48
    bits of the token's SHA-256, so every attempt to start it names the same
    game (see the module doc).

    >>> from bot.vocab.records import is_private_game_chat
    >>> game_chat_id("A" * 22) == game_chat_id("A" * 22) != game_chat_id("B" * 22)
    True
    >>> is_private_game_chat(game_chat_id("A" * 22))
    True
    """
    digest = hashlib.sha256(token.encode()).digest()
    return PRIVATE_CHAT_BASE - int.from_bytes(digest[:6], "big")


def game_id_of(token: str) -> str:
    """The id of the game an invitation starts: from the token too, so a
    second start (the link opened again, the update delivered again) finds
    the game instead of making another.

    >>> game_id_of("A" * 22) == game_id_of("A" * 22) != game_id_of("B" * 22), len(game_id_of("A"))
    (True, 8)
    """
    digest = hashlib.sha256(b"game:" + token.encode()).digest()
    return base64.urlsafe_b64encode(digest[:6]).decode()


class Invites:
    """Invitations (a part of :class:`bot.store.Store`: ``store.invite``)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._redeem = redis.register_script(_REDEEM)

    async def offer(self, invitation: Invitation, ttl: int = INVITE_TTL) -> None:
        """Store a new invitation; it expires after ``ttl`` seconds."""
        key = self.keys.invite(invitation.token)[0]
        await hset_expiring(self.redis, key, {"u": str(invitation.inviter),
                                              "d": invitation.model_dump_json()}, ttl)

    async def load(self, token: str) -> Invitation | None:
        """The invitation under ``token``, offered or already used; None once expired."""
        keys = self.keys.invite(token)
        offered = await self.redis.hget(keys[0], "d")
        if offered is not None:
            invitation: Invitation = decode(Invitation, keys[0], as_text(offered))
            return invitation
        _, _, data = as_text(await self.redis.get(keys[1]) or b"").partition(":")
        if not data:
            return None
        used: Invitation = decode(Invitation, keys[1], data)
        return used

    async def redeem(self, token: str, user_id: int, used_ttl: int = USED_TTL) -> Redemption:
        """Use the invitation up for ``user_id`` (atomically; see the module doc)."""
        keys = self.keys.invite(token)
        state, value = await self._redeem(keys=keys, args=[user_id, used_ttl])
        outcome = RedeemOutcome(as_text(state))
        if outcome is RedeemOutcome.OK:
            return Redemption(outcome, invitation=decode(Invitation, keys[0], as_text(value)))
        if outcome is RedeemOutcome.USED:
            by, _, data = as_text(value).partition(":")
            invitation = decode(Invitation, keys[1], data) if data else None
            return Redemption(outcome, invitation=invitation, used_by=int(by))
        return Redemption(outcome)
