"""User text on its way into Telegram, through the real handlers and the local
Bot API (whose HTML and size checks are at least Telegram's): every command
with hostile arguments from users with hostile names in a chat with a hostile
title; names with `<` and `&`; names that break a picture's text layout; a
painter that fails; button data with digits that are not ASCII."""

from __future__ import annotations

import random

import pytest
from telegram.ext import CommandHandler

from bot.edge.handlers.common import UNKNOWN_BUTTON
from bot.present.board import board_message, painted
from bot.present.painter import PAINTER
from bot.present.render import BoardView
from bot.rules.matchstate import MatchState, with_table
from bot.store import invite as invites
from bot.vocab.callbacks import ButtonAction
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from engine import Game, Side
from engine.game import GameOptions
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import _setup
from tests.botapi.formatting import parse_html, strip_text, utf16_len
from tests.botapi.model import Chat, Message, RequestRecord, User
from tests.conftest import chat_game

EN = translator("en")
SENDING = {"sendmessage", "sendphoto", "senddocument", "editmessagetext", "editmessagecaption",
           "editmessagemedia", "answercallbackquery", "editmessagereplymarkup"}
REFUSED_CONTENT = ("can't parse entities", "too long", "is empty", "BUTTON", "unallowed",
                   "reply markup", "MESSAGE_TOO_LONG")
"""What the Bot API answers to a message it cannot take as it is."""
SORRY = "Sorry, something went wrong"
ARGUMENTS = {
    "html": "<b>x</b> <x & &amp; &nbsp; </i> >",
    "long": "A" * 4000,
    "control": "a\x00b \x1cc\u2029d\u0085e\rf\u202eg\u200bh ² ١٢ ０",
}
BAD_CHARACTERS = ["\n", "\r", "\u2028", "\u2029", "\u0085", "\x1c", "\x1d", "\x1e", "\x1f",
                  "\x00", "\x0b", "\x0c", "\t", "\u202e", "\ufeff", "\u200b"]
"""Control, format and separator characters a name may carry (a picture's text
layout fails on the line and paragraph breaks among them)."""


def _commands(world: World) -> list[str]:
    """Every command the bot registers (bot/edge/handlers/__init__.py), in a stable order."""
    names = {name for handlers in world.app.handlers.values() for handler in handlers
             if isinstance(handler, CommandHandler) for name in handler.commands}
    assert {"new", "board", "invite", "settle", "clock"} <= names
    return sorted(names)


def _bad_requests(world: World, since: int = 0) -> list[RequestRecord]:
    return [r for r in world.server.requests()[since:]
            if r.method.lower() in SENDING and r.status != 200
            and any(word.lower() in str(r.response.get("description", "")).lower()
                    for word in REFUSED_CONTENT)]


def _sent(world: World, since: int) -> int:
    return sum(1 for r in world.server.requests()[since:]
               if r.method.lower() in SENDING and r.status == 200)


def _assert_fits(message: Message) -> None:
    """What Telegram stored: parsed, within its limit, no error text."""
    limit = 1024 if message.photo is not None or message.document is not None else 4096
    assert utf16_len(message.content or "") <= limit
    assert SORRY not in (message.content or "")


async def _hostile_world(world: World) -> tuple[Chat, Chat, User, User]:
    s = world.server
    alice = s.add_user("<b>Al</b> & <x " + "Ж" * 70, last_name="&amp;\n\u2029\x1c\u0085 Ą",
                       language_code="lt")
    bob = s.add_user("🎲" * 70 + "\u0085", last_name="&lt;i&gt; <i>", language_code="ru")
    group = s.add_group("<script>&amp; " + "T" * 120 + "\n\u2029", members=[alice, bob],
                        owner=alice)
    s.private_chat(alice)
    s.private_chat(bob)
    sent = await world.send(group, alice, "/new backgammon match=3 stake=5 time=1d")
    lobby = await world.reply(group, sent, match=lambda m: bool(m.buttons))
    for user in (alice, bob):  # the lobby speaks Lithuanian: the Join button by its data
        join = next(d for _, d in world.buttons(lobby) if d.endswith(":j"))
        assert not (await world.tap(group, user, lobby, join)).show_alert
    return group, s.private_chat(bob), alice, bob


@pytest.mark.timeout(300)
async def test_every_command_with_hostile_arguments_sends_only_what_telegram_takes(
        world: World) -> None:
    group, private, alice, bob = await _hostile_world(world)
    board = world.board(group)
    assert board.photo is not None and "🎲" in (board.caption or ""), board.content
    silent = []
    for command in _commands(world):
        for chat, user in ((group, alice), (private, bob)):
            for argument in ("", *ARGUMENTS.values()):
                before = len(world.server.requests())
                await world.send(chat, user, f"/{command} {argument}".rstrip())
                await world.idle()
                if not _sent(world, before):
                    silent.append((command, chat.type, argument[:20]))
                assert not _bad_requests(world, before), (command, argument[:40],
                                                          _bad_requests(world, before))
    assert not silent, f"commands that answered nothing: {silent}"
    assert not _bad_requests(world)
    for chat in (group, private):
        for message in world.server.messages(chat):
            if message.from_bot:
                _assert_fits(message)
    answers = [r for r in world.server.requests("answerCallbackQuery")
               if SORRY in str(r.params.get("text"))]
    assert not answers


