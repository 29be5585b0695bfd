"""Settings: every bad value stops start-up with one line naming the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.edge.config import ConfigError, Settings, load_settings

TOKEN = "123456:ABC-def_ghi"
PREFIX = "nardy: configuration error: "


def problem(environ: dict[str, str], env_file: Path | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ=environ, env_file=env_file)
    message = str(caught.value)
    assert message.startswith(PREFIX) and "\n" not in message
    assert caught.value.exit_code == 2
    return message.removeprefix(PREFIX)


def test_defaults_with_only_a_token() -> None:
    settings = load_settings(environ={"BOT_TOKEN": TOKEN}, env_file=None)
    assert settings.bot_token.get_secret_value() == TOKEN
    assert (settings.redis_url, settings.log_level) == (None, "INFO")
    assert settings.data_dir == Path("data")
    assert (settings.base_url, settings.base_file_url, settings.use_webhook) == (None, None, False)
    assert (settings.webhook_listen, settings.webhook_port) == ("127.0.0.1", 8443)


def test_missing_token_names_it_and_says_where_to_set_it() -> None:
    assert problem({}) == "BOT_TOKEN is missing (set it in the environment or .env)"


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("BOT_TOKEN", "not-a-token", "does not look like a bot token"),
        ("REDIS_URL", "http://127.0.0.1:6379", "must be a redis/rediss/unix URL"),
        ("TELEGRAM_API_URL", "127.0.0.1:8081", "must be a http/https URL"),
        ("WEBHOOK_URL", "ftp://example.org/hook", "must be a http/https URL"),
        ("WEBHOOK_SECRET", "has spaces", "must be 1-256 characters"),
        ("WEBHOOK_PORT", "70000", "less than or equal to 65535"),
        ("WEBHOOK_PORT", "eighty", "valid integer"),
        ("LOG_LEVEL", "chatty", "'DEBUG', 'INFO', 'WARNING', 'ERROR' or 'CRITICAL'"),
        ("REDIS_CLUSTER", "maybe", "valid boolean"),
    ],
)
def test_a_malformed_setting_is_named_with_the_reason(name: str, value: str, reason: str) -> None:
    message = problem({"BOT_TOKEN": TOKEN, name: value})
    assert message.startswith(f"{name} is malformed: ") and reason in message
    assert value not in message  # values (maybe secrets) are never echoed


@pytest.mark.parametrize("url", [None, "unix:///run/redis.sock"])
def test_a_cluster_needs_a_tcp_redis_url(url: str | None) -> None:
    environ = {"BOT_TOKEN": TOKEN, "REDIS_CLUSTER": "1"} | ({"REDIS_URL": url} if url else {})
    assert "REDIS_CLUSTER needs a redis:// or rediss:// REDIS_URL" in problem(environ)
    ok = load_settings(environ=environ | {"REDIS_URL": "redis://127.0.0.1:7000"}, env_file=None)
    assert ok.redis_cluster


def test_several_problems_stay_on_one_line() -> None:
    assert problem({"LOG_LEVEL": "x", "WEBHOOK_PORT": "0"}).count("; ") == 2


def test_values_come_from_dotenv_and_the_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"BOT_TOKEN={TOKEN}\nLOG_LEVEL=debug\nREDIS_URL=\n"
        "TELEGRAM_API_URL=http://127.0.0.1:8081/\nWEBHOOK_PORT=9000\n"
    )
    settings = load_settings(environ={"WEBHOOK_PORT": "9001", "UNRELATED": "x"}, env_file=env_file)
    assert (settings.log_level, settings.redis_url, settings.webhook_port) == ("DEBUG", None, 9001)
    assert settings.base_url == "http://127.0.0.1:8081/bot"
    assert settings.base_file_url == "http://127.0.0.1:8081/file/bot"


def test_the_process_environment_is_read_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("WEBHOOK_URL", "https://bot.example.org/hook")
    monkeypatch.setenv("WEBHOOK_SECRET", "s3cret")  # a webhook needs its secret
    settings = load_settings()
    assert settings.use_webhook and settings.webhook_url == "https://bot.example.org/hook"
    monkeypatch.delenv("BOT_TOKEN")
    with pytest.raises(ConfigError, match="BOT_TOKEN is missing"):
        load_settings()


def test_env_example_lists_every_setting() -> None:
    example = (Path(__file__).parents[3] / ".env.example").read_text()
    listed = {line.split("=")[0] for line in example.splitlines() if "=" in line and line[0] != "#"}
    assert listed == {name.upper() for name in Settings.model_fields}


def test_the_games_a_chat_may_have_at_once() -> None:
    assert load_settings(environ={"BOT_TOKEN": "1:a"}, env_file=None).max_chat_games == 10
    chosen = load_settings(environ={"BOT_TOKEN": "1:a", "MAX_CHAT_GAMES": "3"}, env_file=None)
    assert chosen.max_chat_games == 3
    with pytest.raises(ConfigError, match="MAX_CHAT_GAMES is malformed"):
        load_settings(environ={"BOT_TOKEN": "1:a", "MAX_CHAT_GAMES": "-1"}, env_file=None)
@pytest.mark.parametrize(("value", "expected"), [
    ("-1001234567890", -1001234567890), ("@nardy_boards", "@nardy_boards"), (" 42 ", 42)])
def test_media_chat_is_an_id_or_a_channel_name(value: str, expected: object) -> None:
    settings = load_settings(environ={"BOT_TOKEN": TOKEN, "MEDIA_CHAT_ID": value}, env_file=None)
    assert settings.media_chat_id == expected


@pytest.mark.parametrize("value", ["boards", "@x", "-100x"])
def test_a_malformed_media_chat_stops_start_up(value: str) -> None:
    with pytest.raises(ConfigError, match="MEDIA_CHAT_ID is malformed: must be a chat id"):
        load_settings(environ={"BOT_TOKEN": TOKEN, "MEDIA_CHAT_ID": value}, env_file=None)
