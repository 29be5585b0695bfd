"""Inline games through the real handlers and the local Bot API server's inline
mode: the query's results, the lobby "via @bot", Join, play by editing the one
inline message, refusals, pictures through a media chat, the end booked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from telegram.ext import CallbackContext

from bot.edge.handlers.clock import JOB_NAME, tick_job
from bot.rules.seats import waiting_user
from bot.store import Store
from bot.store.client import as_text
from bot.store.inline import inline_chat_id
from bot.vocab import clock
from bot.vocab.clock import HOUR
from bot.vocab.records import GameRecord, Status
from tests.bot.conftest import World, running_world
from tests.bot.driver import Driver, game_board, pick
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
    record = await world.store.inline.game(message.inline_message_id)
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
        "<b>New game: Long nardy</b>\nTap ✋ Join: the first two to join play each other.")
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
    assert record.status is Status.LOBBY  # both seated: the game waits for a player's ▶ Start
    assert {pl.name for pl in record.players} == {"Alice", "Bob"}
    waiting = w.server.inline_message(lobby.inline_message_id or "")
    assert [t for row in waiting.buttons for t, _ in row] == ["▶ Start", "🎲 Verify", "Close"]
    assert (await w.tap(p.chat, carol, waiting, text="▶ Start")).show_alert  # not hers
    assert not (await w.tap(p.chat, p.bob, waiting, text="▶ Start")).show_alert
    record = await _record(w, lobby)
    assert record.status is Status.ACTIVE
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
    stats = await w.store.ledger.player_stats(record.chat_id)
    assert sorted((s.user_id, s.games) for s in stats) == sorted(
        [(p.alice.id, 1), (p.bob.id, 1)])
    assert sum(s.wins for s in stats) == 1
    assert await w.store.ledger.ledger(record.chat_id) == {}  # never staked


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
    await world.tap(p.chat, p.bob, world.server.inline_message(lobby.inline_message_id or ""),
                    text="▶ Start")  # the dice's entropy (docs/fair-dice.md)
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


# ---------------------------------------------------------------- stats, /games, clocks


async def _finish_by_resigning(world: World, p: Pair, lobby: Message) -> User:
    """The player to move resigns, the other accepts; returns the winner."""
    record = await _record(world, lobby)
    loser = p.alice if waiting_user(record) == p.alice.id else p.bob
    winner = p.bob if loser is p.alice else p.alice
    for user, action in ((loser, ":o"), (loser, ":R:1"), (winner, ":a")):
        board = world.server.inline_message(lobby.inline_message_id or "")
        _, data = world.find(board, lambda _t, d, a=action: d.startswith("g:") and d.endswith(a))
        answer = await world.tap(p.chat, user, board, data)
        assert not answer.show_alert, answer
    return winner


async def _stats(world: World, user: User) -> str:
    dm = world.server.private_chat(user)
    sent = await world.send(dm, user, "/stats")
    return (await world.reply(dm, sent)).content


async def test_inline_games_count_in_the_private_stats(inline_world: World) -> None:
    w, p = inline_world, _pair(inline_world)
    lobby = await _started(w, p, "long", "Long nardy")
    winner = await _finish_by_resigning(w, p, lobby)
    second = await _started(w, p, "long", "Long nardy")  # another message, another game
    assert (await _record(w, second)).chat_id != (await _record(w, lobby)).chat_id
    again = await _finish_by_resigning(w, p, second)
    text = await _stats(w, p.alice)
    wins = (winner is p.alice) + (again is p.alice)
    assert "Long nardy: private and inline games" in text, text
    assert f"Games: 2, won {wins}" in text, text
    assert "Rating" not in text  # each game's own, they do not add up
    # and in each game's own slot, rated like a private game
    stats = await w.store.ledger.player_stats((await _record(w, lobby)).chat_id)
    assert sorted(s.rating != 1500.0 for s in stats) == [True, True]
    group = w.server.add_group("Club", members=[p.alice])
    sent = await w.send(group, p.alice, "/stats")
    assert "no finished games here" in (await w.reply(group, sent)).content  # not a group's


async def test_games_lists_an_inline_game_and_shows_its_board_privately(
        inline_world: World) -> None:
    w, p = inline_world, _pair(inline_world)
    lobby = await _started(w, p)
    dm = w.server.private_chat(p.alice)
    sent = await w.send(dm, p.alice, "/games")
    listing = await w.reply(dm, sent, "Your games")
    assert "Backgammon against Bob" in listing.content and "inline game" in listing.content
    record = await _record(w, lobby)
    await w.tap(dm, p.alice, listing, listing.buttons[0][0][1])
    view = game_board(w.server, dm)
    assert view is not None and view.from_bot
    # a move on her own board is a move on the inline message too
    mover = p.alice if waiting_user(record) == p.alice.id else p.bob
    where = dm if mover is p.alice else p.chat
    board = view if mover is p.alice else w.server.inline_message(lobby.inline_message_id or "")
    since = w.server.revision
    data = pick(w.server.message(board.chat.id, board.message_id))
    assert data is not None
    assert not (await w.tap(where, mover, board, data)).show_alert
    after = await _record(w, lobby)
    assert after.version > record.version
    inline_now = w.server.inline_message(lobby.inline_message_id or "")
    assert inline_now.revision > since
    assert f":{after.version}:" in " ".join(d for row in inline_now.buttons for _, d in row)


@pytest.fixture
async def clocked(inline_world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                  ) -> AsyncIterator[Path]:
    """The test clock (NARDY_TEST_CLOCK) for the inline world, its job off:
    the tests tick by hand."""
    path = tmp_path / "offset"
    monkeypatch.setenv(clock.TEST_CLOCK_ENV, str(path))
    clock.set_test_offset(path, 0)
    for job in inline_world.app.job_queue.get_jobs_by_name(JOB_NAME):
        job.enabled = False
    yield path


async def test_clocks_remind_privately_and_the_board_offers_the_win(
        inline_world: World, clocked: Path) -> None:
    w, p = inline_world, _pair(inline_world)
    for user in (p.alice, p.bob):  # both started the bot: reminders may go there
        dm = w.server.private_chat(user)
        await w.reply(dm, await w.send(dm, user, "/help"))
    lobby = await _started(w, p, "long time=12h", "Long nardy")
    record = await _record(w, lobby)
    assert record.options.time_control == 12 * HOUR and record.deadline is not None
    late = p.alice if waiting_user(record) == p.alice.id else p.bob
    other = p.bob if late is p.alice else p.alice
    clock.set_test_offset(clocked, 6 * HOUR + 60)
    await tick_job(CallbackContext(w.app))  # type: ignore[arg-type]
    await w.idle()
    [reminder] = [m for m in w.server.messages(w.server.private_chat(late))
                  if m.from_bot and m.content.startswith("⏰")]
    assert other.first_name in reminder.content  # in the late player's own language
    clock.set_test_offset(clocked, 12 * HOUR + 120)
    await tick_job(CallbackContext(w.app))  # type: ignore[arg-type]
    await w.idle()
    [offer] = [m for m in w.server.messages(w.server.private_chat(other))
               if m.from_bot and m.content.startswith("⌛")]
    assert late.first_name in offer.content
    board = w.server.inline_message(lobby.inline_message_id or "")
    assert "⌛" in board.content  # the board says the time ran out
    claim = w.find(board, lambda _t, d: d.startswith("k:") and d.endswith(":W"))[1]
    refused = await w.tap(p.chat, late, board, claim)
    assert refused.show_alert and refused.text
    assert not (await w.tap(p.chat, other, board, claim)).show_alert
    done = await _record(w, lobby)
    assert done.status is Status.FINISHED
    final = w.server.inline_message(lobby.inline_message_id or "")
    assert "wins" in final.content and not any(
        d.startswith("k:") for row in final.buttons for _, d in row)


async def test_verify_on_an_inline_result_answers_privately(inline_world: World) -> None:
    w, p = inline_world, _pair(inline_world)
    lobby = await _started(w, p)
    await _finish_by_resigning(w, p, lobby)
    board = w.server.inline_message(lobby.inline_message_id or "")
    verify = w.find(board, lambda _t, d: d.startswith("dv:"))[1]
    # Alice never wrote to the bot: it may not write first, so it says how
    answer = await w.tap(p.chat, p.alice, board, verify)
    assert answer.show_alert and "private chat" in (answer.text or "")
    dm = w.server.private_chat(p.alice)
    await w.reply(dm, await w.send(dm, p.alice, "/help"))
    answer = await w.tap(p.chat, p.alice, board, verify)
    assert not answer.show_alert and answer.text == "The dice check is in our private chat."
    assert w.server.last_message(dm).content.startswith("Fair dice (scheme nardy-dice-v1)")


async def test_players_who_never_wrote_to_the_bot_get_the_offer_on_the_board(
        inline_world: World, clocked: Path) -> None:
    w, p = inline_world, _pair(inline_world)
    lobby = await _started(w, p, "backgammon time=1h", "Backgammon")
    for offset in (45 * 60, HOUR + 120):  # the reminder, then the timeout
        clock.set_test_offset(clocked, offset)
        await tick_job(CallbackContext(w.app))  # type: ignore[arg-type]
        await w.idle()
    # the reminder and the offer were tried; the bot may not write first ("chat not found"),
    # which fails neither the clock nor the board
    assert [r.status for r in w.server.requests("sendMessage")] == [400, 400]
    board = w.server.inline_message(lobby.inline_message_id or "")
    assert "⌛" in board.content
    assert any(d.startswith("k:") and d.endswith(":W") for row in board.buttons for _, d in row)


async def test_hints_asked_for_in_the_query_reach_the_game(inline_world: World) -> None:
    w, p = inline_world, _pair(inline_world)
    answer = await _ask(w, p.chat, p.alice, "backgammon hints=on")
    assert [r["id"] for r in answer.results] == ["ij:b:1:49:0:en"]
    lobby = await _started(w, p, "backgammon hints=on", "Backgammon")
    assert (await _record(w, lobby)).options.hints is True
    plain = await _started(w, p, "backgammon", "Backgammon")
    assert (await _record(w, plain)).options.hints is None  # between people: off


async def test_a_text_message_that_cannot_take_a_picture_shows_the_text_board(
        picture_world: World) -> None:
    """Should Telegram refuse to give the lobby's text a picture, the game starts
    on the text board, and the picture comes with a later change."""
    w, p = picture_world, _pair(picture_world)
    w.server.fail(400, "Bad Request: there is no media in the message to edit", times=1,
                  methods=["editMessageMedia"])
    lobby = await _started(w, p)
    board = w.server.inline_message(lobby.inline_message_id or "")
    assert board.photo is None and board.text is not None and "+---" in board.text
    await asyncio.to_thread(Driver(w.server, p.chat, (p.alice, p.bob)).play, 3, stop_early=True)
    assert w.server.inline_message(lobby.inline_message_id or "").photo is not None


async def _keys_without_expiry(world: World) -> set[str]:
    redis = world.store.redis
    return {as_text(key) async for key in redis.scan_iter()
            if await redis.ttl(key) == -1}


PER_ACCOUNT = ("user:", "{stats", "prefs", "nardy:schema")
"""Keys without expiry a Join may make that are not the message's: one per
Telegram account (its games' index, its preferences), the global index of
open games in its shards (its entries go with their records,
bot/store/board.py) and the store's one schema mark."""


async def test_a_join_on_a_made_up_message_stores_nothing_that_never_expires(
        inline_world: World) -> None:
    """Issue 21, item 5: ``ij:`` data tapped with made-up inline message ids
    stored lobbies (and their chats' settings) that never expired.  Everything
    a Join on a message that holds only a lobby writes expires; once its game
    starts, the game is kept."""
    w, p = inline_world, _pair(inline_world)
    lobby = await _post(w, p)
    before = await _keys_without_expiry(w)
    assert not (await w.tap(p.chat, p.bob, lobby, text="✋ Join")).show_alert
    made = {key for key in await _keys_without_expiry(w) - before
            if not any(part in key for part in PER_ACCOUNT)}
    assert made == set(), made
    record = await _record(w, lobby)
    assert record.status is Status.LOBBY
    assert await w.store.redis.ttl(w.store.keys.record(record.key)) > 0
    assert not (await w.tap(p.chat, p.alice, lobby, "ij:l:1:17:0:en", strict=False)).show_alert
    assert (await _record(w, lobby)).status is Status.LOBBY  # seated, waiting for ▶ Start
    assert not (await w.tap(p.chat, p.alice, w.server.inline_message(
        lobby.inline_message_id or ""), text="▶ Start")).show_alert
    started = await _record(w, lobby)
    assert started.status is Status.ACTIVE
    assert await w.store.redis.ttl(w.store.keys.record(started.key)) == -1  # a game is kept
    chat_keys = [key async for key in w.store.redis.scan_iter(
        match=f"*{{chat:{started.chat_id}}}*")]
    assert chat_keys and all([await w.store.redis.ttl(key) == -1 for key in chat_keys]), [
        (key, await w.store.redis.ttl(key)) for key in chat_keys]
