"""Every message addressed to one person is in that person's language (issue 26 §1),
whoever tapped: the chat's language is on auto, the two players (and so the
tapper and the addressee) speak different languages, and each kind of addressed
message is checked against the addressee's catalogue, buttons included.

:data:`KINDS` is the table: one scenario per kind of addressed message, each
naming the function that words it; :func:`test_the_table_covers_every_addressed_text`
fails when a function that names its reader (``mention``) is missing from it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.edge.handlers.board import PING_DELAY
from bot.rules.seats import waiting_user
from bot.vocab.clock import HOUR
from bot.vocab.i18n import LANGUAGES, translator
from tests.bot.conftest import World
from tests.bot.edge.handlers import test_clock
from tests.bot.edge.handlers.club import book
from tests.bot.edge.handlers.test_clock import LIMIT, Clock, play_turn, tick
from tests.bot.edge.handlers.test_handlers import Table, _data, _mover, _play_until, _record
from tests.botapi.model import Message, User

timed = test_clock.timed  # the fixture: a test clock, the clock job off

ROOT = Path(__file__).resolve().parents[4]
PAIRS = (("en", "ru"), ("ru", "lt"), ("lt", "en"))
"""(the tapper's language, the addressee's): each language on each side once."""


@dataclass
class Seen:
    """An addressed message as its reader got it."""

    message: Message
    addressee: User
    tapper: User | None
    """Whoever's tap or command made the bot send it (None: the clock)."""
    msgid: str
    buttons: tuple[str, ...] = ()
    """msgids of its buttons."""
    named: bool = True
    """The text names its reader (in a group; a private chat's need not)."""


def literal(lang: str, msgid: str) -> str:
    """The longest fixed piece of ``msgid``'s translation (its placeholders left out)."""
    text = translator(lang).gettext(msgid)
    return max(re.split(r"\{\w+\}", text), key=len).strip(" .,:")


@dataclass
class Scene:
    world: World
    timed: Clock
    table: Table
    lang: dict[int, str]

    @property
    def chat(self) -> object:
        return self.table.chat

    def other(self, user: User) -> User:
        return self.table.bob if user is self.table.alice else self.table.alice

    async def start(self, args: str = "long", by: User | None = None) -> Message:
        """A game of the two, opened by ``by`` (Alice) with /new."""
        w, t = self.world, self.table
        by = by or t.alice
        sent = await w.send(t.chat, by, f"/new {args}")
        lobby = await w.reply(t.chat, sent)
        for user in (by, self.other(by)):
            join = w.find(lobby, lambda _text, data: data.startswith("l:")
                          and data.split(":")[3] == "j")[1]
            await w.tap(t.chat, user, lobby, join)
        return w.board(t.chat)

    async def waiting(self) -> User:
        uid = waiting_user(await _record(self.world, self.table))
        return self.table.alice if uid == self.table.alice.id else self.table.bob

    def last(self, chat: object, since: int = 0) -> Message:
        messages = [m for m in self.world.server.messages(chat)  # type: ignore[arg-type]
                    if m.from_bot and m.message_id > since]
        assert messages, self.world.server.transcript(chat)  # type: ignore[arg-type]
        return messages[-1]

    def marked(self, chat: object, since: int, mark: str) -> Message:
        """The bot's newest message after ``since`` that begins with ``mark``."""
        return next(m for m in reversed(self.world.server.messages(chat))  # type: ignore[arg-type]
                    if m.from_bot and m.message_id > since and m.content.startswith(mark))

    def newest_id(self, chat: object) -> int:
        messages = self.world.server.messages(chat)  # type: ignore[arg-type]
        return messages[-1].message_id if messages else 0


Scenario = Callable[[Scene], Awaitable[Seen]]


async def _turn_ping(scene: Scene) -> Seen:
    """A played turn hands the dice over: the group ping, at once (delay 0)."""
    scene.world.app.bot_data[PING_DELAY] = 0
    await scene.start()
    mover = await scene.waiting()
    since = scene.newest_id(scene.chat)
    await play_turn(scene.world, scene.table)
    return Seen(scene.last(scene.chat, since), scene.other(mover), mover, "{who}, your turn.")


async def _delayed_turn_ping(scene: Scene) -> Seen:
    """The group ping sent by the clock after ``TURN_PING_DELAY``."""
    await scene.start()
    mover = await scene.waiting()
    await play_turn(scene.world, scene.table)
    since = scene.newest_id(scene.chat)
    scene.timed.advance(120)
    await tick(scene.world)
    return Seen(scene.last(scene.chat, since), scene.other(mover), mover, "{who}, your turn.")


