"""Who may press which button: every button of every keyboard of the shared
board (lobby, game, offers, after the game), tapped by everyone who must not
press it, and by the rightful player from an older and a newer version.

Table-driven: each scene names who may press each action; the test taps
every button the board shows (a button the table does not know fails the
test, so a new button must be given its rule here) with each role the rule
leaves out and asserts the refusal and that nothing changed: not the
record, not the board message.  Through the real handlers (tests/botapi).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.rules import (
    aftergame,
    cancelling,
    clock,
    computer,
    lobby,
    options,
    play,
    settle,
)
from bot.rules.chatsettings import with_setting
from bot.rules.matchstate import table_of
from bot.rules.seats import waiting_user
from bot.rules.taps import SAME_MEANING
from bot.store.inline import inline_chat_id
from bot.vocab import refusals
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import LANGUAGES, translator
from bot.vocab.records import ChatSettings, GameRecord, settings_key
from bot.vocab.refusals import CATCHING_UP, RESIGN_MOVED, STALE
from engine.game import Phase
from tests.bot.conftest import World
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game

OWNER, OTHER, INTRUDER = "owner", "other", "intruder"
"""The roles: whose buttons they are, the other player, a chat member not playing."""
ONLY = frozenset({OWNER})
PLAYERS = frozenset({OWNER, OTHER})
ANYONE = frozenset({OWNER, OTHER, INTRUDER})

PLAYING = {action: ONLY for action in "rdDtpPsbmhucoRGxai"} | {"C": ONLY}
"""While a game is played: every button is the player's the game waits for
(the mover; the doubled player; whoever answers a resignation offer; a staked
game's "Yes, resign", ``G``, is the resigner's); 💡 Hint
(``i``, a game with hints) only answers, but only the mover may ask."""
HANDED_OVER = PLAYING | {"u": frozenset({OTHER})}
"""A turn handed over without Confirm, the opponent's roll a tap of theirs:
↶ Take my turn back (``u``) is the other player's, who moved (issue 35)."""
CANCEL_PROPOSED = {"C": ONLY, "K": PLAYERS}
"""A cancel proposal: the owner is the proposer's opponent, who agrees;
either player keeps playing."""
AFTER_SINGLE = {"A": PLAYERS, "N": ANYONE}
AFTER_MATCH_GAME = {"A": PLAYERS}
"""Between two games of a match: no New game; Next game is the players'."""
OFFERED = {"a": ONLY, "x": ONLY, "e": frozenset({OTHER}), "N": ANYONE}
"""The next game offered: the owner answers, the other (the offerer) withdraws."""
LOBBY = {"v": frozenset({OWNER, INTRUDER}), "j": frozenset({OTHER, INTRUDER}),
         "q": ONLY, "X": frozenset({OWNER, INTRUDER}), "H": ONLY}
"""A lobby opened by the intruder's role (not seated), the owner seated (so
Play the bot is the owner's alone: the others would take away their game)."""
UNVERSIONED = {"dv": ANYONE, "an": ANYONE}
"""Buttons bound to no record version, by kind: 🎲 Verify and 📊 Analysis
only read the game (anyone in the chat may look; nothing changes)."""
INLINE_LOBBY = {"v": ONLY, "j": frozenset({OTHER, INTRUDER}), "q": ONLY, "X": ONLY}
"""An inline lobby: whoever tapped Join first made it and sits in it; no Play the bot."""
INLINE_WAITING = {"S": PLAYERS, "X": PLAYERS}
"""An inline game both joined: either player's ▶ Start (its id is the dice's
entropy) or Close; its 🎲 Verify sends the commitment to the tapper's chat."""
AFTER_INLINE = {"A": PLAYERS}
"""After an inline game: no New game (there is no chat to open a lobby in)."""
INLINE_UNVERSIONED = {"dv": PLAYERS, "an": PLAYERS}
"""An inline game's dice and analysis are its players' (like a private game's:
the bot is not in the chat, so it answers in the player's private chat)."""


@dataclass
class People:
    chat: Chat
    alice: User
    bob: User
    eve: User
    game_chat: int | None = None
    """Where the game is kept when not under ``chat`` (an inline game's synthetic chat)."""

    def other(self, user: User) -> User:
        return self.bob if user is self.alice else self.alice


