"""The bot's Bot API client (bot/edge/http.py): failures become PTB's errors,
timeouts keep PTB's meaning, and sessions are closed.  What it sends and
receives is checked against the local Bot API server in
test_botapi_server.py (every test there runs with both clients)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import NetworkError, TimedOut

from bot.edge.http import AiohttpRequest, close_all
from tests.botapi import BotApiServer

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
async def silent_port() -> AsyncIterator[int]:
    """A port that accepts connections and never answers."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    yield server.sockets[0].getsockname()[1]
    for writer in held:
        writer.close()
    server.close()
    await server.wait_closed()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_silent_server_times_out(silent_port: int) -> None:
    request = AiohttpRequest(read_timeout=0.3)
    await request.initialize()
    try:
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(TimedOut):
            await request.post(f"http://127.0.0.1:{silent_port}/botX/getMe")
        assert loop.time() - began < 5
        # a call's own read timeout wins over the default
        began = loop.time()
        with pytest.raises(TimedOut):
            await request.post(f"http://127.0.0.1:{silent_port}/botX/getMe", read_timeout=0.1)
        assert loop.time() - began < 0.3 + 1
    finally:
        await request.shutdown()


async def test_a_refused_connection_is_a_network_error() -> None:
    request = AiohttpRequest()
    await request.initialize()
    try:
        with pytest.raises(NetworkError, match=r"aiohttp\.ClientConnectorError"):
            await request.post(f"http://127.0.0.1:{closed_port()}/botX/getMe")
    finally:
        await request.shutdown()


async def test_requests_need_initialize_and_close_once() -> None:
    request = AiohttpRequest()
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request("http://127.0.0.1:1/", "POST")
    await request.initialize()
    await close_all([request, request])  # closing twice is harmless
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request("http://127.0.0.1:1/", "POST")
    await request.initialize()  # a shut request can be started again, as PTB may
    await request.shutdown()


async def test_a_long_poll_outlasts_the_default_read_timeout() -> None:
    # getUpdates' own timeout is added to the read timeout by PTB
    with BotApiServer() as server:
        async with Bot(server.token or "", base_url=server.base_url,
                       get_updates_request=AiohttpRequest(read_timeout=0.5),
                       request=AiohttpRequest()) as bot:
            loop = asyncio.get_running_loop()
            began = loop.time()
            assert await bot.get_updates(timeout=1) == ()
            assert loop.time() - began >= 0.9


async def test_tls_certificates_are_verified(tmp_path: Path) -> None:
    # a server with a self-signed certificate is refused, as Telegram's impostor would be
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    request = AiohttpRequest()
    await request.initialize()
    try:
        with pytest.raises(NetworkError, match=r"(?i)certificate"):
            await request.do_request(f"https://127.0.0.1:{port}/botX/getMe", "POST")
    finally:
        await request.shutdown()
        server.close()
        await server.wait_closed()


async def test_the_keyboard_of_a_message_the_bot_sent_is_not_parsed_back() -> None:
    """A send's or an edit's answer comes back without its keyboard (PTB would build
    an object per button for nothing); the users' updates keep theirs."""
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("1", callback_data="a"),
                                      InlineKeyboardButton("2", callback_data="b")]])
    with BotApiServer() as server:
        alice = server.add_user("Alice")
        chat = server.add_group("G", members=[alice])
        async with Bot(server.token or "", base_url=server.base_url,
                       request=AiohttpRequest()) as bot:
            sent = await bot.send_message(chat.id, "board", reply_markup=keyboard)
            edited = await bot.edit_message_text("board 2", chat.id, sent.message_id,
                                                 reply_markup=keyboard)
            assert sent.reply_markup is None and edited.reply_markup is None
            assert (sent.message_id, edited.text) == (edited.message_id, "board 2")
            [stored] = [m for m in server.messages(chat) if m.from_bot]
            assert stored.buttons  # it was sent with its keyboard
            tapped = server.user_taps(chat, alice, stored, "a")
            [update] = await bot.get_updates(timeout=0)
            assert update.callback_query is not None and tapped is not None
            message = update.callback_query.message
            assert message is not None and message.reply_markup == keyboard