async def _private_turn_ping(scene: Scene) -> Seen:
    """The ping in the private chat of a player who started the bot."""
    for user in (scene.table.alice, scene.table.bob):
        scene.world.server.private_chat(user)
        await scene.world.store.prefs.note_started(user.id)
    await scene.start()
    mover = await scene.waiting()
    addressee = scene.other(mover)
    since = scene.newest_id(addressee.id)
    await play_turn(scene.world, scene.table)
    return Seen(scene.last(addressee.id, since), addressee, mover, "{who}, your turn.",
                ("Open the game",) if str(scene.table.chat.id).startswith("-100") else ())


async def _resignation_ping(scene: Scene) -> Seen:
    scene.world.app.bot_data[PING_DELAY] = 0
    board = await scene.start()
    w, t = scene.world, scene.table
    mover, other = await _mover(w, t)
    await w.tap(t.chat, mover, board, _data(w, board, "o"))
    since = scene.newest_id(t.chat)
    await w.tap(t.chat, mover, board, _data(w, board, "R"))
    return Seen(scene.last(t.chat, since), other, mover, "{who}, your opponent offers to resign.")


async def _double_ping(scene: Scene) -> Seen:
    scene.world.app.bot_data[PING_DELAY] = 0
    await scene.start("backgammon")
    w, t = scene.world, scene.table
    board = await _play_until(w, t, lambda _mover: True)
    doubler, taker = await _mover(w, t)
    since = scene.newest_id(t.chat)
    await w.tap(t.chat, doubler, board, _data(w, board, "d"))
    board = w.board(t.chat)
    if any(d.split(":")[3] == "D" for _, d in w.buttons(board)):  # Double asks first
        await w.tap(t.chat, doubler, board, _data(w, board, "D"))
    return Seen(scene.last(t.chat, since), taker, doubler, "{who}, you are doubled: take or pass?")


async def _rematch_ping(scene: Scene) -> Seen:
    scene.world.app.bot_data[PING_DELAY] = 0
    board = await scene.start()
    w, t = scene.world, scene.table
    mover, other = await _mover(w, t)
    await w.tap(t.chat, mover, board, _data(w, board, "o"))
    await w.tap(t.chat, mover, board, _data(w, board, "R"))
    await w.tap(t.chat, other, board, _data(w, board, "a"))
    since = scene.newest_id(t.chat)
    await w.tap(t.chat, other, board, _data(w, board, "A"))
    return Seen(scene.last(t.chat, since), mover, other, "{who}, your opponent offers a rematch.")


async def _late(scene: Scene) -> User:
    """A game with a clock whose late player is not the one who opened it
    (so the board's language is not theirs)."""
    await scene.start("long time=12h")
    if await scene.waiting() is scene.table.alice:
        await play_turn(scene.world, scene.table)
    return await scene.waiting()


async def _reminder(scene: Scene) -> Seen:
    late = await _late(scene)
    since = scene.newest_id(scene.chat)
    scene.timed.advance(6 * HOUR + 60)
    await tick(scene.world)
    return Seen(scene.marked(scene.chat, since, "⏰"), late, None,
                "{who}, your move is waiting: {left} left.", ("Mute reminders",))


async def _private_reminder(scene: Scene) -> Seen:
    late = await _late(scene)
    scene.world.server.private_chat(late)
    await scene.world.store.prefs.note_started(late.id)
    since = scene.newest_id(late.id)
    scene.timed.advance(6 * HOUR + 60)
    await tick(scene.world)
    return Seen(scene.marked(late.id, since, "⏰"), late, None,
                "Your move against {opponent} ({variant}) is waiting: {left} left.",
                ("Mute reminders",), named=False)


async def _timeout_offer(scene: Scene) -> Seen:
    late = await _late(scene)
    winner = scene.other(late)
    since = scene.newest_id(scene.chat)
    scene.timed.advance(LIMIT + 60)
    await tick(scene.world)
    return Seen(scene.marked(scene.chat, since, "⌛"), winner, None,
                "{late} ran out of time. {who}: claim the win ({points}) or give more time?",
                ("Claim win",))


async def _settle_request(scene: Scene) -> Seen:
    w, t = scene.world, scene.table
    await book(w, t.chat, t.alice, t.bob, 30)  # type: ignore[arg-type]
    said = await w.send(t.chat, t.bob, "I lost")
    sent = await w.send(t.chat, t.alice, "/settle", reply_to=said)
    prompt = await w.reply(t.chat, sent)
    return Seen(prompt, t.bob, t.alice,
                "{other}, confirm that it is settled? The balance becomes 0.",
                ("✅ Settled", "✖ No"))