async def _people(world: World) -> People:
    s = world.server
    alice, bob, eve = s.add_user("Alice"), s.add_user("Bob"), s.add_user("Eve")
    chat = s.add_group("Club", members=[alice, bob, eve])
    # text boards: nothing here is about pictures, and no painting keeps it quick
    await world.store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
        chat_id=chat.id, board_style="text"))
    return People(chat, alice, bob, eve)


async def _record(world: World, p: People) -> GameRecord:
    record = await chat_game(world.store, p.game_chat or p.chat.id)
    assert record is not None
    return record


async def _waiting(world: World, p: People) -> User:
    user_id = waiting_user(await _record(world, p))
    return p.alice if user_id == p.alice.id else p.bob


def _action(data: str) -> str:
    return data.split(":")[3]


def _versioned(data: str, delta: int) -> str:
    kind, ident, version, *rest = data.split(":")
    return ":".join([kind, ident, str(int(version) + delta), *rest])


async def check(world: World, p: People, scene: str, owner: User,
                rules: dict[str, frozenset[str]], *, other: User | None = None,
                unversioned: dict[str, frozenset[str]] = UNVERSIONED) -> Message:
    """Tap every button of the board as every role ``rules`` leaves out, and
    as the rightful role from the version before and the version after;
    each tap must be refused with an alert and change nothing.  Buttons bound
    to no version (``unversioned``, by kind) are tapped by every role: refused
    for those left out, answered without an alert for the others, and
    nothing changes either way."""
    board = world.board(p.chat)
    before = await _record(world, p)
    shown, content = world.buttons(board), board.content
    versioned = [(text, data) for text, data in shown if data.startswith(("g:", "l:"))]
    actions = {_action(data) for _, data in versioned}
    assert actions <= set(rules), f"{scene}: no rule for {actions - set(rules)}"
    others = [(text, data) for text, data in shown if (text, data) not in versioned]
    kinds = {data.split(":")[0] for _, data in others}
    assert kinds <= set(unversioned), f"{scene}: no rule for {kinds - set(unversioned)}"
    people = {OWNER: owner, OTHER: other or p.other(owner), INTRUDER: p.eve}

    async def unchanged(why: str) -> None:
        assert await _record(world, p) == before, f"{scene}: {why} changed the record"
        now = world.server.message(p.chat.id, board.message_id)
        assert (now.content, world.buttons(now)) == (content, shown), (
            f"{scene}: {why} changed the board")
        assert world.board(p.chat).message_id == board.message_id, f"{scene}: {why} reposted"

    for text, data in others:
        allowed = unversioned[data.split(":")[0]]
        for role in (INTRUDER, OWNER, OTHER):
            answer = await world.tap(p.chat, people[role], board, data)
            # an allowed tap may still be told something (where the answer goes)
            refused = answer.show_alert and answer.text == "This button does not work any more."
            assert refused is (role not in allowed), (scene, text, role, answer)
            await unchanged(f"{role} tapping {text!r}")
            if role in allowed:
                break  # once is enough: every allowed role is answered alike
    for number, (text, data) in enumerate(versioned):
        allowed = rules[_action(data)]
        for role in (OWNER, OTHER, INTRUDER):
            if role in allowed:
                continue
            answer = await world.tap(p.chat, people[role], board, data)
            assert answer.show_alert and answer.text, (scene, text, role, answer)
            await unchanged(f"{role} tapping {text!r}")
        rightful = people[next(r for r in (OWNER, OTHER, INTRUDER) if r in allowed)]
        deltas = (-1, 1) if number == 0 else (-1,)  # a newer version waits 0.5 s: once a scene
        for delta in deltas:
            if before.version + delta < 0:
                continue
            tapped = Callback.parse(data)
            if delta < 0 and (tapped.kind, tapped.action) in SAME_MEANING:
                continue  # played as a tap on this version (test_catching_up.py)
            answer = await world.tap(p.chat, rightful, board, _versioned(data, delta),
                                     strict=False)
            # an older drawing of this very message: its redraw lags, the player is not wrong
            told = CATCHING_UP if delta < 0 else STALE
            if delta < 0 and tapped.action is ButtonAction.RESIGN_SURE:
                # what it cost was the older board's: said so (naming ⋯ More as it reads)
                told = translator("en").naming(RESIGN_MOVED, translator("en"))
            assert answer.show_alert and answer.text == told, (scene, text, delta, answer)
            await unchanged(f"{text!r} from version {before.version + delta}")
    return board


