"""A local HTTP server that speaks the Telegram Bot API, for end-to-end tests and benchmarks.

The real bot process talks to it through python-telegram-bot's ``base_url``; test code drives
a simulated world of users and chats (``user_sends``, ``user_taps``...) and asserts on what
the bot did (``wait_message``, ``messages``, ``requests``).  Everything test-facing is
thread-safe.  See tests/botapi/README.md for a walk-through.

:class:`BotApiServer` is composed of one mixin per concern over the shared
world (``core.py``): chats and users (``chats.py``), messages (``messages.py``),
media (``media.py``), button taps (``callbacks.py``), inline mode (``inline.py``),
floods and faults (``limits.py``), updates by polling or webhook (``updates.py``),
the bot's profile and menus (``profile.py``); keyboards are checked in
``keyboards.py``, HTTP is ``transport.py``.  Each ``_m_<name>`` method of a
mixin implements the Bot API method whose lower-cased name is ``<name>``
without underscores; it gets the decoded parameters and uploaded files.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from tests.botapi.callbacks import MAX_ANSWER_TEXT, QUERY_TOO_OLD, CallbacksMixin
from tests.botapi.chats import ChatsMixin
from tests.botapi.core import DEFAULT_TOKEN, Checkable, _ChatState
from tests.botapi.inline import InlineMode
from tests.botapi.keyboards import BUTTON_KINDS, MAX_BUTTONS, MAX_CALLBACK_DATA, MAX_ROW_BUTTONS
from tests.botapi.limits import SENDING_METHODS, LimitsMixin
from tests.botapi.media import MediaMixin, _with_image_size
from tests.botapi.messages import MAX_CAPTION, MAX_TEXT, NOT_MODIFIED
from tests.botapi.model import JSON, ApiError, RequestRecord, StoredFile, bad_request
from tests.botapi.profile import ProfileMixin
from tests.botapi.transport import _Handler, _HTTPServer, _json_response, _parse_params
from tests.botapi.updates import UpdatesMixin, WebhookDelivery

__all__ = [
    "BUTTON_KINDS",
    "DEFAULT_TOKEN",
    "MAX_ANSWER_TEXT",
    "MAX_BUTTONS",
    "MAX_CALLBACK_DATA",
    "MAX_CAPTION",
    "MAX_ROW_BUTTONS",
    "MAX_TEXT",
    "NOT_MODIFIED",
    "QUERY_TOO_OLD",
    "SENDING_METHODS",
    "BotApiServer",
    "Checkable",
    "WebhookDelivery",
    "_ChatState",
    "_with_image_size",
]


class BotApiServer(ChatsMixin, CallbacksMixin, MediaMixin, LimitsMixin, UpdatesMixin,
                   ProfileMixin, InlineMode):
    """The simulated Bot API.  ``with BotApiServer() as server:`` starts it on a free port.

    ``token`` is the one token accepted (None accepts any); requests with another get 401.
    ``privacy_mode`` mirrors Telegram's default: in groups where the bot is not an admin it
    only receives commands, replies to its own messages and service messages.
    ``telegram_limits``: answer 429 above Telegram's flood limits (``limits.py``;
    off only for a bot run without its limiter), ``limits_speed`` times faster.
    """

    def __init__(self, token: str | None = DEFAULT_TOKEN, *, bot_username: str = "nardy_test_bot",
                 bot_name: str = "Nardy Test", privacy_mode: bool = True,
                 host: str = "127.0.0.1", port: int = 0, telegram_limits: bool = True,
                 limits_speed: float = 1.0) -> None:
        super().__init__(token, bot_username=bot_username, bot_name=bot_name,
                         privacy_mode=privacy_mode)
        self._init_chats()
        self._init_callbacks()
        self._init_limits(telegram_limits, limits_speed)
        self._init_updates()
        self._init_profile()
        self._init_inline()
        self._methods: dict[str, Callable[[JSON, dict[str, StoredFile]], Any]] = {
            name[len("_m_"):].replace("_", ""): getattr(self, name)
            for name in dir(self) if name.startswith("_m_")
        }
        self._host = host
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.api = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server root for ``TELEGRAM_API_URL``, e.g. ``http://127.0.0.1:40123``."""
        return f"http://{self._host}:{self._httpd.server_port}"

    @property
    def base_url(self) -> str:
        """PTB's ``base_url`` for this server."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """PTB's ``base_file_url`` for this server."""
        return f"{self.url}/file/bot"

    def start(self) -> BotApiServer:
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever,
                                            kwargs={"poll_interval": 0.05},
                                            name="botapi-server", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pending long polls return at once, webhook workers end."""
        with self._cond:
            self._closing = True
            self._webhook_generation += 1
            self._cond.notify_all()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> BotApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> BotApiServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    def _dispatch(self, path: str, query: str, content_type: str, body: bytes
                  ) -> tuple[int, str, bytes]:
        path = unquote(path)  # PTB percent-encodes the token's ":" in file URLs
        m = re.fullmatch(r"/file/bot([^/]+)/(.+)", path)
        if m:
            return self._download(m.group(1), m.group(2))
        m = re.fullmatch(r"/bot([^/]*)/([A-Za-z]+)", path)
        if m is None:
            return _json_response(ApiError(404, "Not Found").to_dict(), 404)
        token, method = m.groups()
        started = self.clock()
        try:
            params, uploads = _parse_params(query, content_type, body)
        except ValueError as err:
            return _json_response(bad_request(str(err)).to_dict(), 400)
        files = {name: self._new_file(*upload) for name, upload in uploads.items()}
        handler = self._methods.get(method.lower())
        try:
            if self.token is not None and token != self.token:
                raise ApiError(401, "Unauthorized")
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            with self._cond:
                self._check_flood(method.lower(), params)
            result = handler(params, files)
            status, response = 200, {"ok": True, "result": result}
        except ApiError as err:
            status, response = err.code, err.to_dict()
        with self._cond:
            self._requests.append(RequestRecord(method, params, files, started, status, response))
            # what a request changed in a chat woke that chat already
            chat_id = params.get("chat_id")
            self._bump(chat_id if isinstance(chat_id, int) else None)
        return _json_response(response, status)
