"""The tournament handlers' tests make no edit the Bot API refuses as
"message is not modified" (issue 36): the bot suppresses that error, so
without this check an identical edit - a wasted call against the chat's
flood limit - passes unseen."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

GUARDED = ("test_tournament",)
"""Modules (by name prefix) whose tests are checked."""


@pytest.fixture(autouse=True)
def no_unchanged_edits(request: pytest.FixtureRequest) -> Iterator[None]:
    guarded = request.module.__name__.rpartition(".")[2].startswith(GUARDED) \
        and "world" in request.fixturenames
    world = request.getfixturevalue("world") if guarded else None   # torn down after this
    yield
    if world is not None:
        assert [(r.method, r.params.get("chat_id"), r.params.get("message_id"))
                for r in world.server.unchanged_edits()] == []
