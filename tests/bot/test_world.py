"""The handler tests' world waits for the bot by what it has done, never by a
time: ``World.idle`` (tests/bot/conftest.py) waits until every update sent
was fetched, queued and handled, however late a loaded machine gets to it.
(It used to return once nothing had changed for 50 ms: under load, a command
whose update had not reached the bot yet looked answered by nothing, and
tests/bot/edge/handlers/test_user_input.py's hostile-arguments test failed now and then.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import _setup


async def test_idle_waits_for_an_update_the_bot_fetches_late(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = world.app.update_queue
    put = queue.put

    async def late(update: Any) -> None:  # a loaded machine: the poll's answer is read late
        await asyncio.sleep(0.5)
        await put(update)

    monkeypatch.setattr(queue, "put", late)
    t = _setup(world)
    for _ in range(3):
        sent = await world.send(t.chat, t.alice, "/rules")
        await world.idle()
        assert [m for m in world.server.messages(t.chat)
                if m.by_bot and m.message_id > sent.message_id], world.server.transcript(t.chat)
