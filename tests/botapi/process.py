"""Run the real bot (``python -m bot``) as a subprocess against the local Bot API server.

The process's stdout and stderr go to a temporary log file (a pipe could fill up and stall
the bot); ``log`` reads it back for failure messages.  ``stop`` sends SIGTERM, waits, then
kills — only this process, by its pid; ``kill`` sends SIGKILL at once (a crash).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
# Variables of the developer's shell that must not leak into the bot under test.
_SCRUBBED = ("BOT_TOKEN", "TELEGRAM_API_URL", "REDIS_URL", "DATA_DIR", "LOG_LEVEL",
             "WEBHOOK_URL", "WEBHOOK_SECRET")


class BotProcessError(AssertionError):
    """The bot process died or misbehaved; the message ends with its log."""


class BotProcess:
    """``with BotProcess.for_server(server, data_dir=tmp_path) as bot: ...``

    ``env`` is added to a copy of this process's environment from which the bot's own
    settings (``_SCRUBBED``) were removed, so only what the test gives reaches the bot.
    """

    def __init__(self, env: Mapping[str, str], *, args: Sequence[str] = ("-m", "bot"),
                 python: str = sys.executable, cwd: str | os.PathLike[str] = REPO_ROOT,
                 stop_timeout: float = 10.0) -> None:
        self.env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        self.env.update({"PYTHONUNBUFFERED": "1", **env})
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
        self.command = [python, *args]
        self.cwd = cwd
        self.stop_timeout = stop_timeout
        self._log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives with the process
            prefix="bot-", suffix=".log", delete=False)
        self.log_path = Path(self._log_file.name)
        self._proc: subprocess.Popen[bytes] | None = None
        self.killed = False  # whether stop() had to SIGKILL

    @classmethod
    def for_server(cls, server: Any, *, data_dir: str | os.PathLike[str] | None = None,
                   redis_url: str | None = None, log_level: str = "DEBUG",
                   env: Mapping[str, str] | None = None, **kwargs: Any) -> BotProcess:
        """A bot wired to ``server`` (a BotApiServer): BOT_TOKEN, TELEGRAM_API_URL, storage."""
        values = {"BOT_TOKEN": server.token or "123456:any", "TELEGRAM_API_URL": server.url,
                  "LOG_LEVEL": log_level}
        if data_dir is not None:
            values["DATA_DIR"] = str(data_dir)
        if redis_url is not None:
            values["REDIS_URL"] = redis_url
        values.update(env or {})
        if values.get("NARDY_RATE_LIMIT") == "0":  # the bot runs without its flood limiter
            server.telegram_limits = False
        return cls(values, **kwargs)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> BotProcess:
        if self._proc is not None:
            raise RuntimeError("already started")
        self._proc = subprocess.Popen(self.command, cwd=self.cwd, env=self.env,
                                      stdin=subprocess.DEVNULL, stdout=self._log_file,
                                      stderr=subprocess.STDOUT)
        return self

    def stop(self, timeout: float | None = None) -> int | None:
        """SIGTERM, wait up to ``timeout`` (default ``stop_timeout``) seconds, then SIGKILL.

        Returns the exit code (negative: killed by that signal), None if never started.
        The log's tail goes to stdout, which pytest shows only when the test failed.
        """
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(self.stop_timeout if timeout is None else timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
                self.killed = True
        if not self._log_file.closed:
            print(f"--- bot log {self.log_path} (last 300 lines) ---\n{self.log_tail(300)}")
        self._log_file.close()
        return self._proc.returncode

    def kill(self) -> None:
        """SIGKILL at once, as a crash or an OOM kill would: nothing is settled
        or cleaned up (a restart must cope).  Then stop() only closes the log."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
            self.killed = True

    def __enter__(self) -> BotProcess:
        return self.start()

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.stop()

    def cleanup(self) -> None:
        """Stop and delete the log file."""
        self.stop()
        self.log_path.unlink(missing_ok=True)

    # ------------------------------------------------------------------ state

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll() if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def log(self) -> str:
        """Everything the bot wrote so far (stdout and stderr interleaved)."""
        try:
            return self.log_path.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.splitlines()[-lines:])

    def check(self) -> None:
        """Raise :class:`BotProcessError` (with the log) if the process has exited.

        ``BotApiServer.watch(process)`` calls this from every wait helper.
        """
        if self._proc is not None and self._proc.poll() is not None:
            raise BotProcessError(
                f"bot process exited with code {self._proc.returncode}\n"
                f"--- bot log (last 60 lines) ---\n{self.log_tail()}")

    def wait_for_log(self, pattern: str, timeout: float = 10.0) -> re.Match[str]:
        """Wait until the log matches the regex ``pattern``; fail early if the bot exits."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            found = regex.search(self.log)
            if found:
                return found
            self.check()
            if time.monotonic() > deadline:
                raise BotProcessError(f"no log line matching {pattern!r} after {timeout}s\n"
                                      f"--- bot log (last 60 lines) ---\n{self.log_tail()}")
            time.sleep(0.05)

    def __repr__(self) -> str:
        return f"BotProcess({self.command!r}, pid={self.pid}, returncode={self.returncode})"
