"""A local Telegram Bot API for end-to-end tests and benchmarks; see README.md here."""

from tests.botapi.model import Answer, ApiError, Chat, Message, RequestRecord, StoredFile, Tap, User
from tests.botapi.process import BotProcess, BotProcessError
from tests.botapi.server import DEFAULT_TOKEN, BotApiServer, WebhookDelivery

__all__ = [
    "DEFAULT_TOKEN",
    "Answer",
    "ApiError",
    "BotApiServer",
    "BotProcess",
    "BotProcessError",
    "Chat",
    "Message",
    "RequestRecord",
    "StoredFile",
    "Tap",
    "User",
    "WebhookDelivery",
]
