"""End to end: a whole game of each variant where Alice plays in the Mini App (a real
chromium, the app's own JavaScript) and Bob taps the buttons in the group, against the
real ``python -m bot`` process and the local Bot API server.

Checked on the way: the group board carries the Direct Link button (a ``web_app``
button there would be refused by the strict server); the app offers only the engine's
steps (it taps the server's tree); a forged turn, an incomplete one, a stale version, a
spectator's turn and bad or stale ``initData`` are refused; each Mini App turn edits the
group board exactly once; the open app shows Bob's taps without reloading (long poll).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from bot.present.webapp import game_of
from bot.rules.play import UI_ONLY
from bot.vocab.callbacks import Callback
from tests.bot.driver import game_board, pick, start_button
from tests.botapi import BotApiServer, BotProcess
from tests.botapi.model import Chat, User
from tests.e2e.miniapp import (
    PHONE,
    AppApi,
    click,
    drag,
    free_port,
    have_browser,
    init_data,
    open_app,
    phone_size,
    play_turn,
    shown_version,
    used_dice,
    wait_version,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900),
              pytest.mark.skipif(not have_browser(), reason="needs chromium and chromedriver "
                                 "(bin/test installs them as root)")]


@pytest.fixture
def driver(chromium: Any) -> Any:
    """The run's chromium (tests/e2e/conftest.py) at phone size (each test opens the app
    afresh)."""
    phone_size(chromium, PHONE)
    return chromium


def start_bot(server: BotApiServer, data_dir: Path, port: int, **env: str) -> BotProcess:
    values = {"NARDY_TEST_SEED": "5", "NARDY_RATE_LIMIT": "0",
              "WEBAPP_URL": f"http://127.0.0.1:{port}/app", "WEBAPP_PORT": str(port),
              "WEBAPP_NAME": "board", **env}
    bot = BotProcess.for_server(server, data_dir=data_dir, log_level="INFO", env=values)
    bot.start()
    server.watch(bot)
    bot.wait_for_log("Application started", timeout=60)
    bot.wait_for_log("Mini App on", timeout=30)
    return bot


def start_game(server: BotApiServer, chat: Chat, variant: str, first: User,
               second: User) -> None:
    sent = server.user_sends(chat, first, f"/new {variant}")
    lobby = server.wait_message(chat, "New game", since=sent, timeout=20)
    for user in (first, second):
        join = next(d for row in lobby.buttons for _, d in row if d and d.endswith(":j"))
        tap = server.user_taps(chat, user, lobby, join)
        assert tap.wait_answer(20).text is None
        lobby = server.wait_message(chat, since=tap, timeout=20,
                                    match=lambda m: bool(m.buttons))


def app_link(server: BotApiServer, chat: Chat) -> str:
    """The Direct Link on the group's board: its start parameter."""
    board = game_board(server, chat)
    assert board is not None and board.reply_markup is not None
    urls = [b["url"] for row in board.reply_markup["inline_keyboard"] for b in row if "url" in b]
    prefix = f"https://t.me/{server.bot.username}/board?startapp="
    links = [u for u in urls if u.startswith(prefix)]
    assert links, urls
    assert not any("web_app" in b for row in board.reply_markup["inline_keyboard"] for b in row)
    return links[0].removeprefix(prefix)