def _record(names: tuple[str, str]) -> GameRecord:
    players = (Player(user_id=1, name=names[0], side=Side.WHITE),
               Player(user_id=2, name=names[1], side=Side.BLACK))
    game = Game.new(GameOptions.long()).roll(random.Random(1))
    base = GameRecord(chat_id=-1, variant=game.variant, players=players, options=TableOptions())
    return with_table(base, MatchState(game), status=Status.ACTIVE)


@pytest.mark.parametrize("bad", BAD_CHARACTERS, ids=[f"U+{ord(c):04X}" for c in BAD_CHARACTERS])
def test_a_name_with_a_control_or_separator_character_is_painted(bad: str) -> None:
    message = board_message(EN, _record((f"Al{bad}ice", f"{bad}Bob{bad}")), style="png")
    assert painted(message).photo[:4] == b"\x89PNG"  # type: ignore[index]
    assert message.picture is not None
    drawn = message.picture.names
    assert drawn[0] in ("Alice", "Al ice") and drawn[1] == "Bob", drawn
    # the text says just what it says for the clean names
    assert message.text == board_message(EN, _record(drawn), style="png").text


async def test_bad_names_join_a_picture_game_and_its_board_is_posted(world: World) -> None:
    s = world.server
    alice = s.add_user("Al" + "".join(BAD_CHARACTERS) + "ice")
    bob = s.add_user("\n\r\u2029Bob\u0085\x1c", last_name="\x1c")
    club = s.add_group("Club", members=[alice, bob])
    sent = await world.send(club, alice, "/new long")
    lobby = await world.reply(club, sent, "New game")
    await world.tap(club, alice, lobby, text="✋ Join")
    await world.tap(club, bob, lobby, text="✋ Join")
    board = world.board(club)
    assert board.photo is not None and board.photo_bytes[:4] == b"\x89PNG"  # type: ignore[index]
    assert "Al ice" in (board.caption or "") and "Bob" in (board.caption or "")
    sent = await world.send(club, bob, "/board")
    # a board posted since (the old one is edited too, when it loses its buttons:
    # found first, it raced the new one on a loaded machine)
    again = await world.reply(club, sent, match=lambda m: m.photo is not None
                              and m.created_revision > board.created_revision)
    assert again.message_id != board.message_id and SORRY not in again.content
    assert not any(SORRY in m.content for m in s.messages(club))


