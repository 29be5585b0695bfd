"""Chat play within a group's message budget (issue 24 §2): whole games
played by two present players tapping in a group, with the flood limiter on.

Run: ``python benchmarks/budget_bench.py [games] [think] [variants] [mode] [style]``
(variants: a comma-separated list of ``/new`` arguments, by default
``long,backgammon,long stake=1,backgammon stake=1``; mode ``new``, the
default: the bot as it is; ``old``: its behaviour before issue 24, turn
pings in the group at once and Confirm after every whole turn, for a
side-by-side figure; style ``png``, the default, picture boards, or ``text``).

Since issue 35 the local Bot API server also answers 429 above Telegram's
limit (20 messages a minute per group, edits included: ``rate_limit``), and
the run reports the 429s (must be 0) and the waiting a turn costs (the
players' tap → redraw times summed, per turn).

In-process, as benchmarks/taps_bench.py: the real Application polling the
local Bot API server (tests/botapi, tests/bot/conftest.py ``running_world``),
the store on fakeredis, seeded dice,
but with the bot's own flood limiter (bot/edge/limits.py,
Telegram's budget: 20 messages in any 60 s in a group, edits count) on the
store's shared windows.  Two sensible players: the one the
game waits for looks at the newest board, thinks ``think`` seconds (default
3), taps toward the turn it wants (the medium computer's choice: its
whole-turn button, else a step or a point that keeps it reachable; any other
button as tests/bot/driver.py ``pick`` picks: Confirm, Roll, Take), and
waits until the board shows the tap; nobody has started the bot in private,
so every ping would be a group message.  Applied taps are also counted by
the button's action.

Prints per game and variant: turns (the engine's confirmed turns, forced
ones included), player taps per turn, group messages per turn (sendMessage,
sendPhoto and editMessage* requests to the group), of them pings, and tap →
redraw (from the tap until the board message shows its result) p50 / p95 /
max.  Wall-clock figures: quote them with the machine's load.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fakeredis

from ai import Level, Player, make_player
from bot.edge.limits import SharedRateLimiter
from bot.rules.chatsettings import with_setting
from bot.rules.matchstate import table_of
from bot.rules.play import offered_turns
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.records import ChatSettings, Status, settings_key
from engine.game import Action, Game, Phase
from engine.position import Position, Step
from tests.bot.conftest import World, running_world
from tests.bot.driver import pick
from tests.bot.rules.test_finishes import _reachable
from tests.botapi import BotApiServer
from tests.botapi.model import Message

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 1
THINK = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
VARIANTS = tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else (
    "long", "backgammon", "long stake=1", "backgammon stake=1")
MODE = sys.argv[4] if len(sys.argv) > 4 else "new"
STYLE = sys.argv[5] if len(sys.argv) > 5 else "png"
GROUP_METHODS = ("sendMessage", "sendPhoto", "sendDocument", "editMessageText",
                 "editMessageCaption", "editMessageMedia", "editMessageReplyMarkup")
"""What Telegram counts against a group's 20 messages a minute (the server's 429 rule)."""
MAX_TAPS = 3000
TIMEOUT = 120.0


@dataclass
class Tally:
    turns: int = 0
    taps: int = 0
    messages: int = 0
    pings: int = 0
    refused: int = 0
    too_many: int = 0
    """Requests the server answered 429 (Telegram's flood limit)."""
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    by_action: Counter[str] = field(default_factory=Counter)
    """Applied taps by the button's action (where a turn's messages go)."""


def _group_requests(server: BotApiServer, chat_id: int) -> list[str]:
    """The methods of the messages the bot sent or edited in the group (what its budget counts)."""
    return [r.method for r in server.requests()
            if r.method.lower().startswith(("send", "edit"))
            and r.status == 200  # a 429 is not a message (and is reported apart)
            and r.params.get("chat_id") in (chat_id, str(chat_id))]  # type: ignore[union-attr]


def _pings(server: BotApiServer, chat_id: int) -> int:
    return sum(1 for m in server.messages(chat_id, include_deleted=True)
               if m.from_bot and "your turn" in (m.text or ""))


async def _shown(world: World, chat_id: int, board_id: int, since: int) -> None:
    """Until the tapped board (or a board posted after it) shows a change."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        latest = world.board(chat_id)
        if latest.message_id != board_id or latest.revision > since:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the board did not change in {TIMEOUT} s")


async def play(world: World, variant: str, number: int, tally: Tally) -> None:
    server, store = world.server, world.store
    alice, bob = server.add_user(f"A{number}"), server.add_user(f"B{number}")
    chat = server.add_group(f"G{number}", members=[alice, bob])
    settings = ChatSettings(chat_id=chat.id, board_style=STYLE)  # type: ignore[arg-type]
    if MODE == "old":
        settings = with_setting(settings, chat.id, "confirm_turns", "always")
    await store.games.update(settings_key(chat.id), lambda _s: settings)
    sent = await world.send(chat, alice, f"/new {variant}")
    lobby = await world.reply(chat, sent, "New game")
    await world.tap(chat, alice, lobby, text="✋ Join")
    await world.tap(chat, bob, lobby, text="✋ Join")
    users = {alice.id: alice, bob.id: bob}
    [record] = await store.games.chat_games(chat.id)
    intent = Intent(make_player(table_of(record).game.variant, Level.MEDIUM, seed=number))
    before, pings = len(_group_requests(server, chat.id)), _pings(server, chat.id)
    started = time.perf_counter()
    for _ in range(MAX_TAPS):
        [record] = await store.games.chat_games(chat.id)
        if record.status is not Status.ACTIVE:
            break
        board = world.board(chat)
        data = intent.pick(board, table_of(record).game)
        assert data is not None, server.transcript(chat)
        await asyncio.sleep(THINK)  # a present player looks at the board and decides
        since = server.revision
        tapped = time.perf_counter()
        tap = server.user_taps(chat, users[waiting_user(record) or 0], board, data)
        answer = await tap.wait_answer_async(TIMEOUT)
        tally.taps += 1
        if answer.show_alert:  # e.g. "the board is catching up": look again
            tally.refused += 1
            continue
        await _shown(world, chat.id, board.message_id, since)
        tally.latencies.append(time.perf_counter() - tapped)
        tally.by_action[Callback.parse(data).action.name.lower()] += 1
        if len(tally.latencies) % 25 == 0:  # progress: a game at the budget takes minutes
            print(f"  {variant}: {len(tally.latencies)} taps, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    else:
        raise AssertionError(f"game {number} not over after {MAX_TAPS} taps")
    await world.idle()
    tally.seconds += time.perf_counter() - started
    final = table_of(record).game
    tally.turns += sum(e.action is Action.MOVE for e in final.events)
    tally.messages += len(_group_requests(server, chat.id)) - before
    tally.too_many += sum(1 for r in server.requests() if r.status == 429
                          and r.params.get("chat_id") in (chat.id, str(chat.id)))  # type: ignore[union-attr]
    tally.pings += _pings(server, chat.id) - pings


class Intent:
    """A sensible player: knows the turn it wants (the medium computer's
    choice for the roll) and taps the shortest way the keyboard offers to it
    (its whole-turn button, else a step that keeps it reachable, or that
    step's point); any other button as :func:`tests.bot.driver.pick` picks."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.wanted: dict[tuple[object, object], Position] = {}

    def pick(self, board: Message, game: Game) -> str | None:
        turn = game.turn
        if game.phase is not Phase.MOVE or turn is None:
            return pick(board)
        key = (turn.start, turn.dice)
        if key not in self.wanted:
            self.wanted[key] = self.player.choose(turn.start, turn.dice).position
        wanted = self.wanted[key]
        offered = offered_turns(game)
        buttons = [(Callback.parse(d), d) for row in board.buttons for _, d in row
                   if d is not None and d.startswith("g:")]
        for tap, data in buttons:
            if tap.action is ButtonAction.TURN and offered[tap.args[0]].position == wanted:
                return data
        for tap, data in buttons:
            if tap.action is ButtonAction.STEP and wanted in _reachable(
                    game.play_step(Step(*tap.args))):
                return data
        for tap, data in buttons:
            if tap.action is ButtonAction.SOURCE and any(
                    s.source == tap.args[0] and wanted in _reachable(game.play_step(s))
                    for s in game.legal_steps):
                return data
        return pick(board)  # Confirm (or Back, when a point's targets miss it)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def main() -> None:
    store = Store(fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer()))
    limiter = SharedRateLimiter()  # Telegram's budget: 20 in any minute in a group
    limiter.attach(store.flood)
    server = BotApiServer()
    server.rate_limit(20, 60.0, methods=GROUP_METHODS)  # Telegram's: above it, 429
    async with running_world(store, server=server, limiter=limiter,  # dice: Dealer.for_tests(7)
                             ping_delay=0 if MODE == "old" else 60) as world:
        print(f"budget_bench: {GAMES} game(s) per variant, think {THINK:g} s, mode {MODE}, "
              f"{STYLE} boards: group budget {limiter.group.limit} in any "
              f"{limiter.group.seconds:g} s")
        print(f"{'variant':<20} {'turns':>5} {'taps/turn':>9} {'msgs/turn':>9} {'pings':>5} "
              f"{'alerts':>6} {'p50 s':>6} {'p95 s':>6} {'max s':>6} {'wait/turn':>9} "
              f"{'429s':>4} {'game s':>7}")
        number = 0
        for variant in VARIANTS:
            tally = Tally()
            for _ in range(GAMES):
                number += 1
                await play(world, variant, number, tally)
            lat = tally.latencies
            print(f"{variant:<20} {tally.turns:>5} {tally.taps / tally.turns:>9.2f} "
                  f"{tally.messages / tally.turns:>9.2f} {tally.pings:>5} {tally.refused:>6} "
                  f"{statistics.median(lat):>6.2f} {_quantile(lat, 0.95):>6.2f} "
                  f"{max(lat):>6.2f} {sum(lat) / tally.turns:>9.2f} {tally.too_many:>4} "
                  f"{tally.seconds / GAMES:>7.0f}", flush=True)
            print("  taps a turn by button: " + ", ".join(
                f"{action} {n / tally.turns:.2f}" for action, n in tally.by_action.most_common()))
        # the test server answers 429 above Telegram's limits: the limiter's failures
        print(f"429s from the Bot API (must be 0): {world.server.breaches}")


if __name__ == "__main__":
    asyncio.run(main())
