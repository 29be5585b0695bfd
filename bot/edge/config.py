"""The bot's settings: read from the environment and `.env`, checked once at start-up.

`load_settings()` is what `main()` calls.  A missing or malformed setting raises
`ConfigError` whose text is ONE line naming the setting and the reason; the
caller prints it and exits with `ConfigError.exit_code` (2).  Secrets are never
echoed back in that line.

>>> s = load_settings(environ={"BOT_TOKEN": "123:abc"}, env_file=None)
>>> s.log_level, s.redis_url, s.webhook_port
('INFO', None, 8443)
>>> try:
...     load_settings(environ={}, env_file=None)
... except ConfigError as error:
...     print(error)
nardy: configuration error: BOT_TOKEN is missing (set it in the environment or .env)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

TELEGRAM_API = "https://api.telegram.org"
"""The Bot API's root when ``TELEGRAM_API_URL`` is not set (PTB's default)."""

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

# Telegram's token shape is "<bot id>:<secret>"; the secret's length is not
# promised, so only the shape is checked (test servers use short ones).
_TOKEN = re.compile(r"^[0-9]+:[A-Za-z0-9_-]+$")
# Telegram allows 1-256 of these characters in X-Telegram-Bot-Api-Secret-Token.
_WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class ConfigError(Exception):
    """A setting is missing or malformed; `str(error)` is the one line to print."""

    exit_code = 2


def _check_url(value: str | None, schemes: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in schemes or not (parts.netloc or parts.path):
        raise ValueError(f"must be a {'/'.join(schemes)} URL")
    return value.rstrip("/") if parts.scheme.startswith("http") else value


class Settings(BaseSettings):
    """Every setting of the bot; see `.env.example` for what each one means."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # `REDIS_URL=` in .env means "not set"
        extra="ignore",
        case_sensitive=False,
        frozen=True,
    )

    bot_token: SecretStr
    redis_url: str | None = None
    redis_cluster: bool = False
    data_dir: Path = Path("data")
    telegram_api_url: str | None = None
    log_level: LogLevel = "INFO"
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    webhook_max_connections: int = Field(default=40, ge=1, le=100)
    log_format: Literal["text", "json"] = "text"
    ops_port: int | None = Field(default=None, ge=0, le=65535)
    startup_retry_seconds: float = Field(default=60.0, ge=0, le=3600)
    max_chat_games: int = Field(default=10, ge=0, le=1000)
    """Games at once (lobbies included) per chat or forum topic; 0: no limit."""
    computer_games_per_person: int = Field(default=1, ge=0, le=1000)
    """Games against the computer one person may play at once per chat or topic; 0: no limit."""
    computer_idle_days: float = Field(default=7.0, ge=0, le=365)
    """Days a game against the computer may wait for its person before it ends
    (unrated, unbooked); 0: never."""
    webapp_url: str | None = None
    """The Mini App's public HTTPS address (docs/miniapp.md); unset: no app button."""
    webapp_name: str = Field(default="board", pattern=r"^[A-Za-z0-9_]{3,30}$")
    """The app's short name at @BotFather (``/newapp``): the Direct Link's last part."""
    webapp_listen: str | None = None
    """Where the web server listens for the app in polling mode (default WEBHOOK_LISTEN)."""
    webapp_port: int = Field(default=8080, ge=0, le=65535)
    """... and its port (polling mode; by webhook the app is served on WEBHOOK_PORT)."""
    turn_ping_delay: float = Field(default=60.0, ge=0, le=86400)
    """Seconds a player may take before the group gets a "your turn" ping for
    them (a player who started the bot is pinged in the private chat at once
    instead); 0: ping in the group at once (docs/operations.md#turn-pings)."""
    media_chat_id: int | str | None = Field(
        default=None, description="a chat (id or @channel) the bot may post in: inline "
        "games' board pictures are uploaded there (docs/inline.md); unset: text boards")

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        if not _TOKEN.match(value.get_secret_value()):
            raise ValueError("does not look like a bot token (<digits>:<letters>)")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        return _check_url(value, ("redis", "rediss", "unix"))

    @field_validator("telegram_api_url", "webhook_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        return _check_url(value, ("http", "https"))

    @field_validator("webapp_url")
    @classmethod
    def _webapp_url(cls, value: str | None) -> str | None:
        # Telegram opens only HTTPS Mini Apps; plain http is for a browser test on this host
        parts = urlsplit(value or "")
        if value is not None and not (parts.scheme == "https" or (
                parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost"))):
            raise ValueError("must be an https URL")
        return _check_url(value, ("http", "https"))

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _WEBHOOK_SECRET.match(value.get_secret_value()):
            raise ValueError("must be 1-256 characters from A-Z, a-z, 0-9, _ and -")
        return value

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Settings:
        # without it anyone who guesses the URL could post fake updates
        if self.webhook_url is not None and self.webhook_secret is None:
            raise ValueError("WEBHOOK_SECRET is required with WEBHOOK_URL")
        return self

    @model_validator(mode="after")
    def _cluster_needs_url(self) -> Settings:
        # a cluster is reached over TCP; the embedded Redis and unix sockets are single servers
        if self.redis_cluster and not (self.redis_url or "").startswith(("redis:", "rediss:")):
            raise ValueError("REDIS_CLUSTER needs a redis:// or rediss:// REDIS_URL")
        return self

    @field_validator("media_chat_id", mode="before")
    @classmethod
    def _chat_id(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            if re.fullmatch(r"-?[0-9]{1,20}", value):
                return int(value)
            if not re.fullmatch(r"@[A-Za-z][A-Za-z0-9_]{3,31}", value):
                raise ValueError("must be a chat id (e.g. -1001234567890) or an @channel name")
        return value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    @property
    def base_url(self) -> str | None:
        """PTB's `base_url` for a self-hosted Bot API server, or None for Telegram's.

        >>> load_settings(environ={"BOT_TOKEN": "1:a", "TELEGRAM_API_URL": "http://127.0.0.1:8081/"},
        ...               env_file=None).base_url
        'http://127.0.0.1:8081/bot'
        """
        return f"{self.telegram_api_url}/bot" if self.telegram_api_url else None

    @property
    def api_url(self) -> str:
        """The Bot API's root the bot talks to: ``TELEGRAM_API_URL``, else Telegram's.

        >>> load_settings(environ={"BOT_TOKEN": "1:a"}, env_file=None).api_url
        'https://api.telegram.org'
        """
        return self.telegram_api_url or TELEGRAM_API

    @property
    def base_file_url(self) -> str | None:
        """PTB's `base_file_url` matching `base_url`."""
        return f"{self.telegram_api_url}/file/bot" if self.telegram_api_url else None

    @property
    def use_webhook(self) -> bool:
        """True when updates arrive by webhook rather than long polling."""
        return self.webhook_url is not None


def _describe(error: ErrorDetails) -> str:
    name = ".".join(str(part) for part in error["loc"]).upper() or "settings"
    if error["type"] == "missing":
        return f"{name} is missing (set it in the environment or .env)"
    reason = str(error["msg"]).removeprefix("Value error, ")
    return f"{name} is malformed: {reason}"


def load_settings(
    environ: Mapping[str, str] | None = None, env_file: str | Path | None = ".env"
) -> Settings:
    """Read and check the settings, or raise `ConfigError` with one clear line.

    Values come from the process environment (or `environ`, for tests), then
    from `env_file` (None skips it); the environment wins.  Several problems are
    joined with "; " so the message stays one line.

    >>> load_settings(environ={"BOT_TOKEN": "x", "WEBHOOK_PORT": "http"}, env_file=None)
    Traceback (most recent call last):
    ...
    bot.edge.config.ConfigError: nardy: configuration error: BOT_TOKEN is malformed: \
does not look like a bot token (<digits>:<letters>); WEBHOOK_PORT is malformed: \
Input should be a valid integer, unable to parse string as an integer
    """
    try:
        if environ is None:
            return Settings(_env_file=env_file)  # type: ignore[call-arg]
        given: dict[str, Any] = {
            k.lower(): v for k, v in environ.items() if k.lower() in Settings.model_fields and v
        }
        return _ExplicitSettings(_env_file=env_file, **given)  # type: ignore[call-arg]
    except ValidationError as error:
        problems = "; ".join(_describe(e) for e in error.errors(include_input=False))
        raise ConfigError(f"nardy: configuration error: {problems}") from None


class _ExplicitSettings(Settings):
    """Settings from an explicit mapping and `.env` only, not from `os.environ`."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, dotenv_settings