async def test_a_board_that_cannot_be_painted_is_shown_as_text(world: World,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    async def broken(view: BoardView) -> bytes:
        raise RuntimeError("raqm_layout() failed.")

    t = _setup(world)
    with monkeypatch.context() as patch:
        patch.setattr(PAINTER, "png", broken)
        sent = await world.send(t.chat, t.alice, "/new long")
        lobby = await world.reply(t.chat, sent, "New game")
        await world.tap(t.chat, t.alice, lobby, text="✋ Join")
        await world.tap(t.chat, t.bob, lobby, text="✋ Join")
        board = world.board(t.chat)
        assert board.photo is None and "Alice" in board.content
        assert "pips" in board.content and "Pips:" not in board.content  # the text board
        record = await chat_game(world.store, t.chat.id)
        assert record is not None and record.board_message_id == board.message_id
        assert not record.board_photo
        # a tap while the painter still fails: the text board again, not an error
        roll = next(d for _, d in world.buttons(board) if d.split(":")[3] in ("r", "c", "m"))
        for user in (t.alice, t.bob):
            answer = await world.tap(t.chat, user, board, roll, strict=False)
            if not answer.show_alert:
                break
        assert SORRY not in (answer.text or "")
        assert world.board(t.chat).photo is None
    # painting works again: the next change brings the picture back
    board = world.board(t.chat)
    data = next(d for _, d in world.buttons(board) if d.split(":")[3] in ("r", "c", "m", "s"))
    for user in (t.alice, t.bob):
        answer = await world.tap(t.chat, user, board, data)
        if not answer.show_alert:
            break
    assert world.board(t.chat).photo is not None
    assert not any(SORRY in m.content for m in world.server.messages(t.chat))


async def test_button_data_with_digits_that_are_not_ascii_is_an_unknown_button(
        world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new long")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    board = world.board(t.chat)
    game_id = next(d for _, d in world.buttons(board)).split(":")[1]
    for data in (f"g:{game_id}:²:{ButtonAction.ROLL}", f"g:{game_id}:١:{ButtonAction.ROLL}",
                 f"g:{game_id}:1:{ButtonAction.SOURCE}:²"):
        answers = world.server.request_count("answerCallbackQuery")
        answer = await world.tap(t.chat, t.alice, board, data, strict=False)
        assert answer.show_alert and answer.text == EN.gettext(UNKNOWN_BUTTON), answer
        assert world.server.request_count("answerCallbackQuery") == answers + 1


@pytest.mark.parametrize("name", ["Tom & Jerry <3", "<b>Al</b>", "a &amp; b", "x<y&z>"])
async def test_names_with_lt_and_amp_are_shown_as_written(world: World, name: str) -> None:
    """The names are escaped wherever they go (board caption, lobby, ping)."""
    s = world.server
    alice, bob = s.add_user(name), s.add_user("Bob")
    club = s.add_group("Club", members=[alice, bob])
    sent = await world.send(club, alice, "/new long")
    lobby = await world.reply(club, sent, "New game")
    await world.tap(club, alice, lobby, text="✋ Join")
    joined = world.server.message(club.id, lobby.message_id)
    assert f"Joined: {name}" in joined.content
    await world.tap(club, bob, lobby, text="✋ Join")
    board = world.board(club)
    assert f"○ {name} – ● Bob" in (board.caption or ""), board.content
    assert not _bad_requests(world)


def test_the_board_text_is_valid_html_whatever_the_names() -> None:
    for names in (("<b>", "&"), ("&amp;", "</pre>"), ("<x", "a > b")):
        for style in ("png", "text"):
            text = board_message(EN, _record(names), style=style).text
            plain, _ = strip_text(*parse_html(text))
            assert names[0] in plain and names[1] in plain


async def test_a_bad_option_is_repeated_escaped_and_cut(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new <x")
    answer = await world.reply(t.chat, sent, "Unknown option")
    assert "Unknown option <x." in answer.content
    sent = await world.send(t.chat, t.alice, "/new <b>bold</b>")
    answer = await world.reply(t.chat, sent, "Unknown option")
    assert "Unknown option <b>bold</b>." in answer.content and not answer.entities
    sent = await world.send(t.chat, t.alice, "/new " + "A" * 4000)
    answer = await world.reply(t.chat, sent, "Unknown option")
    assert "A" * 31 + "…." in answer.content and len(answer.content) < 400
    assert not _bad_requests(world)


@pytest.mark.parametrize("bad", [*BAD_CHARACTERS, ":"],
                         ids=[f"U+{ord(c):04X}" for c in [*BAD_CHARACTERS, ":"]])
def test_export_names_hold_no_line_break_of_any_kind(bad: str) -> None:
    from bot.present.export import export_text

    _, text = export_text(_record((f"Al{bad}ice", f"Bob{bad}")))
    assert text.splitlines() == text.split("\n")[:-1]
    assert "Al ice" in text or "Alice" in text


async def test_settle_buttons_show_names_as_written(world: World) -> None:
    """A button's text is plain: a name with < and & is not escaped there."""
    from tests.bot.edge.handlers.club import book

    s = world.server
    ann, bob = s.add_user("Ann <&>"), s.add_user("Bob & Co")
    club = s.add_group("Club", members=[ann, bob])
    await book(world, club, ann, bob, 12)
    sent = await world.send(club, ann, "/settle")
    menu = await world.reply(club, sent, "with whom")
    assert "Bob & Co → Ann <&> 12" in [text for text, _ in world.buttons(menu)]
    await world.tap(club, ann, menu, text="Bob & Co → Ann <&> 12")
    assert "Bob & Co → Ann <&> 12" in world.server.message(club.id, menu.message_id).content


async def test_a_long_list_is_cut_to_fit_a_message(world: World) -> None:
    """/history 50 of players with 64-character names is over 4,096 characters:
    the reply keeps the newest results that fit and says it was cut."""
    from tests.bot.edge.handlers.club import book

    s = world.server
    ann, bob = s.add_user("Ą" * 64), s.add_user("🎲" * 64)
    club = s.add_group("Club", members=[ann, bob])
    for game in range(50):
        await book(world, club, ann, bob, 1, thread=game + 1)
    sent = await world.send(club, ann, "/history 50")
    answer = await world.reply(club, sent)
    assert not _bad_requests(world) and SORRY not in answer.content
    lines = answer.content.split("\n")
    assert 10 < len(lines) < 50 and lines[-1] == "…", answer.content
    assert utf16_len(answer.content) <= 4096


@pytest.mark.parametrize("digit", ["²", "١", "٣", "０", "𝟙"])
def test_every_parser_of_user_input_takes_ascii_digits_only(digit: str) -> None:
    """str.isdigit() and int() take more than 0-9: each parser of a button,
    a command argument or a deep link refuses the others."""
    from bot.edge.handlers.ledger import _bounded_count
    from bot.rules.options import OptionError, parse_new_args
    from bot.vocab import clock
    from bot.vocab.records import GameRef
    from engine.notation import NotationError, parse_point

    with pytest.raises(ValueError, match="not a game ref"):
        GameRef.parse(f"-100{digit}:0:abcd")
    with pytest.raises(clock.TimeControlError):
        clock.parse_time_control(f"1{digit}h")
    for option in ("stake", "match"):
        with pytest.raises(OptionError):
            parse_new_args([f"{option}={digit}"])
    assert isinstance(_bounded_count(EN, [digit]), str)  # the usage message
    with pytest.raises(NotationError):
        parse_point(digit)
    assert invites.token_of("i" + "A" * 22 + "\n") is None
    assert GameRef.parse("-100:0:abcd") == GameRef(-100, None, "abcd")
