"""Log set-up: text or JSON lines, every line tagged with the update it belongs to.

:func:`bind` puts the ids of the update being handled (update, chat, user,
game) into a context variable; :class:`ContextFilter` copies them onto every
log record made in that task, so both formats can show them.  ``LOG_FORMAT=json``
gives one JSON object a line (for a log collector), ``text`` a readable line.

>>> import io
>>> stream = io.StringIO()
>>> logger = configure("INFO", "json", stream=stream, logger_name="demo")
>>> with bind(update_id=7, chat_id=-100):
...     logger.info("hello %s", "world")
>>> line = json.loads(stream.getvalue())
>>> line["msg"], line["update_id"], line["chat_id"], line["level"]
('hello world', 7, -100, 'INFO')
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import json
import logging
from collections.abc import Iterator
from typing import Any, TextIO

FIELDS = ("update_id", "chat_id", "user_id", "game_id")
"""The ids a log line carries when it was written while handling an update."""

_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "nardy_log_context", default=None)


@contextlib.contextmanager
def bind(**ids: Any) -> Iterator[dict[str, Any]]:
    """Tag log lines written inside the block (and tasks started there) with ``ids``.

    The yielded dict may be extended later (e.g. once the game id is known).
    """
    merged = {**(_context.get() or {}), **{k: v for k, v in ids.items() if v is not None}}
    token = _context.set(merged)
    try:
        yield merged
    finally:
        _context.reset(token)


def current() -> dict[str, Any]:
    """The ids bound now (empty outside an update)."""
    return dict(_context.get() or {})


class ContextFilter(logging.Filter):
    """Copies the bound ids onto each record (``None`` where unknown)."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = _context.get() or {}
        for name in FIELDS:
            setattr(record, name, ids.get(name))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, msg, the bound ids, exc."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.datetime.fromtimestamp(record.created, datetime.UTC)
            .isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The classic line, with ``[update=… chat=… game=…]`` when handling an update."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(ids)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = " ".join(f"{name.removesuffix('_id')}={getattr(record, name)}"
                       for name in FIELDS if getattr(record, name, None) is not None)
        record.ids = f" [{ids}]" if ids else ""
        return super().format(record)


def configure(level: str, fmt: str = "text", *, stream: TextIO | None = None,
              logger_name: str | None = None) -> logging.Logger:
    """Send ``logger_name``'s (default: the root's) records to ``stream`` (stderr)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(ContextFilter())
    logger = logging.getLogger(logger_name)
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    if logger_name is not None:
        logger.propagate = False
    # httpx logs every request at INFO, and APScheduler every job it adds
    # ("Adding job tentatively ..." before the application starts): far too
    # chatty for a bot whose own INFO lines should be read
    for chatty in ("httpx", "apscheduler"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    return logger
