"""The python-telegram-bot application: build it, register the handlers, run it.

:func:`build_application` wires everything (used by tests with their own
store and dice); :func:`main` reads the settings, opens Redis and runs the
bot by long polling, or by webhook when ``WEBHOOK_URL`` is set.

Environment knobs besides :mod:`bot.config`'s settings (read only here):

``NARDY_TEST_SEED``
    An integer: roll the dice from ``random.Random(seed)`` instead of
    ``secrets.SystemRandom()``.  For tests and benchmarks only: a bot with
    this set has predictable dice, and says so in its log at start-up.
``NARDY_RATE_LIMIT``
    Requests per second the bot allows itself towards the Bot API
    (default 30, Telegram's limit; ``0`` turns proactive limiting off, which
    the benchmark does against the local test server).  Flood-wait answers
    (429) are always honoured and retried.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import secrets
import sys
from typing import Any

from telegram import BotCommand, Update
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder, Defaults

from bot import handlers
from bot.config import ConfigError, Settings, load_settings
from bot.i18n import LANGUAGES, N_, translator
from bot.store import Store

log = logging.getLogger("bot")

COMMANDS = (
    ("new", N_("Start a game: /new long or /new backgammon")),
    ("board", N_("Show the current board again")),
    ("cancel", N_("Close the lobby or cancel the game")),
    ("export", N_("Send the game record as a file")),
    ("rules", N_("How to play and how the buttons work")),
    ("lang", N_("Choose the chat language")),
    ("help", N_("What this bot does")),
)
CONCURRENT_UPDATES = 64
"""Updates handled at once; every game change is a compare-and-set, so
concurrent taps never apply twice."""


def dice_source() -> random.Random:
    """The dice: the system's CSPRNG, or a seeded generator for tests."""
    seed = os.environ.get("NARDY_TEST_SEED")
    if seed is not None:
        log.warning("NARDY_TEST_SEED is set: dice are predictable (tests only)")
        return random.Random(int(seed))
    return secrets.SystemRandom()


def rate_limiter() -> AIORateLimiter:
    rate = float(os.environ.get("NARDY_RATE_LIMIT", "30"))
    # group_max_rate=0: Telegram's "20 messages a minute in a group" is about
    # new messages; a game edits one message many times a minute, and any
    # real flood limit comes back as 429 with retry_after, which is honoured.
    return AIORateLimiter(overall_max_rate=rate, group_max_rate=0, max_retries=3)


AnyApp = Application[Any, Any, Any, Any, Any, Any]


def build_application(
    token: str,
    store: Store | None,
    *,
    rng: random.Random | None = None,
    base_url: str | None = None,
    base_file_url: str | None = None,
    limiter: AIORateLimiter | None = None,
) -> AnyApp:
    """The application with every handler registered and its dependencies in bot_data."""
    builder = ApplicationBuilder().token(token).concurrent_updates(CONCURRENT_UPDATES)
    builder = builder.defaults(Defaults(parse_mode="HTML"))
    if base_url:
        builder = builder.base_url(base_url)
    if base_file_url:
        builder = builder.base_file_url(base_file_url)
    builder = builder.post_init(set_commands)
    if limiter is not None:
        builder = builder.rate_limiter(limiter)  # type: ignore[arg-type]
    app = builder.build()
    if store is not None:
        app.bot_data["store"] = store
    app.bot_data["rng"] = rng if rng is not None else dice_source()
    handlers.register(app)
    return app


async def set_commands(app: AnyApp) -> None:
    """Register the command list in every language (English as the default)."""
    for lang in LANGUAGES:
        tr = translator(lang)
        commands = [BotCommand(name, tr.gettext(text)) for name, text in COMMANDS]
        code = None if lang == LANGUAGES[0] else lang
        try:
            await app.bot.set_my_commands(commands, language_code=code)
        except Exception:  # a failure here must not stop the bot from playing
            log.exception("setMyCommands failed for %s", lang)


def run(settings: Settings) -> None:
    """Open Redis, then run the bot until interrupted."""
    from bot.storage import open_redis

    stack = contextlib.AsyncExitStack()
    # The Redis client must be made inside PTB's event loop: post_init.
    app = build_application(settings.bot_token.get_secret_value(), None,
                            base_url=settings.base_url, base_file_url=settings.base_file_url,
                            limiter=rate_limiter())

    async def open_store(application: AnyApp) -> None:
        redis = await stack.enter_async_context(open_redis(settings.redis_url, settings.data_dir))
        application.bot_data["store"] = Store(redis)
        await set_commands(application)

    async def close_store(_application: AnyApp) -> None:
        await stack.aclose()

    app.post_init = open_store
    app.post_shutdown = close_store
    if settings.use_webhook:
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        app.run_webhook(listen=settings.webhook_listen, port=settings.webhook_port,
                        webhook_url=settings.webhook_url, secret_token=secret,
                        allowed_updates=Update.ALL_TYPES)
    else:
        app.run_polling(allowed_updates=Update.ALL_TYPES)


def main() -> None:
    try:
        settings = load_settings()
    except ConfigError as error:
        print(error, file=sys.stderr)
        sys.exit(error.exit_code)
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # httpx logs every request at INFO: far too chatty for a bot
    logging.getLogger("httpx").setLevel(logging.WARNING)
    run(settings)
