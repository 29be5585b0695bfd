"""The real bot process (``python -m bot``) in webhook mode: it registers its
webhook, serves it with the secret required, logs JSON lines, and stops
cleanly on SIGTERM."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from tests.botapi import BotApiServer, BotProcess
from tests.conftest import REDIS_URL
from tests.ops.conftest import SECRET

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_webhook_mode_end_to_end(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    env = {"WEBHOOK_URL": url, "WEBHOOK_SECRET": SECRET, "WEBHOOK_PORT": str(port),
           "LOG_FORMAT": "json", "NARDY_RATE_LIMIT": "0"}
    with BotApiServer() as server:
        bot = BotProcess.for_server(server, redis_url=REDIS_URL,
                                    data_dir=None if REDIS_URL else tmp_path,
                                    log_level="INFO", env=env).start()
        try:
            server.watch(bot)
            server.wait_for(lambda: server.webhook, 15, description="setWebhook")
            assert server.webhook == {"url": url, "secret_token": SECRET, "max_connections": 40}
            # the command menu in every language (it was tried before getMe, and failed)
            languages = {r.params.get("language_code") for r in
                         server.requests("setMyCommands")}
            assert languages == {None, "ru", "lt"}, bot.log_tail()
            alice = server.add_user("Alice")
            chat = server.add_group("G", members=[alice])
            sent = server.user_sends(chat, alice, "/new")
            server.wait_message(chat, "New game", since=sent, timeout=10)
            assert httpx.get(f"http://127.0.0.1:{port}/healthz").json()["redis"] is True
            # the lobby only: it keeps its dice's whole commitment itself (issue 35)
            forged = httpx.post(url, json=server.updates()[-1])
            assert forged.status_code == 403
            assert len([m for m in server.messages(chat) if m.from_bot]) == 1
        finally:
            code = bot.stop()
        assert code == 0, bot.log_tail()
    lines = [json.loads(line) for line in bot.log.splitlines() if line.startswith("{")]
    assert any(line["msg"] == "stopped" for line in lines), bot.log_tail()
    assert all("ts" in line and "level" in line for line in lines)
    assert not [line for line in lines if line["level"] == "ERROR"], bot.log_tail()
    bot.cleanup()
