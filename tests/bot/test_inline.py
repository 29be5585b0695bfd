"""Inline games through the real handlers and the local Bot API server's inline
mode: the query's results, the lobby "via @bot", Join, play by editing the one
inline message, refusals, pictures through a media chat, the end booked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.store import Store
from bot.store.inline_games import inline_chat_id, inline_game
from bot.store.records import GameRecord, Status
from tests.bot.conftest import World, running_world
from tests.bot.driver import Driver, game_board
from tests.botapi import BotApiServer
from tests.botapi.model import Chat, InlineAnswer, Message, User

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
async def inline_world(store: Store) -> AsyncIterator[World]:
    async with running_world(store) as world:
        world.server.set_inline(True)
        yield world


@dataclass
class Pair:
    alice: User
    bob: User
    chat: Chat  # their private chat: the bot is not in it


def _pair(world: World) -> Pair:
    s = world.server
    alice, bob = s.add_user("Alice"), s.add_user("Bob", language_code="ru")
    return Pair(alice, bob, s.user_chat(alice, bob))


async def _ask(world: World, chat: Chat, user: User, text: str) -> InlineAnswer:
    query = world.server.user_inline_query(chat, user, text)
    answer = await query.wait_answer_async(5)
    world.last_query = query  # type: ignore[attr-defined]
    return answer


async def _post(world: World, p: Pair, text: str = "", title: str = "Long nardy") -> Message:
    """Alice types ``@bot <text>`` and picks the result ``title``: the lobby message."""
    query = world.server.user_inline_query(p.chat, p.alice, text)
    await query.wait_answer_async(5)
    return world.server.user_chooses_inline_result(query, title)


async def _record(world: World, message: Message) -> GameRecord:
    assert message.inline_message_id is not None
    record = await inline_game(world.store, message.inline_message_id)
    assert record is not None
    return record


async def test_an_empty_query_offers_both_games(inline_world: World) -> None:
    p = _pair(inline_world)
    answer = await _ask(inline_world, p.chat, p.alice, "")
    assert answer.titles == ["Long nardy", "Backgammon"]
    assert answer.is_personal
    long = answer.result("Long nardy")
    assert long["id"] == "ij:l:1:17:0:en"
    assert long["input_message_content"]["message_text"] == (
        "<b>New game: Long nardy</b>\nTap Join: the first two to join play each other.")
    assert long["reply_markup"] == {"inline_keyboard": [[
        {"text": "✋ Join", "callback_data": "ij:l:1:17:0:en"}]]}


async def test_options_are_read_like_new(inline_world: World) -> None:
    p = _pair(inline_world)
    answer = await _ask(inline_world, p.chat, p.bob, "backgammon match=5 time=1d")
    assert answer.titles == ["Бэкгаммон"]
    (result,) = answer.results
    assert result["description"] == "матч до 5 · с кубом · 1 день на ход"
    assert result["id"] == "ij:b:5:17:24:ru"


@pytest.mark.parametrize(("text", "reason"), [
    ("long stake=10", "Inline games have no chat ledger, so they are never staked."),
    ("backgammon bot", "To play the bot, send /new bot in our private chat."),
    ("long speed=9", "Unknown option speed=9."),
    ("match=99", "match needs a whole number from 1 to 25"),
    ("long jacoby=on", "Jacoby and beavers are backgammon cube rules."),
])
async def test_what_cannot_be_played_inline_is_explained(inline_world: World, text: str,
                                                         reason: str) -> None:
    p = _pair(inline_world)
    answer = await _ask(inline_world, p.chat, p.alice, text)
    (result,) = answer.results
    assert result["title"] == "⚠ No game for these words"
    assert result["description"].startswith(reason), result["description"]
    assert "reply_markup" not in result  # nothing to join
    message = inline_world.server.user_chooses_inline_result(
        inline_world.last_query, id="why")  # type: ignore[attr-defined]
    assert message.inline_message_id is None and message.text is not None
    assert message.text.startswith(reason)


async def test_the_first_two_to_join_play_and_others_are_refused(inline_world: World) -> None:
    w, p = inline_world, _pair(inline_world)
    carol = w.server.add_user("Carol")
    lobby = await _post(w, p)
    assert lobby.buttons == [[("✋ Join", "ij:l:1:17:0:en")]]
    assert await w.tap(p.chat, p.bob, lobby, text="✋ Join") == await_answer_none()
    record = await _record(w, lobby)
    assert record.chat_id == inline_chat_id(lobby.inline_message_id or "")
    assert (record.status, [pl.name for pl in record.players], record.created_by) == (
        Status.LOBBY, ["Bob"], p.bob.id)
    now = w.server.inline_message(lobby.inline_message_id or "")
    assert "Joined: Bob" in now.content and "Dice committed" in now.content
    texts = [t for row in now.buttons for t, _ in row]
    assert "🤖 Play the bot" not in texts and "✋ Join" in texts
    again = await w.tap(p.chat, p.bob, now, text="✋ Join")
    assert again.show_alert and again.text == "Вы уже в игре; ждём второго игрока."  # his language
    # a tap on the first keyboard (still cached by a client) joins the same lobby
    assert not (await w.tap(p.chat, p.alice, lobby, "ij:l:1:17:0:en", strict=False)).show_alert
    record = await _record(w, lobby)
    assert record.status is Status.ACTIVE
    assert {pl.name for pl in record.players} == {"Alice", "Bob"}
    board = game_board(w.server, p.chat)
    assert board is not None and board.message_id == lobby.message_id
    assert board.text is not None and "<pre>" not in board.text  # the text board, as text
    # an intruder is refused on the shared board, nothing changes
    _, data = w.find(board, lambda t, d: d.startswith("g:"))
    refused = await w.tap(p.chat, carol, board, data)
    assert refused.show_alert and refused.text == "You are not playing in this game."
    assert (await _record(w, lobby)).version == record.version
    # a stale keyboard is refused
    late = await w.tap(p.chat, carol, lobby, "ij:l:1:17:0:en", strict=False)
    assert late.show_alert and late.text == "This board is out of date; use the newest message."


def await_answer_none() -> object:
    """The answer of a tap that went through: no text, no alert."""
    from tests.botapi.model import Answer

    return Answer(None, False, None, None)


async def test_feedback_stores_the_lobby_when_it_is_chosen(inline_world: World) -> None:
    w, p = inline_world, _pair(inline_world)
    w.server.set_inline_feedback(True)
    lobby = await _post(w, p, "backgammon", "Backgammon")
    shown = await w.server.wait_message_async(
        p.chat, "Dice committed", since=lobby, timeout=5)
    assert shown.message_id == lobby.message_id
    record = await _record(w, lobby)
    assert (record.status, record.players, record.created_by) == (Status.LOBBY, (), p.alice.id)
    # whoever chose it may close it before anyone joins
    closed = await w.tap(p.chat, p.alice, shown, text="Close")
    assert not closed.show_alert
    assert (await _record(w, lobby)).status is Status.CANCELLED


@pytest.mark.parametrize(("query", "title"), [("long", "Long nardy"),
                                              ("backgammon", "Backgammon")])
async def test_a_whole_game_on_an_inline_message(inline_world: World, query: str,
                                                 title: str) -> None:
    w, p = inline_world, _pair(inline_world)
    lobby = await _post(w, p, query, title)
    await w.tap(p.chat, p.alice, lobby, text="✋ Join")
    await w.tap(p.chat, p.bob, w.server.inline_message(lobby.inline_message_id or ""),
                text="✋ Join")
    carol = w.server.add_user("Carol")
    final = await asyncio.to_thread(Driver(w.server, p.chat, (p.alice, p.bob),
                                           intruder=carol).play)
    assert final.message_id == lobby.message_id
    assert "wins" in final.content, final.content
    record = await _record(w, lobby)
    assert record.status is Status.FINISHED
    stats = await w.store.player_stats(record.chat_id)
    assert sorted((s.user_id, s.games) for s in stats) == sorted(
        [(p.alice.id, 1), (p.bob.id, 1)])
    assert sum(s.wins for s in stats) == 1
    assert await w.store.ledger(record.chat_id) == {}  # never staked


# ---------------------------------------------------------------- pictures


@pytest.fixture
async def picture_world(store: Store) -> AsyncIterator[World]:
    """Inline mode with a media chat: a private channel-like supergroup the bot
    posts board pictures in (``MEDIA_CHAT_ID``)."""
    server = BotApiServer()
    media = server.add_group("Boards", supergroup=True, bot_status="administrator")
    async with running_world(store, server=server, media_chat=media.id) as world:
        world.server.set_inline(True)
        world.media = media  # type: ignore[attr-defined]
        yield world


async def _started(world: World, p: Pair, query: str = "backgammon",
                   title: str = "Backgammon") -> Message:
    lobby = await _post(world, p, query, title)
    await world.tap(p.chat, p.alice, lobby, text="✋ Join")
    await world.tap(p.chat, p.bob, world.server.inline_message(lobby.inline_message_id or ""),
                    text="✋ Join")
    return lobby


async def test_pictures_go_through_the_media_chat(picture_world: World) -> None:
    w, p = picture_world, _pair(picture_world)
    media: Chat = w.media  # type: ignore[attr-defined]
    lobby = await _started(w, p)
    board = w.server.inline_message(lobby.inline_message_id or "")
    uploads = [m for m in w.server.messages(media) if m.photo is not None]
    assert board.photo is not None and board.text is None, board
    assert uploads and board.photo_bytes == uploads[-1].photo_bytes
    # the language the result was shown in (Alice's), though Bob (ru) joined too
    assert board.caption is not None and board.caption.startswith("Backgammon · ○ Alice – ● Bob")
    # every picture edit named an uploaded file, never an upload of its own
    media_edits = [r for r in w.server.requests("editMessageMedia") if r.status == 200]
    assert media_edits and all(not r.files and r.params["media"]["media"] in
                               {m.photo.file_id for m in uploads if m.photo} for r in media_edits)
    before = len(uploads)
    final = await asyncio.to_thread(Driver(w.server, p.chat, (p.alice, p.bob)).play, 12,
                                    stop_early=True)
    assert final.photo is not None
    assert len([m for m in w.server.messages(media) if m.photo]) > before


async def test_without_the_media_chat_the_board_stays_readable(picture_world: World) -> None:
    w, p = picture_world, _pair(picture_world)
    media: Chat = w.media  # type: ignore[attr-defined]
    w.server.set_bot_status(media, "kicked")  # the operator removed the bot: no pictures
    lobby = await _started(w, p)
    board = w.server.inline_message(lobby.inline_message_id or "")
    assert board.photo is None and board.text is not None and "+---" in board.text
    record = await _record(w, lobby)
    assert record.board_photo  # the game was made for pictures: they come back when it can
    w.server.set_bot_status(media, "administrator")
    await asyncio.to_thread(Driver(w.server, p.chat, (p.alice, p.bob)).play, 4, stop_early=True)
    board = w.server.inline_message(lobby.inline_message_id or "")
    assert board.photo is not None
    w.server.set_bot_status(media, "kicked")
    await asyncio.to_thread(Driver(w.server, p.chat, (p.alice, p.bob)).play, 4, stop_early=True)
    after = w.server.inline_message(lobby.inline_message_id or "")
    # the last picture stays, the caption and the buttons move on
    assert after.photo_bytes == board.photo_bytes and after.caption != board.caption
