"""Waking games up on time, with any number of bot processes sharing one Redis.

Every game with a running clock has one entry in the store's wake-up set
(``nardy:{deadlines:<shard>}:due``, sorted sets by time): each save puts it at the
deadline's first event (:func:`bot.vocab.clock.first_wake`).  Every process runs
:func:`tick` every few seconds (a PTB repeating job; nothing lives in
process memory between ticks):

1. ``claim_due`` atomically moves the due entries to ``processing`` with a
   lease, so each is handed to one process; if that process dies, the lease
   runs out and the entry is handed out again.
2. For each, :func:`wake` reads the game record (the truth: the entry is a
   hint), works out the stage that is due (:func:`bot.vocab.clock.due_stage`) and
   advances the deadline's *stage marker* (``nardy:{deadlines}:stage:<ref>``,
   ``<game id>:<deadline>:<stage>``) by compare-and-set.  Only the process
   whose compare-and-set wins acts (sends the reminder or the timeout
   offer), so even a wake-up delivered twice (a save re-adding the entry
   while it was claimed, an expired lease) acts once.  If acting fails, the
   marker is set back and the entry is not acked: it is retried after its
   lease.
3. The next stage's time is scheduled (never later than an entry a
   concurrent save just wrote), and the claim acked.

A new deadline (a move, more time, a resume) has a new marker value, so its
stages start from the beginning by themselves.

**Delayed turn pings** ride the same machinery: a change that makes a game wait
for a player who has not started the bot queues a "your turn" ping for the
record's version (``nardy:{deadlines}:pings``, due a while later,
``TURN_PING_DELAY``); :func:`ping_tick` claims the due ones with the same lease
and sends each only if the game is still at that version, i.e. nobody acted
meanwhile (a live game of two present players sends none).  Being in Redis, a
queued ping survives a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.store import Store
from bot.store.client import as_text
from bot.vocab import clock
from bot.vocab.records import GameRecord, GameRef, Status

log = logging.getLogger(__name__)

LEASE = 120.0
"""Seconds a claimed wake-up stays with the process that took it."""
STAGE_TTL = 30 * 24 * 3600
"""Stage markers expire (the longest period is 14 days)."""

# KEYS: the marker.  ARGV: value expected ('' for none), new value, TTL.
_ADVANCE = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
"""

Act = Callable[[GameRecord, int], Awaitable[None]]
"""Does what a stage means (remind, offer the win) for a game record."""
Ping = Callable[[GameRecord], Awaitable[None]]
"""Sends the "your turn" ping of a game record (still at the ping's version)."""


def stage_key(store: Store, ref: GameRef) -> str:
    return store.keys.stage(ref)


def marker(record: GameRecord, stage: int) -> str:
    """The stage marker of the record's current deadline.

    >>> from engine.position import Variant
    >>> game = GameRecord(chat_id=1, game_id="abcd", variant=Variant.LONG, deadline=7200.5)
    >>> marker(game, 2), done_stage("abcd:7200.5:2", game), done_stage("abcd:3600.0:2", game)
    ('abcd:7200.5:2', 2, 0)
    """
    return f"{record.game_id}:{record.deadline!r}:{stage}"


def done_stage(value: str, record: GameRecord) -> int:
    """The stages done for the record's current deadline (0 for an older deadline's marker)."""
    head, _, stage = value.rpartition(":")
    return int(stage) if head == marker(record, 0).rpartition(":")[0] else 0


def timed(record: GameRecord | None, ref: GameRef) -> int | None:
    """The time control of ``ref``'s game if its clock is running now, else None."""
    if (record is None or record.game_id != ref.game_id or record.status is not Status.ACTIVE
            or record.deadline is None or record.paused_at is not None):
        return None
    return record.options.time_control


async def _advance(store: Store, key: str, expected: str, new: str) -> bool:
    script = store.redis.register_script(_ADVANCE)  # cached by redis-py; EVALSHA after the first
    return bool(await script(keys=[key], args=[expected, new, STAGE_TTL]))


async def wake(store: Store, ref: GameRef, now: float, act: Act) -> int | None:
    """Handle one claimed wake-up; returns the stage acted on (None: nothing was due,
    or another process acted)."""
    record = await store.load_game(ref.chat_id, ref.game_id)
    limit = timed(record, ref)
    if record is None or limit is None or record.deadline is None:
        return None  # over, paused, replaced: the next save schedules again
    key = stage_key(store, ref)
    raw = await store.redis.get(key)
    before = "" if raw is None else as_text(raw)
    done = done_stage(before, record)
    stage = clock.due_stage(record.deadline, limit, done, now)
    acted = None
    if stage is not None:
        after = marker(record, stage)
        if not await _advance(store, key, before, after):
            return None  # another process took this stage; it schedules the next
        try:
            await act(record, stage)
        except BaseException:
            await _advance(store, key, after, before)  # let the retry act again
            raise
        done = acted = stage
    next_at = clock.next_wake(record.deadline, limit, done)
    if next_at is not None:
        await store.schedule(ref, next_at, lower_only=True)
    return acted


async def tick(store: Store, now: float, act: Act, *, lease: float = LEASE) -> list[int]:
    """Claim what is due and handle it; returns the stages acted on (for logs and tests)."""
    acted = []
    for claim in await store.claim_due(now=now, lease=lease):
        try:
            stage = await wake(store, claim.ref, now, act)
        except Exception:
            log.exception("clock of %s failed; it is retried after its lease", claim.ref)
            continue
        await store.ack(claim.ref)
        if stage is not None:
            acted.append(stage)
    return acted


async def ping_tick(store: Store, now: float, ping: Ping, *, lease: float = LEASE
                    ) -> list[GameRef]:
    """Claim the due turn pings and send those whose game is still at the
    version they were queued for; returns the games pinged.  A ping whose
    sending failed stays claimed and is handed out again after its lease."""
    sent = []
    for ref, version in await store.claim_pings(now=now, lease=lease):
        record = await store.load_game(ref.chat_id, ref.game_id)
        if record is not None and record.version == version and record.status.is_open:
            try:
                await ping(record)
            except Exception:
                log.exception("turn ping of %s failed; it is retried after its lease", ref)
                continue
            sent.append(ref)
        await store.ack_ping(ref, version)
    return sent
