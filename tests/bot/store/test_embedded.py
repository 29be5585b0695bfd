"""The embedded Redis (no REDIS_URL): games survive a restart on the same DATA_DIR."""

from __future__ import annotations

from pathlib import Path

from bot.store import Store
from bot.store.connection import open_redis
from tests.bot.store.test_store import CHAT, new_game


async def test_a_saved_game_survives_a_restart(tmp_path: Path) -> None:
    async with open_redis(None, tmp_path) as redis:
        config = await redis.config_get("append*")
        assert (config["appendonly"], config["appendfsync"]) == ("yes", "everysec")
        saved = await Store(redis).games.save(new_game(thread=3), 0)
    assert any(path.name.startswith("appendonly") for path in tmp_path.iterdir())
    async with open_redis(None, tmp_path) as redis:
        assert await Store(redis).games.load_game(CHAT, saved.game_id) == saved
