"""Start-up failures a newcomer meets end in one clear last line and an exit
code, with no traceback: a token Telegram rejects (at once), a Bot API that
cannot be reached (after trying again for STARTUP_RETRY_SECONDS), a DATA_DIR
the embedded Redis cannot use.  A failure that passes within that time is
waited out: the bot starts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from bot.edge.config import load_settings
from bot.edge.startup import unreachable
from tests.botapi import BotApiServer, BotProcess

ROOT = Path(__file__).resolve().parents[3]


def start_bot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("BOT_TOKEN", "REDIS_URL", "TELEGRAM_API_URL", "WEBHOOK_URL")}
    clean.update(DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=clean,
                          capture_output=True, text=True, timeout=60)


def test_a_rejected_token_is_one_line_and_exit_2_without_retrying(tmp_path: Path) -> None:
    with BotApiServer() as server:  # it answers 401 to any other token, as Telegram does
        done = start_bot(tmp_path, BOT_TOKEN="123:not-the-servers-token",
                         TELEGRAM_API_URL=server.url, STARTUP_RETRY_SECONDS="30")
        assert server.request_count("getMe") == 1  # at once: no retry within the 30 s
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == \
        "nardy: Telegram rejected BOT_TOKEN (check it with @BotFather)"
    assert "Traceback" not in done.stderr


def test_a_data_dir_that_is_not_a_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    with BotApiServer() as server:
        done = start_bot(tmp_path, BOT_TOKEN=server.token or "", TELEGRAM_API_URL=server.url)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"nardy: DATA_DIR {tmp_path / 'data'} cannot hold the embedded Redis' data: "
        "it is a file, not a folder")
    assert "Traceback" not in done.stderr
    assert (tmp_path / "data").read_text() == "not a folder"


def test_an_unreachable_bot_api_is_tried_again_then_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    started = time.monotonic()
    done = start_bot(tmp_path, BOT_TOKEN="123:abc", TELEGRAM_API_URL=f"http://127.0.0.1:{port}",
                     STARTUP_RETRY_SECONDS="1.5")
    assert time.monotonic() - started >= 1.5
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"nardy: cannot reach the Telegram Bot API at http://127.0.0.1:{port}/bot")
    assert "(tried for 1.5 s; STARTUP_RETRY_SECONDS)" in last
    assert "123:abc" not in done.stderr
    assert "Traceback" not in done.stderr  # at the default log level
    # one line per try that is tried again, naming the cause; how many tries fit
    # into 1.5 s depends on the machine's load (the pauses: test_retrying_...)
    assert done.stderr.count("getMe failed") >= 1


def test_a_bot_api_that_keeps_failing_with_5xx_is_given_up_on(tmp_path: Path) -> None:
    with BotApiServer() as server:
        server.fail(503, "Service Unavailable", times=None, methods=["getMe"])
        done = start_bot(tmp_path, BOT_TOKEN=server.token or "", TELEGRAM_API_URL=server.url,
                         STARTUP_RETRY_SECONDS="1")
        tries = server.request_count("getMe")
    assert done.returncode == 1, done.stderr
    # 0.5 s, then the rest of the second: not a tight loop (a loaded machine
    # makes fewer tries, never more); every try but the last is logged
    assert 1 <= tries <= 4 and done.stderr.count("getMe failed") == tries - 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"nardy: cannot reach the Telegram Bot API at {server.url}/bot: "
                           "Service Unavailable")
    assert "Traceback" not in done.stderr


def test_a_passing_failure_at_start_up_is_waited_out(tmp_path: Path) -> None:
    with BotApiServer() as server:
        server.fail(502, times=3, methods=["getMe"])  # three 502s, then the API is back
        with BotProcess.for_server(server, data_dir=tmp_path / "data", log_level="INFO",
                                   env={"STARTUP_RETRY_SECONDS": "30"}) as bot:
            server.watch(bot)
            server.wait_request("getUpdates", timeout=30)  # polling: it started
            assert server.request_count("getMe") == 4
            # the start-up jobs ran although the start took longer than their
            # planned time (they used to be skipped as "missed")
            bot.wait_for_log(r"schema 2: \d+ game records moved", timeout=60)
            bot.wait_for_log(r"start-up: redrawing the boards of \d+ games", timeout=60)
            log = bot.log
    assert log.count("getMe failed (Bad Gateway); trying again") == 3, log
    assert "Traceback" not in log


def test_without_telegram_api_url_the_line_names_telegrams_own() -> None:
    settings = load_settings(environ={"BOT_TOKEN": "1:a"}, env_file=None)
    line = unreachable(settings.api_url, OSError("Network is unreachable"),
                       settings.startup_retry_seconds)
    assert line == ("nardy: cannot reach the Telegram Bot API at https://api.telegram.org/bot: "
                    "Network is unreachable (tried for 60 s; STARTUP_RETRY_SECONDS)")


async def test_retrying_doubles_its_pause_within_the_budget_and_honours_flood_waits() -> None:
    from telegram.error import InvalidToken, NetworkError, RetryAfter, TimedOut

    from bot.edge.startup import retrying

    now = [0.0]
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    failures: list[Exception] = [NetworkError("Bad Gateway"), TimedOut(), RetryAfter(4),
                                 NetworkError("x")]

    async def flaky() -> str:
        if failures:
            raise failures.pop(0)
        return "me"

    assert await retrying(flaky, what="getMe", budget=60, clock=lambda: now[0],
                          sleep=sleep) == "me"
    assert pauses == [0.5, 1.0, 4.0, 4.0]  # the flood wait, then the doubling goes on
    pauses.clear()

    async def down() -> str:
        raise NetworkError("no route")

    now[0] = 0.0
    try:
        await retrying(down, what="getMe", budget=3, clock=lambda: now[0], sleep=sleep)
    except NetworkError:
        pass
    else:
        raise AssertionError("gave up without raising")
    assert pauses == [0.5, 1.0, 1.5] and now[0] == 3  # the last pause: what is left

    async def rejected() -> str:
        raise InvalidToken()

    pauses.clear()
    try:
        await retrying(rejected, what="getMe", budget=60, clock=lambda: now[0], sleep=sleep)
    except InvalidToken:
        assert pauses == []
