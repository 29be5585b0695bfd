"""The computer opponent's memory of each person (``store.computer``): where they
stand on ``level=auto``'s ladder, per variant, in every chat.

    nardy:{user:<uid>}:auto    hash "<variant>" -> AutoStanding JSON (bot/vocab/records.py)

One hash per person, in the person's slot beside their game index.  A game's
end cannot move it in the script that books the end (that script writes the
chat's slot: on a Redis Cluster one script reaches one slot), so the move is
keyed by the game instead: the standing keeps the refs of the last games that
moved it (:data:`MOVED_BY_KEPT`), and :meth:`Computer.move` changes it with one
compare-and-set on the JSON read, never for a game already among them.  A
duplicate delivery of the final tap, a retried update (bot/service/ending.py
``after_end``) or two workers at once move it once: the loser of a race
reads again and finds its game there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from bot.store.client import RedisClient, as_text, idempotent
from bot.store.commit import commit
from bot.store.keys import Keys
from bot.vocab.records import AutoStanding, VersionConflict, decode, encode
from engine.position import Variant

MOVED_BY_KEPT = 32
"""The games remembered per person and variant against a second move: a
game's end is delivered again within a day (Telegram's redelivery, a retried
update), long before 32 more games against the computer end, one at a time."""

RETRIES = 30
"""Lost races :meth:`Computer.move` reads again after (two of the person's
games ending at the same moment in two chats)."""

AutoMove = Callable[[AutoStanding | None], AutoStanding]
"""Pure: the standing before the game (None: the person's first at auto) ->
after it (bot/rules/computer.py ``auto_moved``)."""

# KEYS: the person's auto hash.  ARGV: the variant's field, the JSON read ('' none),
# the new JSON.  Returns 1 (written) or 0 (it changed since read: nothing written).
_MOVE = """
if (redis.call('HGET', KEYS[1], ARGV[1]) or '') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""


class Computer:
    """What the computer remembers of each person (a part of
    :class:`bot.store.Store`: ``store.computer``)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._move = redis.register_script(_MOVE)

    async def standing(self, user_id: int, variant: Variant) -> AutoStanding | None:
        """Where ``user_id`` stands at auto in ``variant`` (None: never played it)."""
        return (await self._read(user_id, variant))[1]

    async def standings(self, user_id: int) -> list[AutoStanding]:
        """Their standing in each variant they played at auto (for /stats)."""
        name = self.keys.auto(user_id)
        raw = await self.redis.hgetall(name)
        found = [decode(AutoStanding, f"{name}[{as_text(field)}]", value)
                 for field, value in raw.items()]
        return sorted(found, key=lambda s: s.variant.value)

    async def move(self, user_id: int, variant: Variant, game: str, moved: AutoMove) -> bool:
        """Move the standing by the end of ``game`` (its ref) with the pure
        ``moved``, unless that game moved it before.  True: moved by this
        call; False: by an earlier one (nothing written)."""
        Read = tuple[str, AutoStanding | None]  # the JSON as stored, and its standing

        async def load() -> Read:
            return await self._read(user_id, variant)

        def change(before: Read) -> Read:
            raw, standing = before
            if standing is not None and game in standing.moved_by:
                return before  # this game's end was delivered again: moved once
            after = moved(standing)
            return raw, after.model_copy(update={
                "moved_by": (*after.moved_by, game)[-MOVED_BY_KEPT:]})

        async def save(before: Read, after: Read) -> Read:
            assert after[1] is not None
            # a repeat of the script (its reply lost) finds its own write and says 0:
            # the next load finds the game among moved_by and moves nothing more
            written = await idempotent(functools.partial(
                self._move, keys=[self.keys.auto(user_id)],
                args=[variant.value, before[0], encode(after[1])]))
            if not int(written):
                raise VersionConflict(self.keys.auto(user_id), 0, "changed since read")
            return after

        before, after = await commit(load, change, save, retries=RETRIES)
        return after is not before

    async def _read(self, user_id: int, variant: Variant) -> tuple[str, AutoStanding | None]:
        """The variant's JSON as stored ('' none) and its standing."""
        name = self.keys.auto(user_id)
        raw = await self.redis.hget(name, variant.value)
        if raw is None:
            return "", None
        return as_text(raw), decode(AutoStanding, f"{name}[{variant.value}]", raw)
