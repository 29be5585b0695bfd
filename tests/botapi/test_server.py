"""The local Bot API server, exercised with python-telegram-bot's own client.

If PTB parses what the server sends and raises the same exceptions it raises against
Telegram, the bot under end-to-end test meets production behaviour.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Update
from telegram.error import BadRequest, ChatMigrated, Conflict, Forbidden, InvalidToken, RetryAfter

from bot.edge.http import AiohttpRequest
from tests.botapi import BotApiServer, BotProcess, BotProcessError, Chat, User
from tests.botapi.formatting import ParseError, parse_html

pytestmark = pytest.mark.timeout(30)


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows])


def png(width: int = 4, height: int = 3) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def server() -> Iterator[BotApiServer]:
    with BotApiServer() as s:
        yield s


@pytest.fixture(params=["httpx", "aiohttp"])
async def bot(server: BotApiServer, request: pytest.FixtureRequest) -> AsyncIterator[Bot]:
    """PTB's own client, and the bot's (bot/edge/http.py): both must see the same."""
    clients = {} if request.param == "httpx" else {
        "request": AiohttpRequest(8), "get_updates_request": AiohttpRequest(1)}
    async with Bot(server.token or "", base_url=server.base_url,
                   base_file_url=server.base_file_url, **clients) as b:  # type: ignore[arg-type]
        yield b


@pytest.fixture
def alice(server: BotApiServer) -> User:
    return server.add_user("Alice", username="alice", language_code="ru")


@pytest.fixture
def private(server: BotApiServer, alice: User) -> Chat:
    return server.private_chat(alice)


async def test_get_me_describes_the_configured_bot(server: BotApiServer, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (server.bot.id, "nardy_test_bot", True)
    assert me.can_read_all_group_messages is False  # privacy mode, like Telegram's default


async def test_wrong_token_is_unauthorized(server: BotApiServer) -> None:
    wrong = Bot("1:wrong", base_url=server.base_url)
    with pytest.raises(InvalidToken):
        await wrong.initialize()  # calls getMe
    await wrong.shutdown()
    assert server.requests("getMe")[0].status == 401


def test_unknown_method_is_404(server: BotApiServer) -> None:
    request = urllib.request.Request(f"{server.base_url}{server.token}/sendHologram", data=b"")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    assert caught.value.code == 404
    assert json.loads(caught.value.read()) == {
        "ok": False, "error_code": 404, "description": "Not Found: method not found"}


SERVED = {
    "chats.py": {"getChat", "getChatMember", "getChatAdministrators", "getChatMemberCount",
                 "leaveChat"},
    "messages.py": {"sendMessage", "editMessageText", "editMessageCaption",
                    "editMessageReplyMarkup", "deleteMessage", "deleteMessages", "pinChatMessage",
                    "unpinChatMessage", "unpinAllChatMessages", "sendChatAction"},
    "media.py": {"sendPhoto", "sendDocument", "editMessageMedia", "getFile"},
    "callbacks.py": {"answerCallbackQuery"},
    "inline.py": {"answerInlineQuery"},
    "updates.py": {"getUpdates", "setWebhook", "deleteWebhook", "getWebhookInfo"},
    "profile.py": {"getMe", "setMyCommands", "getMyCommands", "deleteMyCommands",
                   "setMyDescription", "getMyDescription", "setMyShortDescription",
                   "getMyShortDescription", "setMyName", "getMyName", "setChatMenuButton",
                   "setMyDefaultAdministratorRights", "logOut", "close"},
}
"""The Bot API methods the server knows, by the module of the concern that serves them."""


def test_each_method_is_served_by_its_concern(server: BotApiServer) -> None:
    """The server is one mixin per concern (tests/botapi/server.py): a mixin left out
    of BotApiServer, or a method moved to another concern, shows here, not as a 404
    somewhere in an end-to-end test."""
    served = {name: handler.__func__.__module__.rsplit(".", 1)[-1] + ".py"
              for name, handler in server._methods.items()}
    expected = {method.lower(): module for module, methods in SERVED.items()
                for method in methods}
    assert served == expected


def test_json_body_is_accepted(server: BotApiServer, private: Chat) -> None:
    request = urllib.request.Request(
        f"{server.base_url}{server.token}/sendMessage",
        data=json.dumps({"chat_id": private.id, "text": "123"}).encode(),
        headers={"Content-Type": "application/json"})
    answer = json.loads(urllib.request.urlopen(request).read())
    assert answer["ok"] and answer["result"]["text"] == "123"
    assert server.last_message(private).text == "123"  # a digit string stays a string


def _multipart(server: BotApiServer, method: str, body: bytes,
               boundary: str = "b0undary") -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{server.base_url}{server.token}/{method}", data=body,
        headers={"Content-Type": f'multipart/form-data; boundary="{boundary}"'})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_multipart_form_is_split_on_its_boundary(server: BotApiServer, private: Chat) -> None:
    document = b"line\r\n--b0undar\r\n\r\nmore"  # looks like a delimiter, is not one
    body = (b'--b0undary\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n'
            + str(private.id).encode() + b"\r\n"
            b'--b0undary\r\nContent-Disposition: form-data; name="caption"\r\n\r\n'
            b"a; b=\"c\"\r\n\r\nd\r\n"
            b'--b0undary\r\nContent-Disposition: form-data; name="document"; '
            b'filename="my \\"game\\".txt"\r\nContent-Type: text/plain\r\n\r\n'
            + document + b"\r\n--b0undary--\r\n")
    status, answer = _multipart(server, "sendDocument", body)
    assert status == 200, answer
    stored = server.last_message(private)
    assert (stored.document_bytes, stored.document_name, stored.caption) == (
        document, 'my "game".txt', 'a; b="c"\r\n\r\nd')


@pytest.mark.parametrize("body", [
    b"no delimiter at all",
    b'--b0undary\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n1\r\n',  # no end
    b"--b0undary\r\nContent-Disposition: form-data\r\n\r\n1\r\n--b0undary--",  # no name
    b"--b0undary\r\nbroken header\r\n\r\n1\r\n--b0undary--",
])
def test_malformed_multipart_is_a_bad_request(server: BotApiServer, body: bytes) -> None:
    status, answer = _multipart(server, "sendDocument", body)
    assert (status, answer["ok"]) == (400, False)
    assert "multipart" in answer["description"]


async def test_send_edit_delete_are_stored(server: BotApiServer, bot: Bot,
                                           private: Chat) -> None:
    sent = await bot.send_message(private.id, "<b>Your move</b>", parse_mode="HTML",
                                  reply_markup=keyboard([("Roll", "roll")]))
    assert sent.text == "Your move" and sent.entities[0].type == "bold"
    edited = await bot.edit_message_text("Rolled 6-5", private.id, sent.message_id,
                                         reply_markup=keyboard([("Undo", "undo")]))
    assert edited.edit_date is not None
    stored = server.message(private, sent.message_id)
    assert (stored.text, stored.edits, stored.buttons) == ("Rolled 6-5", 1, [[("Undo", "undo")]])
    assert await bot.delete_message(private.id, sent.message_id)
    assert server.messages(private) == []
    assert server.messages(private, include_deleted=True)[0].deleted
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(private.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("again", private.id, sent.message_id)


async def test_message_ids_count_per_chat(server: BotApiServer, bot: Bot, private: Chat) -> None:
    group = server.add_group("Club")
    ids = [(await bot.send_message(chat.id, "x")).message_id for chat in (private, group, group)]
    assert ids == [1, 1, 2]


async def test_identical_edit_is_not_modified(bot: Bot, private: Chat) -> None:
    sent = await bot.send_message(private.id, "Board", reply_markup=keyboard([("A", "a")]))
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text("Board", private.id, sent.message_id,
                                    reply_markup=keyboard([("A", "a")]))
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(private.id, sent.message_id,
                                            reply_markup=keyboard([("A", "a")]))
    # Editing the text without reply_markup removes the keyboard, so it is a change.
    edited = await bot.edit_message_text("Board", private.id, sent.message_id)
    assert edited.reply_markup is None


async def test_limits_and_parse_errors(bot: Bot, private: Chat) -> None:
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(private.id, "x", reply_markup=keyboard([("Go", "g" * 65)]))
    await bot.send_message(private.id, "x", reply_markup=keyboard([("Go", "g" * 64)]))
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(private.id, "x" * 4097)
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await bot.send_message(private.id, "<b>bold", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(private.id, "  ")


@pytest.mark.parametrize("text", [
    "<div>x</div>", "<br>", "a <x b", "<b>x</i>", "<b><i>x</b></i>", "<b>x", "x</b>",
    "1 < 2", "a & b", "a &b", "&nbsp;x", "&copy; x", "a > b", '<span class="x">y</span>',
    "<b>x</b> <tg-spoiler>y", "<a>x</a>",
])
def test_html_is_checked_at_least_as_strictly_as_telegram(text: str) -> None:
    with pytest.raises(ParseError):
        parse_html(text)


@pytest.mark.parametrize(("text", "plain"), [
    ("<b>a</b> &lt;x &amp; &gt; &quot;q&quot; &#39;s&#x27;", "a <x & > \"q\" 's'"),
    ('<a href="tg://user?id=5">Bob</a> <i>x <u>y</u></i>', "Bob x y"),
    ('<pre><code class="language-python">1</code></pre><blockquote expandable>q</blockquote>',
     "1q"),
])
def test_telegrams_html_parses(text: str, plain: str) -> None:
    assert parse_html(text)[0] == plain


async def test_sizes_are_measured_in_utf16_after_parsing(bot: Bot, private: Chat,
                                                         server: BotApiServer) -> None:
    await bot.send_message(private.id, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(private.id, "🎲" * 2049)  # 4098 UTF-16 units
    with pytest.raises(BadRequest, match="Message caption is too long"):
        await bot.send_photo(private.id, png(), caption="&amp;" * 1025, parse_mode="HTML")
    await bot.send_photo(private.id, png(), caption="&amp;" * 1024, parse_mode="HTML")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(private.id, "<b> </b>", parse_mode="HTML")


async def test_keyboard_limits(bot: Bot, private: Chat) -> None:
    nine = [(str(i), f"d{i}") for i in range(9)]
    with pytest.raises(BadRequest, match="Buttons_too_much"):
        await bot.send_message(private.id, "x", reply_markup=keyboard(nine))
    rows = [[(str(i), f"d{i}:{j}") for i in range(8)] for j in range(13)]  # 104 buttons
    with pytest.raises(BadRequest, match="Reply markup is too long"):
        await bot.send_message(private.id, "x", reply_markup=keyboard(*rows))
    await bot.send_message(private.id, "x", reply_markup=keyboard(*rows[:12]))
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(private.id, "x", reply_markup=keyboard([("Go", "")]))
    with pytest.raises(BadRequest, match="Text buttons are unallowed"):
        await bot.send_message(private.id, "x", reply_markup=keyboard([(" ", "d")]))


async def test_callback_answer_text_is_200_utf16_units(server: BotApiServer, bot: Bot,
                                                       alice: User, private: Chat) -> None:
    sent = await bot.send_message(private.id, "x", reply_markup=keyboard([("Go", "go")]))
    tap = server.user_taps(private, alice, sent.message_id, "go")
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(tap.query_id, "🎲" * 101)
    await bot.answer_callback_query(tap.query_id, "🎲" * 100)


async def test_flood_rule_raises_retry_after(server: BotApiServer, bot: Bot,
                                             private: Chat) -> None:
    server.flood(retry_after=7, times=1)
    with pytest.raises(RetryAfter, match="Retry in 7"):
        await bot.send_message(private.id, "x")
    assert server.requests("sendMessage")[0].response["parameters"] == {"retry_after": 7}
    await bot.send_message(private.id, "x")  # the rule was used up
    assert [r.status for r in server.requests("sendMessage")] == [429, 200]


async def test_rate_limit_counts_per_chat(server: BotApiServer, bot: Bot, private: Chat) -> None:
    server.rate_limit(2, 60.0)
    group = server.add_group("Club")
    await bot.send_message(private.id, "1")
    await bot.send_message(private.id, "2")
    await bot.send_message(group.id, "other chat")
    with pytest.raises(RetryAfter):
        await bot.send_message(private.id, "3")


async def test_telegrams_flood_limits_answer_429_exactly_above_them(
        server: BotApiServer, bot: Bot, private: Chat) -> None:
    """A group gets at most 20 messages in any 60 s (edits count), a private chat
    5 in any 5 s, the bot 30 in any second; the next answers 429 with the
    seconds until it would fit, and is not counted (../shared/TELEGRAM.md)."""
    now = [1000.0]
    server.limits_clock = lambda: now[0]
    group = server.add_group("Club")
    first = await bot.send_message(group.id, "0")
    for n in range(1, 20):
        now[0] += 1.0
        if n % 2:
            await bot.edit_message_text(f"edit {n}", chat_id=group.id,
                                        message_id=first.message_id)
        else:
            await bot.send_message(group.id, str(n))
    now[0] += 1.0  # 20 s after the first: 21 in 60 s
    with pytest.raises(RetryAfter, match="Retry in 40"):
        await bot.send_message(group.id, "21st")
    await bot.send_chat_action(group.id, "typing")  # no message either
    now[0] = 1000.0 + 60.0  # the first left the window: one more fits
    await bot.send_message(group.id, "20 in the last 60 s")
    with pytest.raises(RetryAfter, match="Retry in 1"):
        await bot.send_message(group.id, "one too many")
    for n in range(5):
        await bot.send_message(private.id, str(n))
    with pytest.raises(RetryAfter, match="Retry in 5"):
        await bot.send_message(private.id, "6th in 5 s")
    assert server.breaches == 3
    assert [r.response.get("parameters") for r in server.requests() if r.status == 429] == [
        {"retry_after": 40}, {"retry_after": 1}, {"retry_after": 5}]


async def test_the_bot_gets_at_most_30_messages_a_second_over_all_chats(
        server: BotApiServer, bot: Bot) -> None:
    now = [1000.0]
    server.limits_clock = lambda: now[0]
    groups = [server.add_group(f"G{n}") for n in range(31)]
    for group in groups[:30]:
        await bot.send_message(group.id, "hi")
    with pytest.raises(RetryAfter):
        await bot.send_message(groups[30].id, "hi")
    now[0] += 1.0
    await bot.send_message(groups[30].id, "hi")


async def test_a_server_for_a_bot_without_its_limiter_keeps_no_limits() -> None:
    with BotApiServer(telegram_limits=False) as free:
        group = free.add_group("Club")
        async with Bot(free.token or "", base_url=free.base_url) as unlimited:
            for n in range(25):
                await unlimited.send_message(group.id, str(n))
        assert free.breaches == 0 and len(free.messages(group.id)) == 25


async def test_migrated_group_answers_chat_migrated(server: BotApiServer, bot: Bot,
                                                    alice: User) -> None:
    group = server.add_group("Club", members=[alice])
    new = server.migrate_chat(group)
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(group.id, "hello")
    assert caught.value.new_chat_id == new.id
    updates = await bot.get_updates()
    assert [u.message.migrate_to_chat_id for u in updates[:1]] == [new.id]
    assert updates[1].message.migrate_from_chat_id == group.id
    assert (await bot.send_message(new.id, "hello")).chat.type == "supergroup"


async def test_kicked_and_blocked_bot_is_forbidden(server: BotApiServer, bot: Bot,
                                                   alice: User, private: Chat) -> None:
    group = server.add_group("Club", members=[alice])
    server.kick_bot(group, by=alice)
    with pytest.raises(Forbidden, match="bot was kicked from the group chat"):
        await bot.send_message(group.id, "hello")
    server.user_blocks_bot(alice)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(private.id, "hello")
    updates = await bot.get_updates()
    statuses = [(u.my_chat_member.chat.id, u.my_chat_member.new_chat_member.status)
                for u in updates]
    assert statuses == [(group.id, "kicked"), (private.id, "kicked")]


async def test_bot_cannot_write_first(server: BotApiServer, bot: Bot) -> None:
    bob = server.add_user("Bob")
    chat = server.private_chat(bob, started=False)
    with pytest.raises(Forbidden, match="can't initiate conversation"):
        await bot.send_message(chat.id, "hi")
    server.user_sends(chat, bob, "/start")
    await bot.send_message(chat.id, "hi")


async def test_long_poll_returns_injected_update_promptly(server: BotApiServer, bot: Bot,
                                                          alice: User, private: Chat) -> None:
    threading.Timer(0.3, server.user_sends, (private, alice, "/new@nardy_test_bot long")).start()
    started = time.monotonic()
    # a poll that waited for its timeout would not return within the test's
    # guard against a hang: the update's arrival ended it
    updates = await asyncio.wait_for(bot.get_updates(timeout=3600), 120)
    assert time.monotonic() - started > 0.2  # it waited for the update (a lower bound)
    message = updates[0].message
    assert message.text == "/new@nardy_test_bot long"
    assert message.parse_entities() == {message.entities[0]: "/new@nardy_test_bot"}
    assert message.from_user.language_code == "ru"


async def test_get_updates_offset_confirms(server: BotApiServer, bot: Bot, alice: User,
                                           private: Chat) -> None:
    first = server.user_sends(private, alice, "one")
    second = server.user_sends(private, alice, "two")
    assert [u.update_id for u in await bot.get_updates()] == [first.update_id, second.update_id]
    assert [u.update_id for u in await bot.get_updates(offset=second.update_id)] == [
        second.update_id]
    assert await bot.get_updates(offset=second.update_id + 1, timeout=0) == ()
    server.redeliver(second.update_id)  # a duplicate below the offset still arrives once
    assert [u.update_id for u in await bot.get_updates(offset=second.update_id + 1)] == [
        second.update_id]
    assert await bot.get_updates(offset=second.update_id + 1) == ()


async def test_second_poller_conflicts_the_first(server: BotApiServer, bot: Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.2)
    async with Bot(server.token or "", base_url=server.base_url) as other:
        second = asyncio.create_task(other.get_updates(timeout=0.3))
        with pytest.raises(Conflict, match="terminated by other getUpdates"):
            await first
        assert await second == ()


async def test_privacy_mode_hides_plain_group_chatter(server: BotApiServer, bot: Bot,
                                                      alice: User) -> None:
    group = server.add_group("Club", members=[alice])
    server.user_sends(group, alice, "just talking")
    server.user_sends(group, alice, "/help@other_bot")
    command = server.user_sends(group, alice, "/help")
    assert [u.update_id for u in await bot.get_updates()] == [command.update_id]
    assert len(server.messages(group)) == 3


async def test_forum_topic_messages_carry_the_thread(server: BotApiServer, bot: Bot,
                                                     alice: User) -> None:
    forum = server.add_group("Forum", members=[alice], forum=True)
    topic = server.create_topic(forum, "Games")
    server.user_sends(forum, alice, "/play", thread_id=topic)
    updates = await bot.get_updates()
    message = updates[-1].message
    assert (message.message_thread_id, message.is_topic_message) == (topic, True)
    assert message.reply_to_message.forum_topic_created.name == "Games"
    sent = await bot.send_message(forum.id, "board", message_thread_id=topic)
    assert sent.message_thread_id == topic
    with pytest.raises(BadRequest, match="Message thread not found"):
        await bot.send_message(forum.id, "board", message_thread_id=topic + 100)


async def test_tap_is_answered_once(server: BotApiServer, bot: Bot, alice: User,
                                    private: Chat) -> None:
    sent = await bot.send_message(private.id, "Pick", reply_markup=keyboard([("Yes", "y")]))
    tap = server.user_taps(private, alice, sent.message_id, text="Yes")
    (update,) = await bot.get_updates()
    query = update.callback_query
    assert (query.id, query.data, query.message.text, query.from_user.id) == (
        tap.query_id, "y", "Pick", alice.id)
    assert await query.answer("Done", show_alert=True)
    answer = await tap.wait_answer_async(1)
    assert (answer.text, answer.show_alert) == ("Done", True)
    with pytest.raises(BadRequest, match="Query is too old"):
        await query.answer()
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query("nonsense")
    with pytest.raises(ValueError, match="no button"):
        server.user_taps(private, alice, sent.message_id, "n")


async def test_expired_query_cannot_be_answered(server: BotApiServer, bot: Bot, alice: User,
                                                private: Chat) -> None:
    sent = await bot.send_message(private.id, "Pick", reply_markup=keyboard([("Yes", "y")]))
    server.callback_query_timeout = 0.0
    tap = server.user_taps(private, alice, sent, "y")
    await asyncio.sleep(0.01)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(tap.query_id)
    assert tap.answer is None


async def test_document_and_photo_bytes_arrive(server: BotApiServer, bot: Bot,
                                               private: Chat) -> None:
    doc = await bot.send_document(private.id, b"game record", filename="game.txt",
                                  caption="<i>log</i>", parse_mode="HTML")
    stored = server.last_message(private)
    assert (stored.document_bytes, stored.document_name, stored.caption) == (
        b"game record", "game.txt", "log")
    assert bytes(await (await bot.get_file(doc.document.file_id)).download_as_bytearray()) == (
        b"game record")
    photo = await bot.send_photo(private.id, png(4, 3), reply_markup=keyboard([("A", "a")]))
    assert (photo.photo[-1].width, photo.photo[-1].height) == (4, 3)
    edited = await bot.edit_message_media(InputMediaPhoto(png(8, 6), caption="new ход ●"),
                                          private.id, photo.message_id,
                                          reply_markup=keyboard([("A", "a")]))
    assert edited.caption == "new ход ●"
    assert server.message(private, photo.message_id).photo_bytes == png(8, 6)
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await bot.send_photo(private.id, b"not an image")


async def test_commands_per_scope_and_language(bot: Bot) -> None:
    await bot.set_my_commands([("new", "New game")])
    await bot.set_my_commands([("new", "Новая партия")], language_code="ru")
    assert [c.description for c in await bot.get_my_commands(language_code="ru")] == [
        "Новая партия"]
    assert [c.command for c in await bot.get_my_commands()] == ["new"]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([("New Game", "bad")])


async def test_chat_members_and_admins(server: BotApiServer, bot: Bot, alice: User) -> None:
    bob = server.add_user("Bob")
    group = server.add_group("Club", members=[alice, bob], owner=bob)
    server.set_admins(group, alice)
    assert (await bot.get_chat_member(group.id, alice.id)).status == "administrator"
    assert (await bot.get_chat_member(group.id, bob.id)).status == "creator"
    assert {m.user.id for m in await bot.get_chat_administrators(group.id)} == {alice.id, bob.id}
    chat = await bot.get_chat(group.id)
    assert (chat.title, chat.type) == ("Club", "group")


def test_wait_message_sees_edits_after_a_mark(server: BotApiServer, alice: User,
                                              private: Chat) -> None:
    async def bot_side() -> None:
        async with Bot(server.token or "", base_url=server.base_url) as b:
            sent = await b.send_message(private.id, "Waiting for opponent")
            await asyncio.sleep(0.1)
            await b.edit_message_text("Game started", private.id, sent.message_id)

    mark = server.user_sends(private, alice, "/new")
    worker = threading.Thread(target=asyncio.run, args=(bot_side(),))
    worker.start()
    assert server.wait_message(private, "Waiting", since=mark).message_id == 2
    assert server.wait_message(private, "started", since=mark, timeout=3).edits == 1
    worker.join()
    with pytest.raises(AssertionError, match="containing 'never'"):
        server.wait_message(private, "never", timeout=0.2)


def test_webhook_delivery_posts_with_secret(server: BotApiServer, alice: User,
                                            private: Chat) -> None:
    received: list[tuple[str | None, dict[str, object]]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.headers.get("X-Telegram-Bot-Api-Secret-Token"),
                             json.loads(body)))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    hook = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    try:
        async def configure() -> None:
            async with Bot(server.token or "", base_url=server.base_url) as b:
                await b.set_webhook(f"http://127.0.0.1:{hook.server_port}/hook",
                                    secret_token="s3cret", max_connections=2)
                assert (await b.get_webhook_info()).max_connections == 2
                with pytest.raises(Conflict):
                    await b.get_updates()
                with pytest.raises(BadRequest, match="loopback"):
                    await b.set_webhook("https://example.org/hook")

        asyncio.run(configure())
        sent = [server.user_sends(private, alice, f"/move {n}").update_id for n in range(5)]
        server.wait_for(lambda: len(received) == 5 and server.pending_updates() == 0, 5)
        assert {secret for secret, _ in received} == {"s3cret"}
        assert sorted(u["update_id"] for _, u in received) == sent  # type: ignore[type-var]
        assert Update.de_json(received[0][1], None).message.text.startswith("/move")
        assert {d.status for d in server.webhook_deliveries} == {200}
    finally:
        hook.shutdown()
        hook.server_close()


DUMMY_BOT = """
import os, signal, sys, time
print("started", os.environ["TELEGRAM_API_URL"], os.environ.get("LOG_LEVEL"), flush=True)
if os.environ.get("CRASH"):
    sys.exit(3)