def refusals(api: AppApi, eve: AppApi, state: dict[str, Any]) -> None:
    """What the API must refuse, tried on Alice's turn (nothing changes)."""
    version = state["version"]
    tree = state["tree"]
    first = tree[0]["steps"][0]["step"]
    legal = {tuple(s["step"]) for s in tree[0]["steps"]}
    forged = next([s, t, d] for s in range(24, 0, -1) for t in range(s - 1, 0, -1)
                  for d in range(1, 7) if (s, t, d) not in legal and s - t == d)
    status, body = api.call("turn", version=version, steps=[forged])
    assert status == 409, body
    status, body = api.call("turn", version=version, steps=[first])
    assert status == 409 and "not complete" in body["error"], body
    status, body = api.call("turn", version=version - 1, steps=[first])
    assert status == 409 and "changed meanwhile" in body["error"], body
    status, body = eve.call("turn", version=version, steps=[first])
    assert status == 409 and "not playing" in body["error"], body
    status, body = eve.call("state")
    assert status == 200 and body["you"] is None and body["tree"] is None, body
    genuine = init_data(api.token, api.user)
    status, body = api.call("state", data=genuine.replace("hash=", "hash=0"))
    assert status == 401, body
    status, body = api.call("state", data=init_data(api.token, api.user,
                                                     auth_date=time.time() - 3 * 86400))
    assert status == 401 and "stale" in body["error"], body
    status, body = api.call("turn", version=version, steps="x" * 20000)
    assert status == 413, body
    assert api.state()["version"] == version  # nothing changed


@pytest.mark.parametrize("variant", ["long", "backgammon"])
def test_a_whole_game_with_one_player_on_the_mini_app(variant: str, tmp_path: Path,
                                                      driver: Any) -> None:
    port = free_port()
    with BotApiServer() as server:
        alice, bob = server.add_user("Alice"), server.add_user("Bob")
        eve = server.add_user("Eve")
        chat = server.add_group("Table", members=[alice, bob, eve])
        bot = start_bot(server, tmp_path, port)
        try:
            start_game(server, chat, variant, alice, bob)
            payload = app_link(server, chat)
            assert game_of(payload)[0] == chat.id
            url = f"http://127.0.0.1:{port}/app"
            api = AppApi(url, server.token or "", alice, payload)
            spectator = AppApi(url, server.token or "", eve, payload)
            played = play_game(driver, server, chat, bob, api, spectator, variant)
            assert played["app_turns"] >= 5 and played["chat_taps"] >= 5, played
            assert played["edits"] == [1] * len(played["edits"]), played
            assert " ERROR " not in bot.log, bot.log_tail()
        finally:
            bot.stop()


def play_game(driver: Any, server: BotApiServer, chat: Chat, bob: User, api: AppApi,
              spectator: AppApi, variant: str) -> dict[str, Any]:
    """Alice in the app (tapping her checkers on some turns, dragging them on the
    others), Bob in the chat, to the end; what it cost."""
    result: dict[str, Any] = {"app_turns": 0, "chat_taps": 0, "edits": [], "live": []}
    state = api.state()
    alice = state["you"]
    assert alice is not None
    open_app(driver, api.url, api.payload, init_data(api.token, api.user,
                                                     start_param=api.payload))
    state = synced(driver, api)  # the board's posting may move the version on meanwhile
    checked = False
    pending: tuple[int, int, float] | None = None  # the board and its edits before an app turn
    sent = False  # the turn of ``pending`` has been sent
    for _ in range(3000):
        if pending is not None and sent:  # the app's last turn (its roll too) edited the
            # group board once
            board = server.message(chat, pending[0])
            result["edits"].append(board.edits - pending[1])
            if board.edits - pending[1] != 1:
                print("EDITS", [(r.method, r.time, r.params.get("message_id"))
                                for r in server.requests() if r.time >= pending[2]])
            pending, sent = None, False
        if state["status"] != "active":
            break
        if state["to_act"] == alice:
            wait_version(driver, state["version"])
            if state["tree"] is None:  # roll (beside Double), or take a double
                action = next(a for a in ("roll", "take", "accept") if a in state["actions"])
                board = game_board(server, chat)
                assert board is not None
                if action == "roll":  # its redraw is held for the turn: one edit for both
                    pending = (board.message_id, board.edits, server.clock())
                click(driver, f'[data-action="{action}"]')
                state = state_after(api, state["version"])
                wait_version(driver, state["version"])
                if action == "roll" and state["to_act"] != alice:  # nothing to play: the
                    pending = None  # dice passed at once, and the redraw is not held
                if action != "roll" or pending is None:  # its redraw follows: wait for it
                    server.wait_for(lambda b=board: server.message(chat, b.message_id)
                                    .edits > b.edits, 30, description="the board's redraw",
                                    chat=chat)
                continue
            if not checked:
                refusals(api, spectator, state)
                undo_and_drag(driver, state)
                checked = True
            board = game_board(server, chat)
            assert board is not None
            if pending is None:  # (else: since her roll)
                pending = (board.message_id, board.edits, server.clock())
            play_turn(driver, state, dragging=result["app_turns"] % 2 == 1)
            # the app shows the turn's result at once; the group board follows
            state = state_after(api, state["version"])
            wait_version(driver, state["version"])
            server.wait_for(lambda p=pending: server.message(chat, p[0]).edits > p[1], 30,
                            description="the group board to be edited", chat=chat)
            sent = True
            result["app_turns"] += 1
        else:
            board = game_board(server, chat)
            assert board is not None
            data = pick(board)
            assert data is not None, server.transcript(chat)
            since = server.revision
            tap = server.user_taps(chat, bob, board, data)
            answer = tap.wait_answer(30)
            assert not answer.show_alert, answer
            result["chat_taps"] += 1
            server.wait_for(lambda b=board, s=since: redrawn(server, chat, b, s), 30,
                            description="the board to change after a tap", chat=chat)
            if Callback.parse(data).action in UI_ONLY:
                continue  # a source point: only the keyboard changed
            state = state_after(api, state["version"])
            # the open app follows Bob's tap by itself (its long poll)
            result["live"].append(wait_version(driver, state["version"]))
    else:
        raise AssertionError("the game did not end")
    assert driver.find_element("id", "result").is_displayed()  # the result screen
    return result


