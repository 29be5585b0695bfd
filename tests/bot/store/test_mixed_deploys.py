"""Workers of the release before schema 2 beside this one (a rolling or mixed
deploy, a rollback and forward again) lose no game and handle each update once.

The old release's records are ``legacy_v1.json`` (tests/bot/store/test_schema.py);
its update markers and its own Lua scripts, verbatim, are ``release_v1.json``,
made by running that release (the commit it names) on fakeredis."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.store import Store, schema
from bot.store.client import as_text
from bot.vocab.records import GameRecord, Status, encode
from tests.bot.store.test_schema import FORUM, GROUP, KEYS, OLD, restore

RELEASE = json.loads((Path(__file__).parent / "release_v1.json").read_text())
SCRIPTS: dict[str, str] = RELEASE["scripts"]
MARKERS: dict[str, str] = RELEASE["markers"]


def forum_keys(chat: int) -> dict[str, dict[str, Any]]:
    return {name: entry for name, entry in KEYS.items() if f"{{chat:{chat}}}" in name}


async def test_games_an_old_worker_wrote_after_the_upgrade_are_found(store: Store) -> None:
    # the new release moved every chat and marked the store current ...
    await restore(store, {k: v for k, v in KEYS.items() if k not in forum_keys(FORUM)})
    await store.upgrade_schema()
    assert await schema.is_current(store.redis, store.keys)
    assert await store.games.chat_games(FORUM, 9) == []  # ... and looked at this chat
    # ... then a worker of the old release wrote the forum's games (rolled back, or
    # beside it), exactly as that release writes them
    await restore(store, forum_keys(FORUM))
    lobby, match = OLD[(FORUM, 9)], OLD[(FORUM, 12)]
    # a command lists the chat's games: the old worker's are among them
    assert [g.game_id for g in await store.games.chat_games(FORUM, 9)] == [lobby.game_id]
    # a tap names a game that is only under its old key: it is found, at its version
    found = await store.games.load_game(FORUM, match.game_id)
    assert found == match.model_copy(update={"schema_version": 2})
    assert await store.redis.exists(f"nardy:{{chat:{FORUM}}}:game:12") == 0
    assert await store.upgrade_schema() == 0  # the start-up pass finds nothing left
    assert await store.games.load_game(FORUM, OLD[(FORUM, 5)].game_id) is not None


async def test_an_old_worker_cannot_save_a_game_the_new_release_moved(store: Store) -> None:
    """No fork: the old worker loaded the game before it moved; its save (its
    own compare-and-set and finish scripts) finds no record at the old key and
    is refused, writing nothing, so it reloads and sees no game there."""
    await restore(store)
    await store.upgrade_schema()
    before = OLD[(GROUP, 0)]
    name, slots = f"nardy:{{chat:{GROUP}}}:game:0", f"nardy:{{chat:{GROUP}}}:slots"
    changed = encode(before.model_copy(update={"status": Status.CANCELLED}))
    cas = store.redis.register_script(SCRIPTS["cas"])
    code, _ = await cas(keys=[name, slots], args=[before.version, changed, "game:0"])
    assert code == 0
    finish = store.redis.register_script(SCRIPTS["finish"])
    keys = [name, slots] + [f"nardy:{{chat:{GROUP}}}:{k}"
                            for k in ("ledger", "history", "booked", "stats", "dice")]
    code, _ = await finish(keys=keys, args=[before.version, changed, "game:0", before.game_id,
                                            "{}", 10, 10, 0, 0, 0, 0])
    assert code == 0
    assert await store.redis.exists(name) == 0
    assert not await store.redis.sismember(slots, "game:0")
    after = await store.games.load_game(GROUP, before.game_id)
    assert isinstance(after, GameRecord) and after.status is before.status
    assert after.version == before.version


async def old_claim(store: Store, update_id: int) -> str:
    """The old release's claim of an update (its script, on its key)."""
    script = store.redis.register_script(SCRIPTS["claim_update"])
    state, _ = await script(keys=[f"nardy:update:{update_id}"], args=[120])
    return as_text(state)


async def test_an_update_an_old_worker_has_is_not_handled_again(store: Store) -> None:
    assert await old_claim(store, 7) == "new"
    assert await store.updates.claim_update("7:0a1b") == ("in_flight", 0)
    await store.redis.set("nardy:update:7", MARKERS["done"], ex=60)  # its settle: done
    assert await store.updates.claim_update("7:0a1b") == ("done", 0)


async def test_an_update_this_release_has_is_not_handled_by_an_old_worker(store: Store) -> None:
    assert await store.updates.claim_update("8:0a1b") == ("new", 1)
    assert await old_claim(store, 8) == "in_flight"
    await store.updates.settle_update("8:0a1b", 1, ok=True)
    assert await old_claim(store, 8) == "done"
    assert await store.updates.claim_update("8:0a1b") == ("done", 0)


async def test_failed_attempts_are_retried_by_either_release(store: Store) -> None:
    await store.redis.set("nardy:update:9", MARKERS["failed"], ex=60)  # the old one failed
    assert await store.updates.claim_update("9:0a1b") == ("new", 1)
    assert await old_claim(store, 9) == "in_flight"
    await store.updates.settle_update("9:0a1b", 1, ok=False)
    assert await old_claim(store, 9) == "new"  # the old release retries it (attempt 2)
    assert await store.updates.claim_update("9:0a1b") == ("in_flight", 0)


async def test_two_updates_with_one_id_stay_two_for_this_release(store: Store) -> None:
    """The old marker has no digest; this release's markers still tell them apart."""
    assert await store.updates.claim_update("10:aaaa") == ("new", 1)
    await store.updates.settle_update("10:aaaa", 1, ok=True)
    assert await store.updates.claim_update("10:bbbb") == ("new", 1)
