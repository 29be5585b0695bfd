"""The local Bot API server's inline mode, exercised with python-telegram-bot's client:
inline queries and their answers, chosen results, callback queries on inline
messages and edits by ``inline_message_id`` (tests/botapi/inline.py)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from PIL import Image
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InputMediaPhoto,
    InputTextMessageContent,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest

from tests.botapi import BotApiServer, Chat, User

pytestmark = [pytest.mark.timeout(30),
              pytest.mark.filterwarnings("ignore:Please use 'Bot.answerInlineQuery'")]


@pytest.fixture
def server() -> Iterator[BotApiServer]:
    with BotApiServer() as s:
        s.set_inline(True)
        yield s


@pytest.fixture
async def bot(server: BotApiServer) -> AsyncIterator[Bot]:
    async with Bot(server.token or "", base_url=server.base_url,
                   base_file_url=server.base_file_url) as b:
        yield b


@pytest.fixture
def alice(server: BotApiServer) -> User:
    return server.add_user("Alice", username="alice")


@pytest.fixture
def bob(server: BotApiServer) -> User:
    return server.add_user("Bob")


@pytest.fixture
def dialog(server: BotApiServer, alice: User, bob: User) -> Chat:
    return server.user_chat(alice, bob)


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), "white").save(out, "PNG")
    return out.getvalue()


def article(id: str = "1", text: str = "<b>Lobby</b>", data: str | None = "join",
            title: str = "Long nardy") -> InlineQueryResultArticle:
    markup = None if data is None else InlineKeyboardMarkup(
        [[InlineKeyboardButton("Join", callback_data=data)]])
    return InlineQueryResultArticle(id, title, InputTextMessageContent(
        text, parse_mode=ParseMode.HTML), reply_markup=markup, description="a game")


async def _answer_raw(bot: Bot, query_id: str, results: list[dict[str, Any]],
                      **extra: Any) -> Any:
    return await bot.do_api_request("answerInlineQuery", api_kwargs={
        "inline_query_id": query_id, "results": results, **extra})


def _raw_article(id: str = "1", **fields: Any) -> dict[str, Any]:
    return {"type": "article", "id": id, "title": "T",
            "input_message_content": {"message_text": "x"}, **fields}


async def _posted(server: BotApiServer, bot: Bot, chat: Chat, user: User,
                  data: str = "join") -> tuple[Any, str]:
    """A lobby posted through inline mode: (the message, its inline_message_id)."""
    query = server.user_inline_query(chat, user, "long")
    await bot.get_updates()
    assert await bot.answer_inline_query(query.query_id, [article(data=data)], cache_time=0)
    message = server.user_chooses_inline_result(query, "Long nardy")
    assert message.inline_message_id is not None
    return message, message.inline_message_id


async def test_inline_mode_is_off_until_botfather_turns_it_on(bot: Bot, alice: User) -> None:
    with BotApiServer() as fresh:
        async with Bot(fresh.token or "", base_url=fresh.base_url) as other:
            assert (await other.get_me()).supports_inline_queries is False
            with pytest.raises(ValueError, match="setinline"):
                fresh.user_inline_query(fresh.private_chat(alice), alice, "x")
            fresh.set_inline(True)
            assert (await other.get_me()).supports_inline_queries is True


async def test_an_inline_query_tells_the_chat_type_never_the_chat(
        server: BotApiServer, bot: Bot, alice: User, bob: User, dialog: Chat) -> None:
    group = server.add_group("Club", members=[alice])
    for chat, kind in ((server.private_chat(alice), "sender"), (dialog, "private"),
                       (group, "group")):
        query = server.user_inline_query(chat, alice, "backgammon match=5")
        (update,) = await bot.get_updates(offset=-1)
        inline = update.inline_query
        assert inline is not None
        assert (inline.id, inline.query, inline.chat_type, inline.from_user.id) == (
            query.query_id, "backgammon match=5", kind, alice.id)
        assert update.effective_chat is None
        await bot.get_updates(offset=update.update_id + 1)
    with pytest.raises(ValueError, match="at most 256"):
        server.user_inline_query(dialog, alice, "x" * 257)


async def test_the_bot_cannot_post_in_two_users_chat(bot: Bot, dialog: Chat) -> None:
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(dialog.id, "hi")


async def test_answer_is_kept_and_answered_once(server: BotApiServer, bot: Bot, alice: User,
                                               dialog: Chat) -> None:
    query = server.user_inline_query(dialog, alice, "")
    assert await bot.answer_inline_query(query.query_id, [article("a"), article("b", title="Bg")],
                                         cache_time=5, is_personal=True)
    answer = await query.wait_answer_async(1)
    assert (answer.titles, answer.cache_time, answer.is_personal) == (
        ["Long nardy", "Bg"], 5, True)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_inline_query(query.query_id, [article()])
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_inline_query("12345", [article()])


@pytest.mark.parametrize(("results", "extra", "error"), [
    ([_raw_article(str(n)) for n in range(51)], {}, "Results_too_much"),
    ([_raw_article("1"), _raw_article("1")], {}, "Result_id_duplicate"),
    ([_raw_article("x" * 65)], {}, "Result_id_invalid"),
    ([_raw_article("")], {}, "Result_id_invalid"),
    ([_raw_article(input_message_content={"message_text": "<div>x</div>",
                                          "parse_mode": "HTML"})], {}, "Can't parse entities"),
    ([_raw_article(input_message_content={"message_text": "x" * 4097})], {},
     "Message is too long"),
    ([_raw_article(input_message_content={"message_text": "<b> </b>", "parse_mode": "HTML"})],
     {}, "Message text is empty"),
    ([_raw_article(title=" ")], {}, "Result_title_empty"),
    ([_raw_article(reply_markup={"inline_keyboard": [[{"text": "J", "callback_data": "j" * 65}]]
                                 })], {}, "Button_data_invalid"),
    ([_raw_article(reply_markup={"inline_keyboard": [[{"text": "J", "callback_data": "j"}] * 9]
                                 })], {}, "Buttons_too_much"),
    ([{"type": "photo", "id": "p", "photo_file_id": "nope"}], {}, "Wrong file identifier"),
    ([{"type": "venue", "id": "v"}], {}, "Unsupported inline query result type"),
    ([_raw_article()], {"cache_time": -1}, "Cache_time_invalid"),
    ([_raw_article()], {"next_offset": "9" * 65}, "Next_offset_invalid"),
    ([_raw_article()], {"button": {"text": "Start", "start_parameter": "bad param"}},
     "Start_param_invalid"),
    ([_raw_article()], {"button": {"text": "", "start_parameter": "ok"}}, "Button_text_invalid"),
])
async def test_answers_are_checked_like_telegram(server: BotApiServer, bot: Bot, alice: User,
                                                dialog: Chat, results: list[dict[str, Any]],
                                                extra: dict[str, Any], error: str) -> None:
    query = server.user_inline_query(dialog, alice, "q")
    with pytest.raises(BadRequest, match=error):
        await _answer_raw(bot, query.query_id, results, **extra)
    assert query.answer is None
    # a good answer still goes through: a refused one did not use the query up
    assert await _answer_raw(bot, query.query_id, [_raw_article()])


async def test_a_chosen_result_is_sent_via_the_bot_unseen_by_it(
        server: BotApiServer, bot: Bot, alice: User, dialog: Chat) -> None:
    query = server.user_inline_query(dialog, alice, "long")
    await bot.get_updates()
    await bot.answer_inline_query(query.query_id, [article(), article("2", data=None,
                                                                      title="Plain")])
    before = len(server.updates())
    message = server.user_chooses_inline_result(query, "Long nardy")
    assert (message.text, message.entities, message.sender.id, message.by_bot) == (
        "Lobby", [{"type": "bold", "offset": 0, "length": 5}], alice.id, True)
    assert message.via_bot == server.bot and not message.from_bot
    assert message.buttons == [[("Join", "join")]]
    assert len(server.updates()) == before  # feedback is off: the bot hears nothing
    plain = server.user_chooses_inline_result(query, id="2")
    assert plain.inline_message_id is None  # no keyboard: nothing to edit it by
    assert server.inline_message(message.inline_message_id or "").text == "Lobby"


async def test_feedback_sends_the_chosen_result(server: BotApiServer, bot: Bot, alice: User,
                                                dialog: Chat) -> None:
    server.set_inline_feedback(True)
    query = server.user_inline_query(dialog, alice, "long")
    (first,) = await bot.get_updates()
    await bot.answer_inline_query(query.query_id, [article("r1")])
    message = server.user_chooses_inline_result(query, id="r1")
    (update,) = await bot.get_updates(offset=first.update_id + 1)
    chosen = update.chosen_inline_result
    assert chosen is not None
    assert (chosen.result_id, chosen.query, chosen.from_user.id, chosen.inline_message_id) == (
        "r1", "long", alice.id, message.inline_message_id)


async def test_taps_on_an_inline_message_carry_no_chat(server: BotApiServer, bot: Bot,
                                                       alice: User, bob: User,
                                                       dialog: Chat) -> None:
    message, inline_id = await _posted(server, bot, dialog, alice)
    tap = server.user_taps(dialog, bob, message, text="Join")
    updates = await bot.get_updates(offset=-1)
    query = updates[-1].callback_query
    assert query is not None
    assert (query.inline_message_id, query.message, query.data, query.from_user.id) == (
        inline_id, None, "join", bob.id)
    assert query.chat_instance
    assert updates[-1].effective_chat is None
    assert await query.answer("Joined")
    assert (await tap.wait_answer_async(1)).text == "Joined"


async def test_inline_messages_are_edited_by_their_id(server: BotApiServer, bot: Bot,
                                                      alice: User, dialog: Chat) -> None:
    message, inline_id = await _posted(server, bot, dialog, alice)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Roll", callback_data="r")]])
    assert await bot.edit_message_text("<i>Board</i>", inline_message_id=inline_id,
                                       reply_markup=markup, parse_mode=ParseMode.HTML) is True
    edited = server.message(dialog, message.message_id)
    assert (edited.text, edited.buttons, edited.edits) == ("Board", [[("Roll", "r")]], 1)
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text("<i>Board</i>", inline_message_id=inline_id,
                                    reply_markup=markup, parse_mode=ParseMode.HTML)
    assert await bot.edit_message_reply_markup(inline_message_id=inline_id) is True
    assert server.message(dialog, message.message_id).buttons == []
    with pytest.raises(BadRequest, match="There is no caption in the message to edit"):
        await bot.edit_message_caption(inline_message_id=inline_id, caption="c")
    with pytest.raises(BadRequest, match="Message_id_invalid"):
        await bot.edit_message_text("x", inline_message_id="AgAAAnope")
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await bot.edit_message_text("<br>", inline_message_id=inline_id,
                                    parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="Chat not found"):  # the bot does not know the chat
        await bot.edit_message_text("x", chat_id=dialog.id, message_id=message.message_id)


async def test_an_inline_message_in_a_group_is_still_the_users(server: BotApiServer, bot: Bot,
                                                              alice: User) -> None:
    group = server.add_group("Club", members=[alice], bot_status="administrator")
    message, inline_id = await _posted(server, bot, group, alice)
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await bot.edit_message_text("x", chat_id=group.id, message_id=message.message_id)
    assert await bot.edit_message_text("x", inline_message_id=inline_id) is True


async def test_inline_media_is_a_file_id_never_an_upload(server: BotApiServer, bot: Bot,
                                                         alice: User, dialog: Chat) -> None:
    media_chat = server.add_group("Media", supergroup=True, bot_status="administrator")
    message, inline_id = await _posted(server, bot, dialog, alice)
    with pytest.raises(BadRequest, match="Can't upload a new file"):
        await bot.edit_message_media(InputMediaPhoto(png()), inline_message_id=inline_id)
    assert server.message(dialog, message.message_id).text == "Lobby"
    uploaded = await bot.send_photo(media_chat.id, png())
    file_id = uploaded.photo[-1].file_id
    with pytest.raises(BadRequest, match="Wrong file identifier"):
        await bot.edit_message_media(InputMediaPhoto("AgACnope"), inline_message_id=inline_id)
    # a text message becomes a picture (the Bot API: media may be added to text)
    assert await bot.edit_message_media(
        InputMediaPhoto(file_id, caption="<b>Board</b>", parse_mode=ParseMode.HTML),
        inline_message_id=inline_id) is True
    now = server.message(dialog, message.message_id)
    assert (now.text, now.caption, now.photo_bytes) == (None, "Board", png())
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await bot.edit_message_text("text again", inline_message_id=inline_id)
    assert await bot.edit_message_caption(inline_message_id=inline_id, caption="Next") is True
    assert server.message(dialog, message.message_id).caption == "Next"


async def test_a_cached_photo_result_is_sent_with_its_picture(server: BotApiServer, bot: Bot,
                                                              alice: User, dialog: Chat) -> None:
    media_chat = server.add_group("Media", supergroup=True, bot_status="administrator")
    file_id = (await bot.send_photo(media_chat.id, png())).photo[-1].file_id
    query = server.user_inline_query(dialog, alice, "")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="j")]])
    await bot.answer_inline_query(query.query_id, [InlineQueryResultCachedPhoto(
        "p", file_id, caption="<b>Board</b>", parse_mode=ParseMode.HTML, reply_markup=markup)])
    message = server.user_chooses_inline_result(query, id="p")
    assert (message.photo_bytes, message.caption, message.buttons) == (
        png(), "Board", [[("Join", "j")]])
