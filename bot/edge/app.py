"""The python-telegram-bot application: build it, register the handlers, run it.

:func:`build_application` wires everything (used by tests with their own
store and dice); :func:`main` reads the settings, opens Redis and runs the
bot by long polling, or by webhook when ``WEBHOOK_URL`` is set (our own server,
:mod:`bot.edge.web`, which answers Telegram only once an update is handled).
Either way every update passes :func:`bot.edge.ops.handle_once` (handled once over
all workers) and every message the shared flood limiter (:mod:`bot.edge.limits`).

Environment knobs besides :mod:`bot.edge.config`'s settings (read only here):

``NARDY_TEST_SEED``
    An integer: every new match's dice seed is ``DiceSeed.from_test_seed``
    of it (salted with a counter) instead of 32 bytes from ``secrets``.  For
    tests and benchmarks only: a bot with this set has predictable dice, and
    says so in its log at start-up.
``NARDY_TEST_CLOCK``
    A file holding a number of seconds: every clock decision (deadlines,
    reminders, timeouts) takes the time as ``time.time()`` plus that offset,
    re-read on each use (:func:`bot.vocab.clock.now`).  Tests only: it lets a test
    move a running bot's clock by days.
``NARDY_CLOCK_INTERVAL``
    Seconds between two looks for due clocks (default 5).
``NARDY_RATE_LIMIT``
    Messages per second the bot allows itself towards the Bot API over all
    chats and workers (default 30, Telegram's limit; ``0`` turns proactive
    limiting off, and the per-user input limit of :mod:`bot.edge.handlers.pace`
    with it, which the benchmarks do against the local test server: their
    players tap faster than people).  Flood-wait answers (429) are always
    honoured and retried.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from typing import Any

from telegram import Update
from telegram.error import BadRequest, InvalidToken, NetworkError, RetryAfter
from telegram.ext import Application, ApplicationBuilder, BaseRateLimiter, Defaults

from bot.edge import handlers, logs, ops, startup
from bot.edge.config import ConfigError, Settings, load_settings
from bot.edge.effects import JournaledRequest
from bot.edge.handlers import board, menu, pace
from bot.edge.handlers.computer import COMPUTER_IDLE, COMPUTER_PER_PERSON
from bot.edge.http import close_all
from bot.edge.incoming import PollingRequest
from bot.edge.limits import OVERALL, SharedRateLimiter, Window
from bot.rules.dice import Dealer
from bot.store import Store
from bot.vocab.i18n import LANGUAGES, translator

log = logging.getLogger("bot")

CONCURRENT_UPDATES = 64
"""Updates handled at once; every game change is a compare-and-set, so
concurrent taps never apply twice."""


def dice_source() -> Dealer:
    """The dice seeds: the system's CSPRNG, or predictable ones for tests."""
    seed = os.environ.get("NARDY_TEST_SEED")
    if seed is not None:
        log.warning("NARDY_TEST_SEED is set: dice are predictable (tests only)")
        return Dealer.for_tests(int(seed))
    return Dealer()


def rate_limiter() -> SharedRateLimiter:
    """The flood limiter shared by all workers through Redis (attached at start)."""
    overall = int(float(os.environ.get("NARDY_RATE_LIMIT", str(OVERALL.limit))))
    return SharedRateLimiter(overall=Window(overall, 1.0) if overall > 0 else None)


AnyApp = Application[Any, Any, Any, Any, Any, Any]


def build_application(
    token: str,
    store: Store | None,
    *,
    dealer: Dealer | None = None,
    base_url: str | None = None,
    base_file_url: str | None = None,
    limiter: BaseRateLimiter[Any] | None = None,
    media_chat: int | str | None = None,
    input_limit: bool | None = None,
    ping_delay: float = board.DEFAULT_PING_DELAY,
) -> AnyApp:
    """The application with every handler registered and its dependencies in
    bot_data; ``media_chat``: where inline games' board pictures go (``MEDIA_CHAT_ID``);
    ``input_limit``: the per-user input limit (default: unless ``NARDY_RATE_LIMIT=0``);
    ``ping_delay``: seconds before a group's turn ping (``TURN_PING_DELAY``)."""
    processor = ops.GatedUpdateProcessor(CONCURRENT_UPDATES)
    builder = ApplicationBuilder().token(token).concurrent_updates(processor)
    builder = builder.defaults(Defaults(parse_mode="HTML"))
    # PTB's sizes: many connections for sending, one for the long poll; the
    # sending one keeps each update's journal of side effects (bot/edge/effects.py),
    # the polling one notes each update's identity from its JSON (bot/edge/incoming.py)
    requests = (JournaledRequest(256), PollingRequest(1))
    builder = builder.request(requests[0]).get_updates_request(requests[1])
    if base_url:
        builder = builder.base_url(base_url)
    if base_file_url:
        builder = builder.base_file_url(base_file_url)
    builder = builder.post_init(set_commands)
    if limiter is not None:
        builder = builder.rate_limiter(limiter)
    app = builder.build()
    processor.app = app
    if store is not None:
        app.bot_data["store"] = store
    app.bot_data["dealer"] = dealer if dealer is not None else dice_source()
    app.bot_data["http"] = requests
    app.bot_data[board.MEDIA_CHAT] = media_chat
    app.bot_data[board.PING_DELAY] = ping_delay
    if input_limit is None:
        input_limit = os.environ.get("NARDY_RATE_LIMIT") != "0"
    if input_limit:
        pace.register(app)
    handlers.register(app)
    app.add_error_handler(ops.note_failure)  # after the central one: retry decisions
    return app


