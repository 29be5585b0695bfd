"""The Mini App's HTTP side as a client meets it: bad static paths are refused with
a plain 404 (never a 500 and its stack trace), and answers are compressed for a
client that accepts gzip.  In process: the app's routes on a tornado server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import tornado.httpserver
import tornado.netutil
import tornado.web

from bot.edge.webapp import Webapp, routes


@pytest.fixture
async def static_url() -> AsyncIterator[str]:
    server = tornado.httpserver.HTTPServer(tornado.web.Application(
        routes(Webapp(object(), "1:x"))))
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    server.add_sockets(sockets)
    try:
        yield f"http://127.0.0.1:{sockets[0].getsockname()[1]}/app"
    finally:
        server.stop()


BAD = ["%00", "app.js%00", "%00.js", "..%2Fwebapp.py", "..%2F..%2F__init__.py", "%2e%2e/x",
       "nothing.js", "", "%ff%fe", "a/../../edge/webapp.py", "app.js/", "%C0%AE%C0%AE/x"]


@pytest.mark.parametrize("path", BAD)
async def test_a_bad_static_path_is_refused_plainly(static_url: str, path: str) -> None:
    async with httpx.AsyncClient() as client:
        answer = await client.get(f"{static_url}/static/{path}")
    assert answer.status_code in (400, 404), (path, answer.status_code)
    assert "Traceback" not in answer.text and "Error" not in answer.text.replace(
        "Not Found", "").replace("Bad Request", "")


async def test_the_page_and_its_modules_are_served(static_url: str) -> None:
    async with httpx.AsyncClient() as client:
        for name in ("app.js", "board.js", "style.css"):
            answer: Any = await client.get(f"{static_url}/static/{name}")
            assert answer.status_code == 200, name
        assert (await client.get(f"{static_url}/")).status_code == 200


def test_every_static_file_has_a_name_the_route_serves() -> None:
    import re

    from bot.edge.webapp import STATIC, STATIC_NAME
    names = [p.name for p in STATIC.iterdir()]
    assert names and all(re.fullmatch(STATIC_NAME, name) for name in names), names
