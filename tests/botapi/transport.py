"""HTTP: the requests' parameters decoded as Telegram accepts them, and the threaded server.

JSON, url-encoded or multipart bodies (what PTB sends); form values are
JSON-decoded but for known text fields.  The handler passes each request to
:meth:`tests.botapi.server.BotApiServer._dispatch`.
"""

from __future__ import annotations

import json
import re
import socket
import sys
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from tests.botapi.model import JSON

if TYPE_CHECKING:
    from tests.botapi.server import BotApiServer


# Parameters that are plain strings even when they look like JSON ("123", "true").
_STRING_PARAMS = frozenset({
    "text", "caption", "callback_query_id", "url", "secret_token", "parse_mode", "action",
    "language_code", "description", "short_description", "name", "inline_message_id",
    "ip_address", "emoji", "title", "file_id", "photo", "document", "query",
    "inline_query_id", "next_offset",
})


def _decode(name: str, raw: str) -> Any:
    if name in _STRING_PARAMS:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


Upload = tuple[bytes, str, str]  # data, filename, MIME type


def _parse_params(query: str, content_type: str, body: bytes) -> tuple[JSON, dict[str, Upload]]:
    """Decode query string and body the way Telegram accepts them: JSON, url-encoded, multipart.

    Form values are JSON-decoded (PTB serialises non-strings as JSON) except known text fields.
    """
    params: JSON = {k: _decode(k, v) for k, v in parse_qsl(query)}
    files: dict[str, Upload] = {}
    kind = content_type.split(";")[0].strip().lower()
    if not body:
        return params, files
    if kind == "application/json":
        decoded = json.loads(body)
        if not isinstance(decoded, dict):
            raise ValueError("request body must be a JSON object")
        params.update(decoded)
    elif kind == "application/x-www-form-urlencoded":
        params.update({k: _decode(k, v) for k, v in parse_qsl(body.decode("utf-8"),
                                                             keep_blank_values=True)})
    elif kind == "multipart/form-data":
        for name, filename, part_type, payload in _multipart_parts(content_type, body):
            if filename is not None:
                files[name] = (payload, filename, part_type)
            else:
                params[name] = _decode(name, payload.decode("utf-8"))
    return params, files


_HEADER_PARAM = re.compile(r';\s*([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))')


def _header_params(value: str) -> dict[str, str]:
    """``name="x"; filename="y.png"`` parameters of a header value, unquoted."""
    return {m.group(1).lower(): re.sub(r"\\(.)", r"\1", m.group(2)) if m.group(2) is not None
            else m.group(3) for m in _HEADER_PARAM.finditer(value)}


def _multipart_parts(content_type: str, body: bytes
                     ) -> Iterable[tuple[str, str | None, str, bytes]]:
    """``(name, filename or None, content type, payload)`` of each part of a
    multipart/form-data body (RFC 7578).  A split on the boundary: the email
    package's parser costs ~20 times as much, which a benchmark's harness,
    sharing the machine with the bot, cannot afford."""
    boundary = _header_params(content_type).get("boundary")
    if not boundary:
        raise ValueError("multipart body without a boundary")
    delimiter = b"--" + boundary.encode("latin-1")
    chunks = body.split(delimiter)
    if len(chunks) < 3 or not chunks[-1].startswith(b"--"):
        raise ValueError("malformed multipart body")
    for chunk in chunks[1:-1]:
        if not chunk.startswith(b"\r\n") or not chunk.endswith(b"\r\n"):
            raise ValueError("malformed multipart part")
        head, separator, payload = chunk[2:-2].partition(b"\r\n\r\n")
        if not separator:
            raise ValueError("multipart part without a header block")
        headers = {}
        for line in head.decode("utf-8").split("\r\n"):
            key, colon, value = line.partition(":")
            if not colon:
                raise ValueError(f"malformed multipart header {line!r}")
            headers[key.strip().lower()] = value.strip()
        disposition = _header_params(headers.get("content-disposition", ""))
        if "name" not in disposition:
            raise ValueError("multipart part without a name")
        part_type = headers.get("content-type", "text/plain").split(";")[0].strip().lower()
        yield disposition["name"], disposition.get("filename"), part_type, payload


def _json_response(payload: Any, status: int) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(payload).encode("utf-8")


class _HTTPServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that hung up mid-answer (the bot stopped during a long poll)
        # is routine here; anything else gets the standard traceback
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: PTB's httpx pool reuses connections

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY every keep-alive
        # request would wait ~40 ms for a delayed ACK.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log is in BotApiServer.requests()

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        api: BotApiServer = self.server.api  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        status, content_type, data = api._dispatch(
            parts.path, parts.query, self.headers.get("Content-Type", ""), body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