if os.environ.get("STUBBORN"):
    signal.signal(signal.SIGTERM, lambda *a: print("ignoring TERM", flush=True))
else:
    signal.signal(signal.SIGTERM, lambda *a: (print("bye", flush=True), sys.exit(0)))
while True:
    time.sleep(0.05)
"""


def test_bot_process_runs_and_stops_with_sigterm(server: BotApiServer, tmp_path) -> None:
    proc = BotProcess.for_server(server, data_dir=tmp_path, log_level="INFO",
                                 args=("-c", DUMMY_BOT))
    with proc:
        assert proc.wait_for_log(r"started (\S+) INFO").group(1) == server.url
        assert proc.env["DATA_DIR"] == str(tmp_path) and "REDIS_URL" not in proc.env
    assert proc.returncode == 0 and not proc.killed
    assert "bye" in proc.log
    proc.cleanup()


def test_bot_process_is_killed_when_it_ignores_sigterm(server: BotApiServer) -> None:
    proc = BotProcess.for_server(server, env={"STUBBORN": "1"}, args=("-c", DUMMY_BOT),
                                 stop_timeout=0.5)
    proc.start()
    proc.wait_for_log("started")
    assert proc.stop() == -9 and proc.killed
    proc.cleanup()


def test_watched_crash_fails_waits_at_once(server: BotApiServer, private: Chat) -> None:
    proc = BotProcess.for_server(server, env={"CRASH": "1"}, args=("-c", DUMMY_BOT)).start()
    server.watch(proc)
    # the crash ends the wait (a wait that ran out would raise "timed out", not this)
    with pytest.raises(BotProcessError, match=r"exited with code 3(.|\n)*started"):
        server.wait_message(private, "never", timeout=120)
    proc.cleanup()


def test_python_is_this_interpreter(server: BotApiServer) -> None:
    assert BotProcess.for_server(server).command == [sys.executable, "-m", "bot"]


def test_a_redelivered_twin_is_dropped_by_identity_not_by_its_fields() -> None:
    """Issue 37: an update redelivered twice is two pending entries with the same
    fields; the one delivered must be the one dropped (by fields, ``list.remove``
    dropped its twin, and the delivered one stayed pending for ever)."""
    from tests.botapi.core import _Pending

    first, twin = (_Pending(7, {"update_id": 7}, forced=True, claimed=True) for _ in range(2))
    pending = [first, twin]
    pending.remove(twin)  # as the webhook worker does once ``twin`` was posted
    assert pending == [first] and pending[0] is first
    assert twin not in pending and first != twin
