"""Moving stored data to the current schema: game records of schema 1 to 2.

Schema 1 (before issue 18) kept one game per chat or forum topic, at
``nardy:{chat:<id>}:game:<topic or 0>``, listed in the chat's ``slots`` set.
Schema 2 keeps each game under its own id, ``nardy:{chat:<id>}:g:<game id>``,
in the chat's ``live`` or ``ended`` index (bot/store/layout.py).  A record's
JSON needs no change (``next_game`` is new and unset, see
``MIGRATIONS`` in bot/vocab/records.py); its key, its index entry, its
expiry if it ended, and its "your turn" ping (``notify:<topic>`` →
``ping:<game id>``) do.  The game id, the CAS version and the versions its
board messages show (the ``s:`` fields) stay, so the buttons of boards
posted before the upgrade go on working; user index, deadline and view
entries name games by ``<chat>:<topic>:<game id>``, which still finds them.

Each record moves in one Lua script in its chat's slot (:data:`_MOVE`): only
if its version is still the one read (else it is read again), only if its
new key is free; a record moved already is simply not found.  So any
number of workers may move the same chat at once, and a crash between two
records leaves a chat whose moved games work and whose others move next time.

When: :func:`upgrade_all` runs at start-up in the background (every chat with
a schema 1 record, found by ``SCAN``; then ``nardy:schema`` says 2 and later
start-ups skip the scan), and :meth:`bot.store.games.Games.upgrade_chat` runs
first whenever a chat's games are looked up before that (a tap, a command),
so nothing waits for the scan.  ``upgrade_chat`` runs on every such look,
even after the mark: a worker of the old release (a mixed deploy, a
rollback) may write schema 1 records again, and they move the next time
their chat or game is looked at.  A game both touched does not fork: the
move renames its old key away, so the old worker's compare-and-set finds no
record there and is refused (tests/bot/store/test_mixed_deploys.py).
"""

from __future__ import annotations

import logging
import re
import time

from bot.store.client import RedisClient, as_text
from bot.store.keys import Keys
from bot.store.layout import ENDED_TTL, PLACE, placement
from bot.vocab.records import GAME_SCHEMA, CorruptRecordError, GameRecord, decode, encode, game_key

log = logging.getLogger(__name__)

LEGACY_SUFFIX = re.compile(r"game:([0-9]{1,12})")
"""A schema 1 game's name in its chat's ``slots`` set: ``game:<topic or 0>``."""
RETRIES = 10
"""Reads of one record that changed before it could be moved (a tap at that moment)."""

# KEYS: the schema 1 record, its new key, slots, live, ended, the old ping, the new ping.
# ARGV: the version read, the JSON to store, the old suffix, game id, where, topic, now,
# ttl.  Returns {1, version} moved, {0, ''} nothing there (moved already),
# {2, version} changed since read, {3, ''} the new key is taken.
_MOVE = PLACE + """
local cur = redis.call('HGET', KEYS[1], 'v')
if not cur then return {0, ''} end
if cur ~= ARGV[1] then return {2, cur} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {3, ''} end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[2], 'd', ARGV[2])
redis.call('SREM', KEYS[3], ARGV[3])
place(KEYS[2], KEYS[4], KEYS[5], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
if redis.call('EXISTS', KEYS[6]) == 1 then redis.call('RENAME', KEYS[6], KEYS[7]) end
return {1, cur}
"""


async def legacy_suffixes(redis: RedisClient, keys: Keys, chat_id: int) -> list[str]:
    """The chat's schema 1 game records, by their names in its ``slots`` set."""
    members = await redis.smembers(keys.chat(chat_id, "slots"))
    return sorted(s for s in map(as_text, members) if LEGACY_SUFFIX.fullmatch(s))


async def upgrade_chat(redis: RedisClient, keys: Keys, chat_id: int) -> int:
    """Move the chat's schema 1 game records; returns how many this call moved.

    Raises :class:`CorruptRecordError` for a record that does not read (it is
    left as it is, the chat's other records are moved first) or whose new key
    is taken."""
    moved, failed = 0, None
    for suffix in await legacy_suffixes(redis, keys, chat_id):
        try:
            moved += await _move(redis, keys, chat_id, int(suffix.partition(":")[2]))
        except CorruptRecordError as error:
            log.error("cannot move %s to schema %s: %s", error.key, GAME_SCHEMA, error.reason)
            failed = failed or error
    if failed is not None:
        raise failed
    return moved


async def _move(redis: RedisClient, keys: Keys, chat_id: int, topic: int) -> int:
    name = keys.legacy_game(chat_id, topic)
    slots = keys.chat(chat_id, "slots")
    script = redis.register_script(_MOVE)  # cached by redis-py: EVALSHA after the first
    for _ in range(RETRIES):
        version, raw = await redis.hmget(name, ["v", "d"])
        if version is None:  # moved by another worker, or left behind in `slots`
            if not await redis.exists(name):
                await redis.srem(slots, f"game:{topic}")
                return 0
            raise CorruptRecordError(name, "a hash without a version")
        try:
            number = int(as_text(version))
        except ValueError:
            raise CorruptRecordError(name, f"version is {version!r}, not an integer") from None
        record: GameRecord = decode(GameRecord, name, raw, number)
        if record.chat_id != chat_id or (record.thread_id or 0) != topic:
            raise CorruptRecordError(name, "record names another chat or topic")
        new = keys.record(game_key(chat_id, record.game_id))
        code, _ = await script(keys=[
            name, new, slots, keys.live(chat_id), keys.ended(chat_id),
            keys.legacy_ping(chat_id, topic), keys.ping(chat_id, record.game_id),
        ], args=[number, encode(record), f"game:{topic}", record.game_id, *placement(record),
                 time.time(), ENDED_TTL])
        if code == 1:
            log.info("moved %s to %s (schema %s)", name, new, GAME_SCHEMA)
            return 1
        if code == 0:
            return 0
        if code == 3:
            raise CorruptRecordError(name, f"its game's key {new} is taken")
    raise CorruptRecordError(name, f"it changed {RETRIES} times while being moved")


async def upgrade_all(redis: RedisClient, keys: Keys, batch: int = 500) -> int:
    """Move every chat's schema 1 game records (see the module doc); returns
    how many were moved.  Marks ``nardy:schema`` when none is left, so the
    next start-up skips the scan.  A record that cannot move is logged and
    left; the scan goes on."""
    if await is_current(redis, keys):
        return 0
    moved, clean = 0, True
    found = re.compile(rf"{re.escape(keys.prefix)}:\{{chat:(-?[0-9]+)\}}:slots")
    async for key in redis.scan_iter(match=f"{keys.prefix}:{{chat:*}}:slots", count=batch):
        chat = found.fullmatch(as_text(key))
        if chat is None:
            continue
        try:
            moved += await upgrade_chat(redis, keys, int(chat.group(1)))
        except CorruptRecordError:
            clean = False  # logged by upgrade_chat; the next start-up tries again
    if clean:
        await redis.set(keys.schema, GAME_SCHEMA)
    log.info("schema %s: %s game records moved%s", GAME_SCHEMA, moved,
             "" if clean else "; some could not be moved (see above)")
    return moved


async def is_current(redis: RedisClient, keys: Keys) -> bool:
    """True once a full pass left no schema 1 game record (``nardy:schema``)."""
    value = await redis.get(keys.schema)
    return value is not None and int(as_text(value)) >= GAME_SCHEMA