async def _tap(world: World, p: People, user: User, action: str) -> None:
    board = world.board(p.chat)
    data = next(d for _, d in world.buttons(board) if _action(d) == action)
    answer = await world.tap(p.chat, user, board, data)
    assert not answer.show_alert, (action, answer)


async def _resign(world: World, p: People, resigner: User) -> None:
    """⋯ More, the smallest resignation, and its "Yes, resign" in a staked game."""
    await _tap(world, p, resigner, "o")
    await _tap(world, p, resigner, "R")
    if any(_action(d) == "G" for _, d in world.buttons(world.board(p.chat))):
        await _tap(world, p, resigner, "G")


async def _command(world: World, p: People, user: User, text: str) -> None:
    sent = await world.send(p.chat, user, text)
    await world.reply(p.chat, sent)


async def _started(world: World, command: str) -> People:
    """Alice opens a lobby with ``command``; she and Bob join: the game starts."""
    p = await _people(world)
    sent = await world.send(p.chat, p.alice, command)
    await world.reply(p.chat, sent, "New game")
    await _tap(world, p, p.alice, "j")
    await _tap(world, p, p.bob, "j")
    return p


async def test_every_button_of_a_match_refuses_everyone_but_its_owner(world: World) -> None:
    p = await _started(world, "/new backgammon match=3 stake=10")
    # the chat asks Confirm in staked games (not the default since issue 35): its button too
    await world.store.games.update(settings_key(p.chat.id), lambda s: with_setting(
        s, p.chat.id, "confirm_turns", "staked"))
    seen: set[str] = set()
    # play: the opening move, the menu, a source point, a turn to Undo and Confirm,
    # a whole turn, the roll and double (and its confirmation: the game is staked)
    # of the other player, the pass to confirm
    for _ in range(60):
        record = await _record(world, p)
        game = table_of(record).game
        owner = await _waiting(world, p)
        board = world.board(p.chat)
        actions = {_action(d) for _, d in world.buttons(board)}
        await check(world, p, f"{game.phase.value} {sorted(actions)}", owner,
                    HANDED_OVER if record.takeback_by is not None else PLAYING)
        seen |= actions
        if game.phase is Phase.DOUBLE:
            if "P" in actions:
                await _tap(world, p, owner, "b")
                await _tap(world, p, owner, "t")
            else:
                await _tap(world, p, owner, "p")  # the confirmation, checked next round
            continue
        if "o" in actions and "R" not in seen:
            await _tap(world, p, owner, "o")
            seen.add("o")
            continue
        if "R" in actions and "G" not in seen:
            await _tap(world, p, owner, "R")  # staked: "Yes, resign" checked next round
            continue
        if "R" in actions or "G" in actions:
            await _tap(world, p, owner, "b")
            continue
        if "s" in actions and "b" not in actions:
            await _tap(world, p, owner, "s")
            continue
        if "d" in actions and "t" not in seen:
            await _tap(world, p, owner, "d")  # a staked game asks to confirm: "D" next round
            continue
        if "h" in actions and "h" not in seen:
            await _tap(world, p, owner, "h")  # a whole turn: Confirm (or Undo) next round
            seen.add("h")
            continue
        step = next(a for a in ("c", "D", "m", "r") if a in actions)
        await _tap(world, p, owner, step)
        if {"u", "c", "d", "t", "P", "R", "G", "h"} <= seen:
            break
    assert {"r", "d", "D", "t", "p", "P", "m", "h", "u", "c", "o", "R", "G", "C", "b"} <= seen, seen
    # a resignation offer: the opponent answers
    resigner = await _waiting(world, p)
    await _resign(world, p, resigner)
    await check(world, p, "resignation offered", p.other(resigner), PLAYING)
    await _tap(world, p, p.other(resigner), "x")
    # a cancel proposal: the proposer's opponent agrees, either keeps playing
    proposer = await _waiting(world, p)
    await _command(world, p, proposer, "/cancel")
    await check(world, p, "cancel proposed", p.other(proposer), CANCEL_PROPOSED)
    await _tap(world, p, proposer, "K")
    # the game ends, the match does not: Next game is the players', New game nobody's
    resigner = await _waiting(world, p)
    await _resign(world, p, resigner)
    await _tap(world, p, p.other(resigner), "a")
    await check(world, p, "between two games", p.alice, AFTER_MATCH_GAME)
    await _command(world, p, p.bob, "/cancel")
    await check(world, p, "end of the match proposed", p.alice, CANCEL_PROPOSED)
    await _tap(world, p, p.bob, "K")
    await _tap(world, p, p.bob, "A")
    await check(world, p, "next game offered", p.alice, OFFERED, other=p.bob)
    await _tap(world, p, p.alice, "a")
    assert (await _record(world, p)).status.value == "active"


