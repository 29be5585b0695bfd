"""The bot's HTTP side: the webhook, ``/healthz``, ``/livez`` and ``/metrics``.

Why our own small server rather than ``Application.run_webhook``: PTB's
webhook server answers Telegram as soon as the update is *queued*, so an
update whose handling then fails is lost (Telegram only retries non-2xx
answers).  Here the webhook request awaits :func:`bot.edge.ops.handle_once` and
answers 200 only once the update is handled (or was handled before); a
failure that a retry may fix answers 500 and an update another worker is
still handling 503, and Telegram delivers it again.  It is tornado, which
PTB's webhook extra installs anyway, on the application's own event loop.

Requests without the right ``X-Telegram-Bot-Api-Secret-Token`` get 403 and
change nothing; the header is checked as soon as the headers have arrived,
before any of the body is read (the connection is then closed, the body never
read).  A body over :data:`MAX_BODY` bytes gets 413, also unread when its
``Content-Length`` says so, else as soon as that much has arrived; Telegram's
updates are far smaller.  At most ``max_updates`` webhook requests are read or
handled at once (Telegram opens at most ``max_connections``); another gets 503
at once, and Telegram delivers it again later.

``/healthz`` is 200 while Redis answers PING, else 503 (take
the worker out of the load balancer); ``/livez`` is 200 while the event loop
runs.  :meth:`WebServer.drain` is the graceful stop: no new requests, wait for
those being handled.

:func:`serve_webhook` runs the bot in webhook mode until SIGTERM or SIGINT.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import signal
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import tornado.httpserver
import tornado.netutil
import tornado.web
from telegram import Update
from tornado.httputil import HTTPServerRequest

from bot.edge import metrics
from bot.edge.http import close_all
from bot.edge.ops import UpdateOutcome, handle_in_slot
from bot.edge.startup import retrying
from bot.store import Store

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DRAIN_TIMEOUT = 25.0
"""Seconds a stopping worker waits for the updates it is handling (platforms
usually kill 30 s after SIGTERM)."""
MAX_BODY = 1024 * 1024
"""Bytes a request body may have (updates are a few kB; a photo's is under 10 kB)."""
BODY_TIMEOUT = 30.0
"""Seconds a request body may take to arrive (a slow sender keeps a slot that long)."""
STATUS = {UpdateOutcome.DONE: 200, UpdateOutcome.DUPLICATE: 200, UpdateOutcome.GIVEN_UP: 200,
          UpdateOutcome.IN_FLIGHT: 503, UpdateOutcome.FAILED: 500}


class WebServer:
    """The HTTP endpoints of one worker around a running PTB ``Application``.

    ``webhook_path`` None serves only health and metrics (polling mode);
    ``extra_routes``: more tornado routes (the Mini App's, bot/edge/webapp.py).
    """

    def __init__(self, app: Any, *, secret: str | None = None,
                 webhook_path: str | None = None, max_updates: int = 40,
                 extra_routes: list[Any] | None = None) -> None:
        if webhook_path is not None and not secret:
            raise ValueError("a webhook needs a secret token")
        self.app = app
        self.secret = secret
        self.max_updates = max_updates
        self.admitted = 0
        """Webhook requests with the secret being read or handled (at most ``max_updates``)."""
        self.in_flight = 0
        self.draining = False
        self._idle = asyncio.Event()
        self._idle.set()
        routes: list[Any] = [
            (r"/healthz", _Health, {"server": self}),
            (r"/livez", _Live, {"server": self}),
            (r"/metrics", _Metrics, {"server": self}),
        ]
        routes += extra_routes or []
        if webhook_path is not None:
            routes.append((re.escape(webhook_path), _Webhook,
                           {"server": self}))
        # every route: no body over MAX_BODY is ever held in memory
        self._http = tornado.httpserver.HTTPServer(
            tornado.web.Application(routes), max_body_size=MAX_BODY, body_timeout=BODY_TIMEOUT)
        self.port: int | None = None

    @property
    def store(self) -> Store:
        store: Store = self.app.bot_data["store"]
        return store

    def listen(self, port: int, address: str = "127.0.0.1") -> int:
        """Start serving; returns the port (useful with port 0)."""
        sockets = tornado.netutil.bind_sockets(port, address)
        self._http.add_sockets(sockets)
        self.port = sockets[0].getsockname()[1]
        return self.port

    async def drain(self, timeout: float = DRAIN_TIMEOUT) -> bool:
        """Stop accepting requests and wait for those being handled; False on timeout."""
        self.draining = True
        self._http.stop()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            done = True
        except TimeoutError:
            log.error("stopping with %s updates still being handled", self.in_flight)
            done = False
        await self._http.close_all_connections()
        return done

    async def handle(self, update: Update) -> UpdateOutcome:
        self.in_flight += 1
        self._idle.clear()
        try:
            return await handle_in_slot(self.app, update)
        finally:
            self.in_flight -= 1
            if not self.in_flight:
                self._idle.set()


class _Handler(tornado.web.RequestHandler):
    server: WebServer

    def initialize(self, server: WebServer) -> None:
        self.server = server

    def answer(self, status: int, body: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body))


