"""An update's identity from its JSON and the tapped keyboard cut to its button
(bot/edge/incoming.py): the identity is the one the ``Update`` object gives
(a webhook worker, a polling worker and a test's in-process update agree on
every kind of update the local Bot API server makes), and a handler still
tells a button on the tapped message from one that is not."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update

from bot.edge.handlers.common import drawn_here
from bot.edge.incoming import PollingRequest, identity, identity_of, polled_identity, trim
from tests.botapi import BotApiServer

pytestmark = pytest.mark.timeout(60)
PICTURE = Path(__file__).resolve().parents[3] / "docs" / "board-long-nardy.png"


KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("1", callback_data="g:x:1:m:1"),
                                   InlineKeyboardButton("2", callback_data="g:x:1:m:2")],
                                  [InlineKeyboardButton("☰", callback_data="g:x:1:o")]])


async def _every_kind(api: BotApiServer, bot: Bot) -> list[dict[str, Any]]:
    """Updates of every kind the local server makes: commands and text in a
    group, a forum topic and a private chat, replies, members joining and
    leaving, the bot added, taps on a text and a picture board, an inline query."""
    alice, bob = api.add_user("Alice", username="alice"), api.add_user("Bob")
    group = api.add_group("G", members=[alice, bob])
    api.user_sends(group, alice, "/new long stake=5")
    sent = api.user_sends(group, bob, "hello /rules@bot")
    api.user_sends(group, alice, "a reply", reply_to=sent.message_id)
    api.member_joins(group, api.add_user("Carol"))
    api.member_leaves(group, bob)
    forum = api.add_group("F", members=[alice], forum=True)
    topic = api.create_topic(forum, "games", by=alice)
    api.user_sends(forum, alice, "/new backgammon", thread_id=topic)
    api.user_sends(api.private_chat(alice), alice, "/start")
    api.add_bot(api.add_group("H", members=[alice], bot_status="left"), by=alice)
    text = await bot.send_message(group.id, "<b>board</b>", parse_mode="HTML",
                                  reply_markup=KEYBOARD)
    api.user_taps(group, alice, text, "g:x:1:m:2")
    picture = await bot.send_photo(group.id, PICTURE.read_bytes(), caption="board",
                                   reply_markup=KEYBOARD)
    api.user_taps(group, alice, picture, "g:x:1:o")
    api.set_inline(True)
    api.user_inline_query(api.user_chat(alice, bob), alice, "long match=3")
    return copy.deepcopy(api.updates())


async def test_the_identity_of_the_json_is_the_objects() -> None:
    with BotApiServer() as api:
        async with Bot(api.token or "", base_url=api.base_url) as bot:
            updates = await _every_kind(api, bot)
    kinds = {next(k for k in data if k != "update_id") for data in updates}
    assert {"message", "callback_query", "inline_query", "my_chat_member"} <= kinds, kinds
    for data in updates:
        assert identity_of(data) == identity(Update.de_json(copy.deepcopy(data), None)), data


@given(st.integers(0, 2**40), st.text(max_size=20), st.text(max_size=20))
def test_updates_that_differ_have_other_identities(update_id: int, first: str,
                                                   second: str) -> None:
    def tap(data: str) -> dict[str, Any]:
        return {"update_id": update_id, "callback_query": {
            "id": "7", "chat_instance": "1", "data": data,
            "from": {"id": 2, "is_bot": False, "first_name": "A"}}}

    assert (identity_of(tap(first)) == identity_of(tap(second))) == (first == second)
    assert identity_of(tap(first)).startswith(f"{update_id}:")


def _tap(data: str, rows: list[list[tuple[str, str]]]) -> dict[str, Any]:
    return {"update_id": 9, "callback_query": {
        "id": "5", "chat_instance": "1", "data": data,
        "from": {"id": 2, "is_bot": False, "first_name": "A"},
        "message": {"message_id": 3, "date": 0, "chat": {"id": -1, "type": "group"},
                    "from": {"id": 1, "is_bot": True, "first_name": "Bot"}, "text": "board",
                    "reply_markup": {"inline_keyboard": [
                        [{"text": text, "callback_data": d} for text, d in row]
                        for row in rows]}}}}


@pytest.mark.parametrize("tapped", ["g:x:1:m:2", "g:x:1:o", "g:y:1:m:2", "c:x:p"])
def test_a_trimmed_tap_is_drawn_here_as_before(tapped: str) -> None:
    """Whether the tapped button is on the tapped message (issue 21's check) does
    not change when its keyboard is cut to that button."""
    rows = [[("1", "g:x:1:m:1"), ("2", "g:x:1:m:2")], [("☰", "g:x:1:o")]]
    whole, cut = _tap(tapped, rows), _tap(tapped, rows)
    assert trim(cut)
    before = drawn_here(Update.de_json(whole, None).callback_query)  # type: ignore[arg-type]
    after = drawn_here(Update.de_json(cut, None).callback_query)  # type: ignore[arg-type]
    assert before == after == tapped.startswith("g:x:")
    assert len(json.dumps(cut)) < len(json.dumps(whole))


async def test_polling_notes_each_identity_and_trims_the_tap() -> None:
    """The getUpdates client: each update's identity as its whole JSON gives
    it, and PTB is handed the tap with its keyboard cut."""
    with BotApiServer() as api:
        alice = api.add_user("Alice")
        group = api.add_group("G", members=[alice])
        request = PollingRequest()
        async with Bot(api.token or "", base_url=api.base_url,
                       get_updates_request=request) as bot:
            message = await bot.send_message(group.id, "board", reply_markup=KEYBOARD)
            api.user_taps(group, alice, message, "g:x:1:m:2")
            api.user_sends(group, alice, "/rules")
            sent = copy.deepcopy(api.updates())
            updates = await bot.get_updates(timeout=0)
        app = type("App", (), {"bot_data": {"http": (request,)}})()
        assert len(updates) == len(sent) == 2
        for data, update in zip(sent, updates, strict=True):
            assert polled_identity(app, update) == identity_of(data)
        assert polled_identity(app, updates[0]) is None  # taken once
        query = updates[0].callback_query
        assert query is not None and isinstance(query.message, Message)
        markup = query.message.reply_markup
        assert markup is not None and [[b.callback_data for b in row]
                                       for row in markup.inline_keyboard] == [["g:x:1:m:2"]]