async def test_every_button_of_a_lobby_and_a_single_game_after_its_end(world: World) -> None:
    p = await _people(world)
    sent = await world.send(p.chat, p.eve, "/new long stake=10 time=1d")
    await world.reply(p.chat, sent, "New game")
    await _tap(world, p, p.alice, "j")
    await check(world, p, "lobby", p.alice, LOBBY, other=p.bob)
    await _tap(world, p, p.bob, "j")
    resigner = await _waiting(world, p)
    await _resign(world, p, resigner)
    await _tap(world, p, p.other(resigner), "a")
    await check(world, p, "after a single game", p.alice, AFTER_SINGLE)
    await _tap(world, p, p.bob, "A")
    await check(world, p, "rematch offered", p.alice, OFFERED, other=p.bob)


async def test_every_button_of_an_inline_game(world: World) -> None:
    """The same rules on a message sent via the bot in a group the bot is not in."""
    s = world.server
    s.set_inline(True)
    alice, bob, eve = s.add_user("Alice"), s.add_user("Bob"), s.add_user("Eve")
    friends = s.add_group("Friends", members=[alice, bob, eve], bot_status="left")
    query = s.user_inline_query(friends, alice, "long time=1d")
    await query.wait_answer_async(5)
    lobby = s.user_chooses_inline_result(query, "Long nardy")
    assert lobby.inline_message_id is not None
    p = People(friends, alice, bob, eve, inline_chat_id(lobby.inline_message_id))
    await world.tap(friends, alice, lobby, text="✋ Join")
    await check(world, p, "inline lobby", alice, INLINE_LOBBY)
    await _tap(world, p, bob, "j")
    await check(world, p, "inline game waiting for Start", alice, INLINE_WAITING,
                unversioned=INLINE_UNVERSIONED)
    await _tap(world, p, bob, "S")
    for _ in range(3):
        owner = await _waiting(world, p)
        await check(world, p, "inline game", owner, PLAYING)
        await _tap(world, p, owner, next(a for a in ("c", "m", "r") if a in {
            _action(d) for _, d in world.buttons(world.board(friends))}))
    resigner = await _waiting(world, p)
    await _resign(world, p, resigner)
    await _tap(world, p, p.other(resigner), "a")
    await check(world, p, "after an inline game", alice, AFTER_INLINE,
                unversioned=INLINE_UNVERSIONED)
    await _tap(world, p, bob, "A")
    offered = {action: rule for action, rule in OFFERED.items() if action != "N"}
    await check(world, p, "inline rematch offered", alice, offered, other=bob,
                unversioned=INLINE_UNVERSIONED)


async def test_the_hint_is_the_movers_alone(world: World) -> None:
    """A game with hints (bot/rules/hints.py): 💡 Hint beside the moves, at a
    turn's start and after a step, is the mover's; the other player's and a
    bystander's taps, and the mover's on an older or newer board, are refused."""
    p = await _started(world, "/new backgammon hints=on")
    seen: set[str] = set()
    for _ in range(6):
        owner = await _waiting(world, p)
        actions = {_action(d) for _, d in world.buttons(world.board(p.chat))}
        phase = table_of(await _record(world, p)).game.phase
        await check(world, p, f"hints: {phase.value} {sorted(actions)}", owner, PLAYING)
        seen |= actions
        if "i" in actions and "u" in seen:
            break
        await _tap(world, p, owner, next(a for a in ("m", "c", "r") if a in actions))
    assert {"i", "m", "u"} <= seen, seen


