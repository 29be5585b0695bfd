"""A worker that dies as it answers a tap leaves its retry to give the very same
answer (issue 37 item 5): the retry used to answer what it made of the state
the first attempt left ("joined", then "out of date"), which the Bot API
refuses only if the first answer got through.  The answer is kept in the
update's journal before it goes out (bot/edge/effects.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.edge import effects
from bot.edge.effects import JournaledRequest
from bot.edge.http import AiohttpRequest

URL = "https://api.example/bot1:x/answerCallbackQuery"


class _Api:
    """The Bot API as the worker sees it: every answer it took; the first one
    to arrive stands (a query has one answer), later ones are refused."""

    def __init__(self) -> None:
        self.answers: list[dict[str, str]] = []
        self.die_after_answer = False

    async def do_request(self, url: str, method: str,
                         request_data: RequestData | None = None, **_: Any) -> tuple[int, bytes]:
        params = dict(request_data.json_parameters) if request_data else {}
        self.answers.append(params)
        if self.die_after_answer:  # the worker is killed as the reply comes back
            raise asyncio.CancelledError
        if len(self.answers) > 1:
            return 400, b'{"ok":false,"description":"Bad Request: query is too old"}'
        return 200, b'{"ok":true,"result":true}'


def _answer(text: str) -> RequestData:
    return RequestData([RequestParameter.from_input("callback_query_id", "77"),
                        RequestParameter.from_input("text", text)])


@pytest.mark.parametrize("dies", ["as the answer went out", "before it went out"])
async def test_the_retry_gives_the_first_attempts_answer(monkeypatch: pytest.MonkeyPatch,
                                                         dies: str) -> None:
    api = _Api()
    monkeypatch.setattr(AiohttpRequest, "do_request", api.do_request)
    stored: dict[str, str] = {}

    async def sink(entries: dict[str, str]) -> None:
        stored.update(entries)

    request = JournaledRequest()
    api.die_after_answer = True
    _journal, token = effects.begin({}, sink)
    try:
        effects.note("tapped", '{"saved": 8}')  # the step the tap made
        with pytest.raises(asyncio.CancelledError):
            await request.do_request(URL, "POST", _answer("You joined"))
    finally:
        effects.end(token)
    if dies == "before it went out":
        api.answers.clear()
    api.die_after_answer = False
    _journal, token = effects.begin(stored, sink)  # the retry, with what was written
    try:
        assert effects.recall("tapped") == '{"saved": 8}'
        status, _ = await request.do_request(URL, "POST", _answer("This board is out of date"))
    finally:
        effects.end(token)
    assert status == 200
    assert [a["text"] for a in api.answers] == ["You joined"] * len(api.answers) != []