def undo_and_drag(driver: Any, state: dict[str, Any]) -> None:
    """In the app, before Alice's first turn is played: a checker dragged where no
    step of the server's tree goes plays nothing; dragged where one goes, it plays
    that step (its die drawn used); Undo takes it back; so does a tapped step."""
    step = state["tree"][0]["steps"][0]
    targets = {s["to"] for s in state["tree"][0]["steps"] if s["from"] == step["from"]}
    wrong = next(c for c in range(1, 25) if c not in targets and c != step["from"])
    assert used_dice(driver) == 0
    drag(driver, step["from"], wrong)
    assert used_dice(driver) == 0  # nothing played: the checker went back
    assert not driver.find_element("css selector", '[data-action="undo"]').is_enabled()
    drag(driver, step["from"], step["to"])
    assert used_dice(driver) == 1
    click(driver, '[data-action="undo"]')
    assert used_dice(driver) == 0
    click(driver, f'[data-cell="{step["from"]}"]')
    click(driver, f'[data-cell="{step["to"]}"]')
    assert used_dice(driver) == 1
    click(driver, '[data-action="undo"]')
    assert used_dice(driver) == 0
    assert not driver.find_element("css selector", '[data-action="confirm"]').is_enabled()


def state_after(api: AppApi, version: int) -> dict[str, Any]:
    """The stored game once its version is not ``version`` (the API's long poll)."""
    for _ in range(3):
        status, body = api.call("state", after=version)
        assert status == 200, body
        if body["version"] != version:
            state: dict[str, Any] = body
            return state
    raise AssertionError(f"the game stayed at version {version}")


def redrawn(server: BotApiServer, chat: Chat, board: Any, since: int) -> bool:
    latest = game_board(server, chat)
    return latest is not None and (latest.message_id != board.message_id
                                   or latest.revision > since)