async def set_commands(app: AnyApp) -> None:
    """Register the command list in every language (English as the default)."""
    for lang in LANGUAGES:
        tr = translator(lang)
        code = None if lang == LANGUAGES[0] else lang
        for scope in menu.scopes():
            try:
                await app.bot.set_my_commands(menu.menu(tr, scope), scope=scope.bot_scope(),
                                              language_code=code)
            except Exception:  # a failure here must not stop the bot from playing
                log.exception("setMyCommands failed for %s", lang)


def mini_app_routes(app: AnyApp, settings: Settings) -> list[Any]:
    """The Mini App's routes (bot/edge/webapp.py); from now on boards show its button."""
    from bot.edge.webapp import Webapp, routes
    from bot.present import webapp

    assert settings.webapp_url is not None
    webapp.LINKS = webapp.WebappLinks(settings.webapp_url, settings.webapp_name,
                                      app.bot.username)
    return routes(Webapp(app, settings.bot_token.get_secret_value()))


def run(settings: Settings) -> None:
    """Open Redis, then run the bot until SIGTERM/SIGINT (finishing the updates
    being handled)."""
    import asyncio

    from bot.edge.web import WebServer, serve_webhook
    from bot.store.connection import open_redis

    stack = contextlib.AsyncExitStack()
    limiter = rate_limiter()
    # The Redis client must be made inside PTB's event loop: post_init.
    app = build_application(settings.bot_token.get_secret_value(), None,
                            base_url=settings.base_url, base_file_url=settings.base_file_url,
                            limiter=limiter, media_chat=settings.media_chat_id,
                            ping_delay=settings.turn_ping_delay)
    ops_server: list[WebServer] = []

    async def open_store(application: AnyApp) -> None:
        redis = await stack.enter_async_context(
            open_redis(settings.redis_url, settings.data_dir, settings.redis_cluster))
        application.bot_data["store"] = Store(redis, max_live=settings.max_chat_games)
        application.bot_data[COMPUTER_PER_PERSON] = settings.computer_games_per_person
        application.bot_data["store"].games.bots_per_person = settings.computer_games_per_person
        application.bot_data[COMPUTER_IDLE] = settings.computer_idle_days * 24 * 3600
        limiter.attach(application.bot_data["store"].flood)
        await set_commands(application)
        if settings.ops_port is not None and not settings.use_webhook:
            ops_server.append(WebServer(application))
            port = ops_server[0].listen(settings.ops_port, settings.webhook_listen)
            log.info("health and metrics on %s:%s", settings.webhook_listen, port)
        if settings.webapp_url is not None and not settings.use_webhook:
            # polling: a web server of its own for the Mini App (by webhook, the webhook's)
            ops_server.append(WebServer(application, extra_routes=webapp_routes(application)))
            listen = settings.webapp_listen or settings.webhook_listen
            port = ops_server[-1].listen(settings.webapp_port, listen)
            log.info("Mini App on %s:%s (%s)", listen, port, settings.webapp_url)

    def webapp_routes(application: AnyApp) -> list[Any]:
        return (mini_app_routes(application, settings) if settings.webapp_url is not None
                else [])

    async def close_store(_application: AnyApp) -> None:
        for server in ops_server:
            await server.drain(1)
        store = _application.bot_data.get("store")
        if store is not None:
            await store.replicas.close()  # its own connections to a cluster's masters
        await stack.aclose()

    if settings.use_webhook:
        assert settings.webhook_url is not None and settings.webhook_secret is not None
        asyncio.run(serve_webhook(
            app, url=settings.webhook_url, secret=settings.webhook_secret.get_secret_value(),
            listen=settings.webhook_listen, port=settings.webhook_port,
            max_connections=settings.webhook_max_connections,
            start=lambda: open_store(app), stop=lambda: close_store(app),
            startup_seconds=settings.startup_retry_seconds,
            extra_routes=lambda: webapp_routes(app)))
    else:
        app.post_init = open_store
        app.post_shutdown = close_store
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)  # the one run_polling runs on
        try:
            # getMe, waiting out a passing failure; run_polling then finds it done
            loop.run_until_complete(startup.retrying(
                app.initialize, what="getMe", budget=settings.startup_retry_seconds))
            app.run_polling(allowed_updates=Update.ALL_TYPES, close_loop=False)
        finally:
            loop.run_until_complete(close_all(app.bot_data["http"]))
            loop.close()


def main() -> None:
    try:
        settings = load_settings()
    except ConfigError as error:
        print(error, file=sys.stderr)
        sys.exit(error.exit_code)
    logs.configure(settings.log_level, settings.log_format)
    from bot.store.connection import DataDirError

    try:
        run(settings)
    except DataDirError as error:
        print(f"nardy: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    except InvalidToken:
        print("nardy: Telegram rejected BOT_TOKEN (check it with @BotFather)", file=sys.stderr)
        sys.exit(2)
    except BadRequest as error:  # e.g. setWebhook refused WEBHOOK_URL
        print(f"nardy: the Telegram Bot API at {settings.api_url} refused a start-up call: "
              f"{error}", file=sys.stderr)
        sys.exit(1)
    except (NetworkError, RetryAfter) as error:  # only start-up gets here: PTB retries later
        print(startup.unreachable(settings.api_url, error, settings.startup_retry_seconds),
              file=sys.stderr)
        sys.exit(1)