@tornado.web.stream_request_body
class _Webhook(_Handler):
    """The body streams in (:meth:`data_received`) only after :meth:`prepare`
    admitted the request by its headers."""

    _body: bytearray | None = None

    def prepare(self) -> None:
        given = self.request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), (self.server.secret or "").encode()):
            log.warning("webhook request from %s without the secret token", self.request.remote_ip)
            self.answer(403, {"error": "forbidden"})
            return
        if self.server.draining:
            self.answer(503, {"error": "shutting down"})
            return
        if _declared_length(self.request) > MAX_BODY:
            self.answer(413, {"error": "body too large"})
            return
        if self.server.admitted >= self.server.max_updates:
            log.warning("webhook: %s requests at once; asking for a later delivery",
                        self.server.admitted)
            self.answer(503, {"error": "busy"})
            return
        self.server.admitted += 1
        self._body = bytearray()
        # a chunked body: tornado's own cut (MAX_BODY) would answer 400; ours says 413
        self.request.connection.set_max_body_size(4 * MAX_BODY)  # type: ignore[union-attr]

    def data_received(self, chunk: bytes) -> None:
        if self._body is None or self._finished:
            return
        if len(self._body) + len(chunk) > MAX_BODY:
            self._release()
            self.answer(413, {"error": "body too large"})
            return
        self._body += chunk

    def on_finish(self) -> None:
        self._release()

    def on_connection_close(self) -> None:
        self._release()

    def _release(self) -> None:
        if self._body is not None:
            self._body = None
            self.server.admitted -= 1

    async def post(self) -> None:
        if self._finished:  # refused while the body arrived
            return
        body = bytes(self._body or b"")
        try:
            data = json.loads(body)
            if not isinstance(data, dict) or type(data.get("update_id")) is not int:
                raise ValueError("no update_id")
            update = Update.de_json(data, self.server.app.bot)
        except Exception as error:
            log.warning("webhook request with a malformed update: %r", error)
            self.answer(400, {"error": "malformed update"})
            return
        try:
            outcome = await self.server.handle(update)
        except Exception:  # Redis down while claiming: Telegram retries later
            log.exception("update %s: could not be claimed", update.update_id)
            self.answer(500, {"error": "unavailable"})
            return
        self.answer(STATUS[outcome], {"outcome": outcome.value})


class _Health(_Handler):
    async def get(self) -> None:
        ok = await self.server.store.ping()
        self.answer(200 if ok else 503, {"status": "ok" if ok else "unhealthy",
                                         "redis": ok, "in_flight": self.server.in_flight})


class _Live(_Handler):
    def get(self) -> None:
        self.answer(200, {"status": "ok"})


class _Metrics(_Handler):
    async def get(self) -> None:
        try:
            games = self.server.store.games
            metrics.OPEN_GAMES.set(await asyncio.wait_for(games.open_game_count(), 1))
        except Exception as error:  # the metrics page still shows the rest
            log.warning("open game count unavailable: %r", error)
        body, content_type = metrics.exposition()
        self.set_header("Content-Type", content_type)
        self.finish(body)


def _declared_length(request: HTTPServerRequest) -> int:
    """The body's declared ``Content-Length`` (0 when chunked or absent)."""
    try:
        return int(request.headers.get("Content-Length", "0"))
    except ValueError:
        return 0


def webhook_path(url: str) -> str:
    """The path Telegram posts to, from the public ``WEBHOOK_URL``.

    >>> webhook_path("https://bot.example.org/tg/hook"), webhook_path("https://bot.example.org")
    ('/tg/hook', '/')
    """
    return urlsplit(url).path or "/"


async def serve_webhook(app: Any, *, url: str, secret: str, listen: str, port: int,
                        start: Callable[[], Awaitable[None]],
                        stop: Callable[[], Awaitable[None]],
                        max_connections: int = 40, startup_seconds: float = 0,
                        extra_routes: Callable[[], list[Any]] | None = None) -> None:
    """Run ``app`` by webhook until SIGTERM/SIGINT, then stop gracefully.

    ``start`` opens what the handlers need (Redis) after ``getMe``, before the
    first update;
    ``stop`` closes it after the last.  Every worker registers the same URL
    (idempotent); the webhook is not deleted on stop, so Telegram keeps the
    updates for the other workers or the next start.  ``getMe`` and
    ``setWebhook`` wait out a passing failure for ``startup_seconds``
    (:mod:`bot.edge.startup`).
    """
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    try:
        # getMe first: ``start`` also registers the command menu, which needs the
        # initialized Bot API client (before, it failed at every webhook start)
        await retrying(app.initialize, what="getMe", budget=startup_seconds)
        await start()
    except BaseException:
        await close_all(app.bot_data["http"])  # PTB leaves a failed start-up's sessions open
        await stop()
        raise
    await app.start()
    server = WebServer(app, secret=secret, webhook_path=webhook_path(url),
                       max_updates=max_connections,
                       extra_routes=extra_routes() if extra_routes is not None else None)
    try:
        server.listen(port, listen)
        await retrying(lambda: app.bot.set_webhook(
            url, secret_token=secret, allowed_updates=Update.ALL_TYPES,
            max_connections=max_connections), what="setWebhook", budget=startup_seconds)
        log.info("webhook %s: listening on %s:%s", webhook_path(url), listen, server.port)
        await stopping.wait()
        log.info("stopping: finishing %s updates being handled", server.in_flight)
        await server.drain()
    finally:
        await app.stop()
        await app.shutdown()
        await stop()
        log.info("stopped")
