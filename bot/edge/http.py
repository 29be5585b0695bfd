"""The bot's HTTP client for the Bot API: python-telegram-bot's
:class:`~telegram.request.BaseRequest` on aiohttp.

PTB's own client is built on httpx, which costs ~1.4 ms of the event
loop's CPU per request on a small machine; aiohttp (C-accelerated parser,
no per-request cancel scopes) costs ~0.5 ms.  A tap makes about four
requests (getUpdates, answerCallbackQuery, the board edit and now and then
a notification), so this is the larger part of the CPU a tap costs the
loop, which every other player's tap waits behind.

Timeouts keep PTB's meaning: ``connect_timeout`` bounds opening a
connection, ``pool_timeout`` plus that bounds getting one, ``read_timeout``
bounds each wait for response data, and the request as a whole may last
no longer than all four added up (aiohttp has no per-write timeout).
Timeouts raise :class:`telegram.error.TimedOut`, other failures
:class:`telegram.error.NetworkError`, as with PTB's client.
"""

from __future__ import annotations

import json
import secrets
import ssl
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

import aiohttp
import certifi
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

FORM = "application/x-www-form-urlencoded"


class AiohttpRequest(BaseRequest):
    """Bot API requests over one aiohttp session with ``connection_pool_size``
    keep-alive connections; timeouts in seconds (None: no limit)."""

    def __init__(self, connection_pool_size: int = 1, *, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
                 pool_timeout: float | None = 1.0, media_write_timeout: float | None = 20.0
                 ) -> None:
        self.connection_pool_size = connection_pool_size
        self._defaults = {"read": read_timeout, "write": write_timeout,
                          "connect": connect_timeout, "pool": pool_timeout}
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._defaults["read"]

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            # made here, inside the running loop, as aiohttp requires
            # certifi's CA bundle, as PTB's httpx client uses: the same TLS
            # trust on every platform, whatever the system's store holds
            tls = ssl.create_default_context(cafile=certifi.where())
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.connection_pool_size,
                                               ttl_dns_cache=300, ssl=tls),
                headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    def _timeout(self, files: bool, **given: Any) -> aiohttp.ClientTimeout:
        chosen: dict[str, float | None] = {
            name: self._defaults[name] if isinstance(value, DefaultValue) else value
            for name, value in given.items()}
        if files and isinstance(given["write"], DefaultValue):
            chosen["write"] = self._media_write_timeout
        parts = list(chosen.values())
        total = None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
        connect, pool = chosen["connect"], chosen["pool"]
        return aiohttp.ClientTimeout(
            total=total, sock_read=chosen["read"], sock_connect=connect,
            connect=None if connect is None or pool is None else connect + pool)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = bool(request_data and request_data.contains_files)
        timeout = self._timeout(files, read=read_timeout, write=write_timeout,
                                connect=connect_timeout, pool=pool_timeout)
        data: bytes | None = None
        headers = {}
        if request_data is not None and files:
            data, headers["Content-Type"] = multipart(request_data)
        elif request_data is not None and request_data.json_parameters:
            data = urlencode(request_data.json_parameters).encode()
            headers["Content-Type"] = FORM
        try:
            async with session.request(method, url, data=data, headers=headers,
                                       timeout=timeout) as response:
                return response.status, without_own_keyboard(url, await response.read())
        except TimeoutError as error:
            raise TimedOut from error
        except aiohttp.ClientError as error:
            # the class name says what failed when the message is empty
            raise NetworkError(f"aiohttp.{type(error).__name__}: {error}") from error


def multipart(request_data: RequestData) -> tuple[bytes, str]:
    """A request with files as one ``multipart/form-data`` body and its content
    type.  aiohttp's form writer sent each part's header, value and boundary
    as a write of its own (about 25 a board picture, each a system call and a
    packet); this is one body, sent at once.

    >>> body, kind = multipart(RequestData([]))
    >>> kind == "multipart/form-data; boundary=" + body[2:34].decode()
    True
    """
    boundary = secrets.token_hex(16)
    parts: list[bytes] = []
    for name, value in request_data.json_parameters.items():
        parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"'
                  '\r\n\r\n'.encode(), value.encode(), b"\r\n"]
    for name, (filename, content, mime) in request_data.multipart_data.items():
        parts += [f'--{boundary}\r\nContent-Type: {mime}\r\nContent-Disposition: form-data; '
                  f'name="{_quoted(name)}"; filename="{_quoted(filename or name)}"'
                  '\r\n\r\n'.encode(), content if isinstance(content, bytes) else content.read(),
                  b"\r\n"]
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _quoted(value: str) -> str:
    """A header parameter's value inside quotes (RFC 7578: quotes and line
    breaks percent-encoded, as browsers do)."""
    return value.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


OWN_MESSAGE = ("send", "edit", "copy")
"""Methods whose result is a message the bot itself sent or edited."""


def without_own_keyboard(url: str, body: bytes) -> bytes:
    """``body`` without the ``reply_markup`` of the message a send or edit returns.

    PTB turns every answer into objects, and the keyboard the bot has just sent
    (a board's: tens of buttons) is most of the work: ~0.9 instead of ~0.3 ms
    a board edit, for a copy nothing reads (the bot knows what it sent).  Other
    answers (``getUpdates``: the users' updates and their messages' keyboards)
    are left as they are.

    >>> body = b'{"ok":true,"result":{"message_id":5,"reply_markup":{"inline_keyboard":[]}}}'
    >>> without_own_keyboard("https://x/botT/editMessageMedia", body)
    b'{"ok":true,"result":{"message_id":5}}'
    >>> without_own_keyboard("https://x/botT/getUpdates", body) == body
    True
    """
    if b'"reply_markup"' not in body or not url.rpartition("/")[2].startswith(OWN_MESSAGE):
        return body
    try:
        answer = json.loads(body)
    except ValueError:
        return body  # PTB reports what it cannot read
    result = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(result, dict) or result.pop("reply_markup", None) is None:
        return body
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()


async def close_all(requests: Iterable[BaseRequest]) -> None:
    """Close the sessions of ``requests``.  PTB closes them when the
    application shuts down, but not when its start-up failed (a rejected
    token): an open aiohttp session would then be reported on stderr."""
    for request in requests:
        await request.shutdown()