async def _invitation_notice(scene: Scene) -> Seen:
    """Alice invites (in her private chat); Bob opens the link: Alice is told."""
    w, alice, bob = scene.world, scene.table.alice, scene.table.bob
    mine = w.server.private_chat(alice)
    answer = await w.reply(mine, await w.send(mine, alice, "/invite"))
    found = re.search(r"\?start=(\S+)", answer.text or "")
    assert found is not None, answer.text
    since = scene.newest_id(alice.id)
    theirs = w.server.private_chat(bob)
    await w.reply(theirs, await w.send(theirs, bob, f"/start {found.group(1)}"))
    first = next(m for m in w.server.messages(alice.id) if m.from_bot and m.message_id > since)
    return Seen(first, alice, bob, "Private game against {name}: {game}. Your board follows; "
                "it is updated after every move.", named=False)


KINDS: dict[str, tuple[Scenario, str]] = {
    "turn ping": (_turn_ping, "bot.present.board.notification"),
    "delayed turn ping": (_delayed_turn_ping, "bot.present.board.notification"),
    "private turn ping": (_private_turn_ping, "bot.present.board.notification"),
    "resignation offer": (_resignation_ping, "bot.present.board.notification"),
    "double": (_double_ping, "bot.present.board.notification"),
    "rematch offer": (_rematch_ping, "bot.present.board.notification"),
    "reminder": (_reminder, "bot.edge.handlers.clock.remind"),
    "private reminder": (_private_reminder, "bot.edge.handlers.clock.remind"),
    "timeout offer": (_timeout_offer, "bot.edge.handlers.clock.offer_timeout"),
    "settle request": (_settle_request, "bot.edge.handlers.settle.prompt"),
    "invitation notice": (_invitation_notice, "bot.edge.handlers.invite._tell"),
}
"""Kind of addressed message: (its scenario, the function that words it)."""


@pytest.mark.parametrize("pair", PAIRS, ids="->".join)
@pytest.mark.parametrize("kind", list(KINDS))
async def test_an_addressed_message_is_in_its_readers_language(
        world: World, timed: Clock, kind: str, pair: tuple[str, str]) -> None:
    s = world.server
    first, second = pair
    alice = s.add_user("Alice", language_code=first)
    bob = s.add_user("Bob", language_code=second)
    club = s.add_group("Club", members=[alice, bob])
    scene = Scene(world, timed, Table(club, alice, bob, s.add_user("Eve")),
                  {alice.id: first, bob.id: second})
    seen = await KINDS[kind][0](scene)
    assert seen.tapper is not seen.addressee
    lang = scene.lang[seen.addressee.id]
    text = seen.message.content
    assert seen.addressee.first_name in text or not seen.named, text
    assert literal(lang, seen.msgid) in text, (kind, lang, text)
    for other in LANGUAGES:
        if other != lang and literal(other, seen.msgid) != literal(lang, seen.msgid):
            assert literal(other, seen.msgid) not in text, (kind, lang, text)
    labels = [label for row in seen.message.buttons for label, _ in row]
    for msgid in seen.buttons:
        label = translator(lang).gettext(msgid)
        assert any(label in shown for shown in labels), (kind, lang, label, labels)


def _namers() -> set[str]:
    """Functions of bot/ that name their reader with ``mention`` (a text addressed to them)."""
    found = set()
    for path in (ROOT / "bot").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.name != "mention" and any(
                        isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id == "mention" for call in ast.walk(node)):
                found.add(f"{module}.{node.name}")
    return found


def test_the_table_covers_every_addressed_text() -> None:
    covered = {where for _scenario, where in KINDS.values()}
    assert _namers() <= covered, f"addressed texts without a language test: " \
                                 f"{sorted(_namers() - covered)}: add them to KINDS"


@pytest.mark.parametrize("how", ["command", "lobby button"])
async def test_the_computer_is_named_in_the_boards_language(world: World, how: str) -> None:
    """The chat's boards are Russian (its first game's); an English player's
    game against the computer names it in Russian too, as it stands on the board."""
    s = world.server
    boris, alice = s.add_user("Борис", language_code="ru"), s.add_user("Alice")
    club = s.add_group("Club", members=[boris, alice])
    await world.reply(club, await world.send(club, boris, "/new long"))
    assert (await world.store.games.chat_settings(club.id)).board_language == "ru"
    if how == "command":
        await world.start_computer(club, alice, "/new long bot level=strong")
    else:
        lobby = await world.reply(club, await world.send(club, alice, "/new long"))
        await world.tap(club, alice, lobby, world.find(
            lobby, lambda _text, data: data.startswith("l:") and data.split(":")[3] == "H")[1])
    games = await world.store.games.chat_games(club.id, None, ended=False)
    [name] = [p.name for g in games for p in g.players if p.user_id != alice.id
              and g.created_by != boris.id]
    ru = translator("ru")
    assert name.startswith(ru.gettext("🤖 Nardy bot ({level})").split("(")[0]), name
