"""The local Bot API server checks web_app and url buttons as Telegram does:
a web_app button only in a private chat and only with an HTTPS URL, one kind per button."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest

from tests.botapi import BotApiServer


@pytest.fixture
def server() -> Iterator[BotApiServer]:
    with BotApiServer() as server:
        yield server


def _keyboard(button: InlineKeyboardButton) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[button]])


async def test_web_app_buttons_only_in_private_chats(server: BotApiServer) -> None:
    user = server.add_user("Ann")
    group = server.add_group("G", members=[user])
    private = server.private_chat(user)
    app = InlineKeyboardButton("app", web_app=WebAppInfo("https://example.org/app/"))
    async with Bot(server.token or "", base_url=server.base_url) as bot:
        sent = await bot.send_message(private.id, "board", reply_markup=_keyboard(app))
        assert sent.reply_markup is not None
        with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
            await bot.send_message(group.id, "board", reply_markup=_keyboard(app))
        posted = await bot.send_message(group.id, "board")
        with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
            await bot.edit_message_text("board 2", chat_id=group.id,
                                        message_id=posted.message_id,
                                        reply_markup=_keyboard(app))
        plain = InlineKeyboardButton("app", web_app=WebAppInfo("http://example.org/app/"))
        with pytest.raises(BadRequest, match=r"(?i)button_url_invalid"):
            await bot.send_message(private.id, "board", reply_markup=_keyboard(plain))
        link = InlineKeyboardButton("app", url="https://t.me/nardy_test_bot/board?startapp=x")
        await bot.send_message(group.id, "board", reply_markup=_keyboard(link))


async def test_a_button_has_exactly_one_kind(server: BotApiServer) -> None:
    user = server.add_user("Ann")
    private = server.private_chat(user)
    both = {"inline_keyboard": [[{"text": "x", "callback_data": "a", "url": "https://x.org"}]]}
    none = {"inline_keyboard": [[{"text": "x"}]]}
    async with Bot(server.token or "", base_url=server.base_url) as bot:
        for markup in (both, none):
            with pytest.raises(BadRequest, match=r"(?i)button kind"):
                await bot.do_api_request("sendMessage", api_kwargs={
                    "chat_id": private.id, "text": "t", "reply_markup": markup})
