"""Taps and board edits per turn (issue 14 §1): complete games of both
variants played through the bot's own keyboards.

Run: ``.venv/bin/python benchmarks/taps_bench.py [games per variant] [seed] [variants]``
(variants: a comma-separated subset of ``long,backgammon,backgammon cube=off``).

In-process, as tests/bot does: the real Application polling the local Bot
API server (tests/botapi), the store on fakeredis, seeded dice, text boards
(a picture board is edited exactly as often; painting only costs time).
Two players in a group play each game to its end; the player the game
waits for taps what a player would use, at random among those buttons: a
whole-turn button when offered, else a step (a point, then its target,
when the keyboard groups steps by point), Confirm, Roll, Take.  Nobody
doubles or resigns, so the cube stays centred for the whole game (the most
Roll taps a game can have); backgammon is played with the cube (Roll stays a
button whenever a double is offered, bot/rules/autoplay.py
``double_offered``) and without it.

Prints per variant: turns (confirmed turns, the forced ones included),
player taps per turn, board edits per turn (editMessage* requests to the
group; the ping messages are not edits), and the taps spent on forced turns
(turns with one result: the bot plays them, so the players never see them).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fakeredis

from bot.edge.app import build_application
from bot.rules.dice import Dealer
from bot.rules.matchstate import table_of
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.vocab.records import ChatSettings, Status, settings_key
from engine.choices import forced_turn
from engine.game import Action, Phase
from tests.bot.conftest import World
from tests.botapi import BotApiServer

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 4
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
VARIANTS = tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else (
    "long", "backgammon", "backgammon cube=off")
"""Backgammon with the cube (the default): Roll is a button whenever a double
could be offered, a real choice; without it the roll is made by itself."""
MAX_TAPS = 3000


@dataclass
class Tally:
    games: int = 0
    turns: int = 0
    chosen: int = 0
    """Turns a player saw (had a choice in)."""
    taps: int = 0
    edits: int = 0
    forced_taps: int = 0
    per_game: list[float] = field(default_factory=list)


def _action(data: str) -> str:
    return data.split(":")[3]


def _choose(buttons: list[tuple[str, str]], rng: random.Random) -> str:
    """What a player taps: Confirm; a whole turn; a step or a point; Roll; Take."""
    by_action: dict[str, list[str]] = {}
    for _, data in buttons:
        by_action.setdefault(_action(data), []).append(data)
    if "c" in by_action:
        return by_action["c"][0]
    if "h" in by_action:
        return rng.choice(by_action["h"])
    steps = by_action.get("m", []) + by_action.get("s", [])
    if steps:
        return rng.choice(steps)
    for action in ("r", "t"):
        if action in by_action:
            return by_action[action][0]
    raise AssertionError(f"no button to play with: {buttons}")


async def play(world: World, variant: str, number: int, rng: random.Random, tally: Tally) -> None:
    server, store = world.server, world.store
    alice, bob = server.add_user(f"A{number}"), server.add_user(f"B{number}")
    chat = server.add_group(f"G{number}", members=[alice, bob])
    await store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
        chat_id=chat.id, board_style="text"))
    sent = await world.send(chat, alice, f"/new {variant}")
    lobby = await world.reply(chat, sent, "New game")
    await world.tap(chat, alice, lobby, text="✋ Join")
    await world.tap(chat, bob, lobby, text="✋ Join")
    users = {alice.id: alice, bob.id: bob}
    edits_before = _edits(server, chat.id)
    taps, seen = 0, set()
    for _ in range(MAX_TAPS):
        [record] = await store.games.chat_games(chat.id)
        if record.status is not Status.ACTIVE:
            break
        game = table_of(record).game
        moves = sum(e.action is Action.MOVE for e in game.events)
        if game.phase is Phase.MOVE and game.turn is not None:
            seen.add(moves)
            if not game.turn.played and forced_turn(game.turn.start, game.turn.dice) is not None:
                tally.forced_taps += 1  # a forced turn left to the player: never, with autoplay
        board = world.board(chat)
        data = _choose(world.buttons(board), rng)
        user = users[waiting_user(record)]  # type: ignore[index]
        answer = await world.tap(chat, user, board, data)
        assert not answer.show_alert, (data, answer)
        taps += 1
    else:
        raise AssertionError(f"game {number} not over after {MAX_TAPS} taps")
    final = table_of(record).game
    turns = sum(e.action is Action.MOVE for e in final.events)
    tally.games += 1
    tally.turns += turns
    tally.chosen += len(seen)
    tally.taps += taps
    tally.edits += _edits(server, chat.id) - edits_before
    tally.per_game.append(taps / turns)


def _edits(server: BotApiServer, chat_id: int) -> int:
    return sum(1 for r in server.requests() if r.method.lower().startswith("editmessage")
               and r.params.get("chat_id") in (chat_id, str(chat_id)))  # type: ignore[union-attr]


async def main() -> None:
    server = BotApiServer()
    server.start()
    store = Store(fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer()))
    app = build_application(server.token or "", store, dealer=Dealer.for_tests(SEED),
                            base_url=server.base_url, base_file_url=server.base_file_url,
                            input_limit=False)  # its players tap faster than people
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=1)
    world = World(server, store, app)
    rng = random.Random(SEED)
    started = time.perf_counter()
    try:
        print(f"taps_bench: {GAMES} games per variant, seed {SEED}")
        print(f"{'variant':<20} {'games':>5} {'turns':>6} {'forced':>7} {'taps/turn':>10} "
              f"{'edits/turn':>11} {'taps/chosen turn':>17} {'taps on forced':>15}")
        number = 0
        for variant in VARIANTS:
            tally = Tally()
            for _ in range(GAMES):
                number += 1
                await play(world, variant, number, rng, tally)
            forced = tally.turns - tally.chosen
            spread = (f" (games {min(tally.per_game):.2f}-{max(tally.per_game):.2f}, "
                      f"sd {statistics.pstdev(tally.per_game):.2f})")
            print(f"{variant:<20} {tally.games:>5} {tally.turns:>6} {forced:>7} "
                  f"{tally.taps / tally.turns:>10.2f} {tally.edits / tally.turns:>11.2f} "
                  f"{tally.taps / max(1, tally.chosen):>17.2f} {tally.forced_taps:>15}"
                  + spread)
        print(f"({time.perf_counter() - started:.0f} s)")
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