def _service_texts() -> list[str]:
    """The msgids the table's rules mark: the refusals its taps and commands answer with."""
    texts = []
    for module in (refusals, options, lobby, play, aftergame, clock, cancelling,
                   settle, computer):
        tree = ast.parse(Path(module.__file__).read_text())
        texts += [node.args[0].value for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "N_" and isinstance(node.args[0], ast.Constant)]
    return texts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_fits_an_alert(lang: str) -> None:
    """A refusal is shown as a tap's alert: Telegram takes at most 200 characters
    (the options table's /help parts, marked in the same module, are no alerts)."""
    tr = translator(lang)
    help_texts = {text for o in options.OPTIONS for text in (o.help, o.help_line) if text}
    texts = [text for text in _service_texts() if "{" not in text and text not in help_texts]
    assert refusals.THEIR_BUTTONS in texts and len(texts) > 20
    long = {text: size for text in texts
            if (size := len(tr.gettext(text).encode("utf-16-le")) // 2) > 200}
    assert not long, long


PICKING = {"board": ONLY, "cancel": ONLY, "export": ONLY}
"""A command's list of the chat's games (kind ``gp``): its caller's alone."""


async def test_a_list_of_games_is_its_callers_alone(world: World) -> None:
    """Alice plays two games here, so /board, /cancel and /export answer her
    with a list; every button of it is refused to the others and changes
    nothing, and a game that no longer fits is refused to her too."""
    p = await _people(world)
    for opponent in (p.bob, p.eve):
        sent = await world.send(p.chat, p.alice, "/new long")
        lobby = await world.reply(p.chat, sent, "New game")
        await world.tap(p.chat, p.alice, lobby, text="✋ Join")
        await world.tap(p.chat, opponent, lobby, text="✋ Join")
    games = await world.store.games.chat_games(p.chat.id)
    assert len(games) == 2
    people = {OWNER: p.alice, OTHER: p.bob, INTRUDER: p.eve}
    for command, allowed in PICKING.items():
        sent = await world.send(p.chat, p.alice, f"/{command}")
        listing = await world.reply(p.chat, sent, "Which one?")
        shown = world.buttons(listing)
        assert sorted(d for _, d in shown) == sorted(
            f"gp:{command}:{p.alice.id}:{g.game_id}" for g in games)
        for text, data in shown:
            for role in (OTHER, INTRUDER):
                assert role not in allowed
                answer = await world.tap(p.chat, people[role], listing, data)
                assert answer.show_alert and "Only whoever sent the command" in (
                    answer.text or ""), (command, text, role, answer)
                assert world.buttons(listing) == shown
                assert await world.store.games.chat_games(p.chat.id) == games
    # a game that no longer fits /cancel (cancelled meanwhile) is refused to its caller
    sent = await world.send(p.chat, p.alice, "/cancel")
    listing = await world.reply(p.chat, sent, "Which one?")
    first = games[0]
    for user in (p.alice, p.bob):
        sent = await world.send(p.chat, user, "/cancel",
                                reply_to=first.board_message_id)
        await world.reply(p.chat, sent)
    data = next(d for _, d in world.buttons(listing) if d.endswith(first.game_id))
    answer = await world.tap(p.chat, p.alice, listing, data)
    assert answer.show_alert and "send the command again" in (answer.text or "")
    # and a list's data of an unknown command is no button of this bot
    answer = await world.tap(p.chat, p.alice, listing,
                             f"gp:nosuch:{p.alice.id}:{first.game_id}", strict=False)
    assert answer.show_alert and "does not work" in (answer.text or "")


FORGED_ONTO = ("game", "lobby", "clock", "settle", "picker", "lang", "settings")
"""Every kind of message with buttons a handler edits when tapped: a game's
board, a lobby, a clock's proposal, a settle request, a command's list of
games, /lang and /settings."""


async def test_every_button_forged_onto_every_other_message_changes_nothing(
        world: World) -> None:
    """Issue 21, item 4: Telegram delivers any callback data a client sends,
    with the message it names.  Each kind of button, tapped by the one who may
    press it on its own message, is forged onto every other kind of message:
    refused with an alert, and no message, record, request or setting changes
    (before the fix a clock button turned a board into a pause offer, a
    picker button took a board's keyboard, a settle button made a board a
    settle prompt, /lang and /settings buttons rewrote any message)."""
    s = world.server
    alice, bob, eve = s.add_user("Alice"), s.add_user("Bob"), s.add_user("Eve")
    chat = s.add_group("Club", members=[bob, eve], admins=[alice])
    await world.store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
        chat_id=chat.id, board_style="text"))
    sent = await world.send(chat, alice, "/new long time=1d")
    first = await world.reply(chat, sent, "New game")
    await world.tap(chat, alice, first, text="✋ Join")
    await world.tap(chat, bob, first, text="✋ Join")
    board = world.board(chat)  # posted below its lobby, which stays as it was (issue 35)
    sent = await world.send(chat, alice, "/pause")
    clock = await world.answer(chat, sent, "proposes to pause")
    sent = await world.send(chat, alice, "/new backgammon")
    lobby = await world.reply(chat, sent, "New game")
    await world.store.redis.hset(world.store.keys.chat(chat.id, "ledger"),
                                 mapping={f"{min(alice.id, bob.id)}:{max(alice.id, bob.id)}": 5})
    sent = await world.send(chat, alice, "/settle")
    settle_menu = await world.answer(chat, sent, "with whom")
    sent = await world.send(chat, alice, "/board")
    picker = await world.answer(chat, sent, "Which one?")
    sent = await world.send(chat, alice, "/lang")
    lang = await world.answer(chat, sent)
    sent = await world.send(chat, alice, "/settings")
    settings_message = await world.answer(chat, sent)
    messages = dict(zip(FORGED_ONTO, (board, lobby, clock, settle_menu, picker, lang,
                                      settings_message), strict=True))
    game = next(g for g in await world.store.games.chat_games(chat.id) if g.players[1:])
    mover = alice if waiting_user(game) == alice.id else bob
    # each kind's button and who may press it there
    tappers = {"game": mover, "lobby": eve, "clock": bob, "settle": alice, "picker": alice,
               "lang": alice, "settings": alice}
    buttons = {kind: world.buttons(messages[kind])[0][1] for kind in FORGED_ONTO}
    assert {data.split(":")[0] for data in buttons.values()} == {
        "g", "l", "k", "s", "gp", "lang", "set"}, buttons

    async def state() -> object:
        shown = [(m.content, world.buttons(m)) for m in messages.values()]
        return (shown, await world.store.games.chat_games(chat.id),
                await world.store.ledger.ledger(chat.id),
                await world.store.games.load(settings_key(chat.id)))

    before = await state()
    for kind, data in buttons.items():
        for target, message in messages.items():
            if target == kind:
                continue
            answer = await world.tap(chat, tappers[kind], message, data, strict=False)
            assert answer.show_alert, (kind, target, answer)
            assert await state() == before, f"a {kind} button forged onto the {target} changed"
    assert (await world.tap(chat, bob, clock, buttons["clock"])).show_alert is False  # its own


async def test_a_forged_verify_never_tells_another_chats_dice(world: World) -> None:
    """🎲 Verify's data names a chat, but the chat is the tapped message's: a
    forged Verify naming another chat's game posts nothing of that game."""
    p = await _started(world, "/new long")
    other = world.server.add_group("Elsewhere", members=[p.eve])
    sent = await world.send(other, p.eve, "/new backgammon")
    elsewhere = await world.reply(other, sent, "New game")
    game = await _record(world, p)
    assert game.dice is not None
    forged = f"dv:{p.chat.id}:0:{game.game_id}"
    count = len(world.server.messages(other))
    answer = await world.tap(other, p.eve, elsewhere, forged, strict=False)
    assert answer.show_alert and answer.text == "This button does not work any more."
    assert len(world.server.messages(other)) == count  # nothing posted there
