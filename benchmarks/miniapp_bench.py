"""What a Mini App turn costs the group: games through the real bot with the flood
limiter on, Alice in the Mini App (a real chromium), Bob tapping in the chat.

Run: ``.venv/bin/python benchmarks/miniapp_bench.py [turns] [variant...]``
(default 0: whole games; else that many of Alice's turns per variant).  Needs chromium and
chromedriver (bin/test installs them).  The bot runs with its default limiter
(NARDY_RATE_LIMIT unset: 30/s overall, ~20/min per group as Telegram allows) and
the local Bot API server answers 429 beyond 20 messages a minute per chat, as
Telegram does.  Players think THINK seconds before each action, as people do.

Prints, per turn of each player (Alice's in the Mini App, Bob's in the chat; a
turn runs from the moment the game waits for that player until it waits for the
other, her roll and take included, his Roll and steps included): group messages
(sends + edits into the group, pings and notes included) and taps; the app's API
requests, Confirm -> the app shows the result and -> the group board edited
p50/p95; Bob's tap -> redraw p50/p95; Bob's tap -> Alice's open app updated p50/p95.
The chat-only half (both players tapping) is the budget work's benchmark.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.rules.play import UI_ONLY
from bot.vocab.callbacks import Callback
from tests.bot.driver import game_board, pick
from tests.botapi import BotApiServer, BotProcess
from tests.botapi.model import Chat
from tests.e2e.miniapp import (
    AppApi,
    browser,
    click,
    free_port,
    init_data,
    open_app,
    play_turn,
    shown_version,
    wait_version,
)

THINK = 1.0
GROUP_LIMIT = 20
"""Messages a minute the local server lets into one group (Telegram's)."""
SENDING = ("send", "edit", "copy", "forward")


def group_messages(server: BotApiServer, chat: Chat, since: float,
                   kinds: tuple[str, ...] = SENDING, until: float = float("inf")) -> int:
    """Messages (sends and edits, not answers or deletions) the bot made into ``chat``
    from ``since`` until before ``until``."""
    return sum(1 for r in server.requests() if since <= r.time < until and r.status == 200
               and r.method.lower().startswith(kinds)
               and str(r.params.get("chat_id")) == str(chat.id))


def requests(driver: Any) -> int:
    """The app's API requests so far (its long polls' answers included)."""
    return int(driver.execute_script("return window.nardyRequests || 0"))


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def board_edited(server: BotApiServer, chat: Chat, message_id: int, edits: int,
                 timeout: float = 120.0) -> float:
    start = time.monotonic()
    server.wait_for(lambda: server.message(chat, message_id).edits > edits, timeout,
                    description="the group board to be edited", chat=chat)
    return time.monotonic() - start


def run(variant: str, turns: int) -> dict[str, Any]:
    port = free_port()
    out: dict[str, Any] = {"variant": variant, "app": [], "chat": [], "live": [],
                           "segments": []}
    with tempfile.TemporaryDirectory() as data, BotApiServer() as server:
        server.rate_limit(GROUP_LIMIT, 60.0, per_chat=True)
        alice, bob = server.add_user("Alice"), server.add_user("Bob")
        chat = server.add_group("Bench", members=[alice, bob])
        env = {"NARDY_TEST_SEED": "9", "WEBAPP_URL": f"http://127.0.0.1:{port}/app",
               "WEBAPP_PORT": str(port)}
        bot = BotProcess.for_server(server, data_dir=data, log_level="WARNING", env=env)
        bot.start()
        server.watch(bot)
        try:
            deadline = time.monotonic() + 60
            while "Mini App on" not in bot.log and time.monotonic() < deadline:
                time.sleep(0.1)
            from tests.e2e.test_miniapp import app_link, start_game, state_after

            start_game(server, chat, variant, alice, bob)
            payload = app_link(server, chat)
            api = AppApi(f"http://127.0.0.1:{port}/app", server.token or "", alice, payload)
            state = api.state()
            segments: list[tuple[str, float]] = []  # (who acts, since when): one per turn
            taps = {"app": 0, "chat": 0}
            with browser() as driver:
                open_app(driver, api.url, payload, init_data(api.token, alice,
                                                             start_param=payload))
                wait_version(driver, state["version"])
                while state["status"] == "active" and (not turns or len(out["app"]) < turns):
                    who = "app" if state["to_act"] == state["you"] else "chat"
                    if not segments or segments[-1][0] != who:
                        segments.append((who, server.clock()))
                    time.sleep(THINK)
                    if who == "app":
                        if state["tree"] is None:
                            action = next(a for a in ("roll", "take") if a in state["actions"])
                            board = game_board(server, chat)
                            assert board is not None
                            click(driver, f'[data-action="{action}"]')
                            taps["app"] += 1
                            state = state_after(api, state["version"])
                            wait_version(driver, state["version"])
                            if action != "roll" or state["to_act"] != state["you"]:
                                # not held (a take; a roll with nothing to play): Bob
                                # taps once the board shows it
                                board_edited(server, chat, board.message_id, board.edits)
                            continue
                        board = game_board(server, chat)
                        assert board is not None
                        sent = requests(driver)
                        steps = play_turn(driver, state, confirm=False)
                        taps["app"] += 2 * len(steps) + 1
                        before = time.monotonic()
                        click(driver, '[data-action="confirm"]')
                        state = state_after(api, state["version"])
                        wait_version(driver, state["version"], timeout=120)
                        shown = time.monotonic() - before
                        redraw = board_edited(server, chat, board.message_id, board.edits)
                        redraw += shown
                        out["app"].append({"requests": requests(driver) - sent,
                                           "redraw": redraw, "shown": shown})
                    else:
                        board = game_board(server, chat)
                        assert board is not None
                        data_ = pick(board)
                        assert data_ is not None
                        before = time.monotonic()
                        shown = shown_version(driver)
                        tap = server.user_taps(chat, bob, board, data_)
                        answer = tap.wait_answer(60)
                        assert not answer.show_alert, answer  # never an unbounded wait below
                        taps["chat"] += 1
                        if Callback.parse(data_).action not in UI_ONLY:
                            # the open app follows (its long poll), whatever the board's pace
                            while shown_version(driver) == shown:
                                time.sleep(0.01)
                            out["live"].append(time.monotonic() - before)
                        board_edited(server, chat, board.message_id, board.edits)
                        out["chat"].append({"redraw": time.monotonic() - before})
                        if Callback.parse(data_).action not in UI_ONLY:
                            state = state_after(api, state["version"])
                time.sleep(1.0)  # the last edit's followers (a ping, a note) have gone out
            # every group message (send or edit) falls into the turn of the player who
            # was to act when it was made
            ends = [t for _, t in segments[1:]] + [server.clock()]
            for (who, since), until in zip(segments, ends, strict=True):
                out["segments"].append({
                    "who": who,
                    "sends": group_messages(server, chat, since, ("send", "copy", "forward"),
                                            until),
                    "edits": group_messages(server, chat, since, ("edit",), until)})
            out["taps"] = taps
        finally:
            bot.stop()
    return out


def report(result: dict[str, Any]) -> None:
    app, chat, live = result["app"], result["chat"], result["live"]
    print(f"== {result['variant']}: {len(app)} Mini App turns, {len(chat)} chat taps")
    for who, name in (("app", "Alice's turns (Mini App)"), ("chat", "Bob's turns (chat)")):
        turns = [s for s in result["segments"] if s["who"] == who]
        if not turns:
            continue
        sends = sum(s["sends"] for s in turns) / len(turns)
        edits = sum(s["edits"] for s in turns) / len(turns)
        print(f"  {name}: {len(turns)} turns, group messages {sends + edits:.2f}/turn "
              f"(sends {sends:.2f} + edits {edits:.2f}), taps "
              f"{result['taps'][who] / len(turns):.2f}/turn")
    if app:
        calls = statistics.mean(a["requests"] for a in app)
        print(f"  Mini App: API requests {calls:.2f}/turn (Confirm's); Confirm -> app shows it "
              f"p50 {pct([a['shown'] for a in app], .5):.2f} s, p95 "
              f"{pct([a['shown'] for a in app], .95):.2f} s; Confirm -> group board edited p50 "
              f"{pct([a['redraw'] for a in app], .5):.2f} s, p95 "
              f"{pct([a['redraw'] for a in app], .95):.2f} s")
    if chat:
        print(f"  chat: tap -> redraw p50 {pct([c['redraw'] for c in chat], .5):.2f} s, "
              f"p95 {pct([c['redraw'] for c in chat], .95):.2f} s")
    if live:
        print(f"  Bob's tap -> Alice's open app updated p50 {pct(live, .5):.2f} s, "
              f"p95 {pct(live, .95):.2f} s")


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    variants = sys.argv[2:] or ["long", "backgammon"]
    for variant in variants:
        report(run(variant, turns))


if __name__ == "__main__":
    main()