def test_a_private_board_opens_the_app(tmp_path: Path, driver: Any) -> None:
    """A board in a private chat has the app's button too (a ``web_app`` one with an
    HTTPS ``WEBAPP_URL``, tests/bot/edge/test_webapp.py; here, with the test's plain http
    address, the Direct Link); the app plays against the computer, which answers."""
    port = free_port()
    with BotApiServer() as server:
        alice = server.add_user("Alice")
        chat = server.private_chat(alice)
        bot = start_bot(server, tmp_path, port)
        try:
            sent = server.user_sends(chat, alice, "/new long bot")
            # the game waits for ▶ Start (the tap is the dice's entropy): no app yet
            posted = server.wait_message(chat, since=sent, timeout=30,
                                         match=lambda m: start_button(m) is not None)
            assert not has_url(posted), posted.reply_markup
            tap = server.user_taps(chat, alice, posted, start_button(posted))
            assert tap.wait_answer(30).text is None
            # the board (a picture in a private chat, posted in the lobby's place) has
            # the app's button
            server.wait_for(lambda: has_url(game_board(server, chat)), 30,
                            description="the board with the app's button", chat=chat)
            payload = app_link(server, chat)
            base = f"http://127.0.0.1:{port}/app"
            api = AppApi(base, server.token or "", alice, payload)
            state = api.state()
            open_app(driver, base, payload, init_data(api.token, alice,
                                                      start_param=payload))
            for turn in range(3):
                state = synced(driver, api)
                while state["to_act"] != state["you"] or state["tree"] is None:
                    state_after(api, state["version"])
                    state = synced(driver, api)
                if turn == 0:  # 💡 Hint: against the computer, hints are given
                    assert "hint" in state["actions"], state["actions"]
                    click(driver, '[data-action="menu"]')  # rare actions: in the ⋯ menu
                    click(driver, '[data-action="hint"]')
                    server.wait_for(lambda: "💡" in driver.find_element(
                        "id", "status").text, 60, description="the hint")
                play_turn(driver, state)
                state_after(api, state["version"])  # the turn, then the computer's
            # resigned (the most it may cost: the computer takes it) and a rematch
            # offered, both from the app: the computer accepts at once, and the new
            # game waits for ▶ Start in the chat (its tap is the dice's entropy): the
            # result screen says so and opens the chat instead of the next game
            state = synced(driver, api)
            while "resign" not in state["actions"]:
                state = state_after(api, state["version"])
            level = state["resign"][-1]["level"]
            status, ended = api.call("action", version=state["version"], play=state["play"],
                                     action="resign", level=level)
            assert status == 200, ended
            while ended["status"] != "finished":
                ended = state_after(api, ended["version"])
            assert not any(start_button(m) is not None for m in server.messages(chat))
            status, answer = api.call("action", version=ended["version"], action="rematch")
            assert status == 200, answer
            assert answer["result"]["waits_start"] and answer["result"]["next"] is None, \
                answer["result"]
            wait_version(driver, answer["version"])
            server.wait_for(lambda: bool(driver.find_elements(
                "css selector", '#result [data-action="to-board"]')), 30,
                description="the result screen sending Alice to ▶ Start")
            server.wait_for(lambda: any(start_button(m) is not None
                                        for m in server.messages(chat)), 30,
                            description="the rematch's board with ▶ Start", chat=chat)
            assert " ERROR " not in bot.log, bot.log_tail()
        finally:
            bot.stop()


def has_url(message: Any) -> bool:
    """Whether ``message`` has a URL button (the app's Direct Link)."""
    rows = ((message.reply_markup or {}).get("inline_keyboard", [])
            if message is not None else [])
    return any("url" in b for row in rows for b in row)


def synced(driver: Any, api: AppApi, timeout: float = 30.0) -> dict[str, Any]:
    """The stored game once the app shows its version (a just-posted board's save
    moves the version on a moment after the message arrives)."""
    deadline = time.monotonic() + timeout
    while True:
        state = api.state()
        if shown_version(driver) == state["version"] or time.monotonic() > deadline:
            wait_version(driver, state["version"], timeout=1)
            return state
        time.sleep(0.1)
