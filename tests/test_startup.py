"""Start-up failures a newcomer meets end in one clear last line and an exit
code (python-telegram-bot logs its own traceback above it): a token Telegram
rejects, and a Bot API that cannot be reached."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.botapi import BotApiServer

ROOT = Path(__file__).resolve().parent.parent


def start_bot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("BOT_TOKEN", "REDIS_URL", "TELEGRAM_API_URL", "WEBHOOK_URL")}
    clean.update(DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=clean,
                          capture_output=True, text=True, timeout=60)


def test_a_rejected_token_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with BotApiServer() as server:  # it answers 401 to any other token, as Telegram does
        done = start_bot(tmp_path, BOT_TOKEN="123:not-the-servers-token",
                         TELEGRAM_API_URL=server.url)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == \
        "nardy: Telegram rejected BOT_TOKEN (check it with @BotFather)"


def test_an_unreachable_bot_api_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = start_bot(tmp_path, BOT_TOKEN="123:abc", TELEGRAM_API_URL=f"http://127.0.0.1:{port}")
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"nardy: cannot reach the Telegram Bot API at http://127.0.0.1:{port}/bot")
    assert "123:abc" not in last
