"""A finished game's analysis through the bot (bot/edge/handlers/analysis.py):
📊 on the result, /analyze, the picture or the text, one analysis in flight
per game, what was posted posted again, refused payloads, private boards."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.present.render.analysis import WIDTH
from bot.rules.seats import waiting_user
from bot.store.inline import inline_chat_id
from bot.vocab.records import ChatSettings, GameRecord, Status, settings_key
from tests.bot.conftest import World
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_handlers import Table, _data, _mover, _record, _setup
from tests.botapi.model import Message
from tests.conftest import chat_game


async def _finished(world: World, t: Table, variant: str = "backgammon", taps: int = 12
                    ) -> GameRecord:
    """A game of ``variant`` played ``taps`` taps, then resigned."""
    await _started(world, t, variant)
    return await _resigned(world, t, taps)


async def _started(world: World, t: Table, variant: str = "backgammon") -> None:
    sent = await world.send(t.chat, t.alice, f"/new {variant}")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")


async def _resigned(world: World, t: Table, taps: int) -> GameRecord:
    """The game being played, ``taps`` taps on, then resigned."""
    for _ in range(taps):
        board = world.board(t.chat)
        data = pick(board)
        assert data is not None
        await world.tap(t.chat, (await _mover(world, t))[0], board, data)
    mover, other = await _mover(world, t)
    board = world.board(t.chat)
    await world.tap(t.chat, mover, board, _data(world, board, "o"))
    await world.tap(t.chat, mover, board, _data(world, board, "R"))
    await world.tap(t.chat, other, board, _data(world, board, "a"))
    record = await _record(world, t)
    assert record.status is Status.FINISHED
    return record


def _analysis_button(world: World, board: Message) -> str:
    return world.find(board, lambda text, _data: text.startswith("📊"))[1]


def _analyses(world: World, t: Table) -> list[Message]:
    """The analysis pictures posted in the table's chat."""
    return [m for m in world.server.messages(t.chat)
            if m.photo is not None and (m.caption or "").startswith("📊 Analysis")]


def _photo_size(message: Message) -> tuple[int, int]:
    assert message.photo is not None
    with Image.open(io.BytesIO(message.photo.data)) as image:
        return image.size


async def test_the_button_posts_the_picture_and_a_second_tap_points_at_it(world: World) -> None:
    t = _setup(world)
    record = await _finished(world, t)
    board = world.board(t.chat)
    data = _analysis_button(world, board)
    assert data == f"an:{record.game_id}"
    since = world.server.revision
    answer = await world.tap(t.chat, t.eve, board, data)  # anyone in the chat may look
    assert not answer.show_alert and answer.text == "📊 Analysing the game…", answer
    posted = await world.reply(t.chat, since, match=lambda m: m.photo is not None)
    assert posted.reply_to == board.message_id
    width, height = _photo_size(posted)
    assert width == WIDTH and height > 1000
    assert posted.caption is not None and "📊 Analysis" in posted.caption
    assert ("○ Alice" in posted.caption and "● Bob" in posted.caption) or \
        ("○ Bob" in posted.caption and "● Alice" in posted.caption)
    assert "error rate" in posted.caption and "luck" in posted.caption
    assert await _record(world, t) == record  # a look: the game did not change
    answer = await world.tap(t.chat, t.alice, board, data)
    assert answer.text == "The analysis of this game was just posted here.", answer
    assert len(_analyses(world, t)) == 1


async def _rematch(world: World, t: Table) -> None:
    board = world.board(t.chat)
    await world.tap(t.chat, t.alice, board, _data(world, board, "A"))
    await world.tap(t.chat, t.bob, world.board(t.chat), _data(world, world.board(t.chat), "a"))
    assert (await _record(world, t)).status is Status.ACTIVE


async def _posted_for(world: World, t: Table, game_id: str) -> str | None:
    return await world.store.analysis.posted(t.chat.id, game_id, "en:png")


async def test_analyze_alone_and_as_a_reply_to_an_older_result(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.eve, "/analyze")
    assert (await world.reply(t.chat, sent)).text == \
        "There is no finished game here to analyse yet."
    first = await _finished(world, t, taps=6)
    first_board = world.board(t.chat)
    await _rematch(world, t)
    # the first game's result stays, with its 📊; the record now holds the second game
    assert world.buttons(first_board) == [("📊 Analysis", f"an:{first.game_id}")]
    sent = await world.send(t.chat, t.eve, "/analyze")  # the second game is not over
    said = await world.reply(t.chat, sent)
    assert said.text == "📊 Analysing the game…" and said.reply_to == sent.message_id
    photo = await world.reply(t.chat, sent, match=lambda m: m.photo is not None)
    assert photo.reply_to == sent.message_id
    assert world.server.message(t.chat.id, said.message_id).deleted  # the notice goes
    assert await _posted_for(world, t, first.game_id) is not None
    second = await _resigned(world, t, taps=4)
    # a reply to the first game's board analyses the first game: posted before, so the
    # same picture again (it was posted here a moment ago: pointed at instead)
    sent = await world.send(t.chat, t.bob, "/analyze", reply_to=first_board.message_id)
    assert (await world.reply(t.chat, sent)).text == \
        "The analysis of this game was just posted here."
    assert await _posted_for(world, t, second.game_id) is None
    # alone: the last finished game, the second
    sent = await world.send(t.chat, t.bob, "/analyze")
    await world.reply(t.chat, sent, match=lambda m: m.photo is not None)
    assert await _posted_for(world, t, second.game_id) is not None
    # a reply to a message that is no board
    sent = await world.send(t.chat, t.bob, "/analyze", reply_to=said.message_id)
    assert "Reply to a game's board" in (await world.reply(t.chat, sent)).text


async def test_a_tap_later_posts_the_same_picture_again_without_analysing(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.edge.handlers import analysis
    from bot.edge.handlers import computer as computer_turns

    t = _setup(world)
    record = await _finished(world, t, taps=4)
    board = world.board(t.chat)
    data = _analysis_button(world, board)
    since = world.server.revision
    await world.tap(t.chat, t.alice, board, data)
    first = await world.reply(t.chat, since, match=lambda m: m.photo is not None)
    # later (past REPOST_AFTER), and in another worker (nothing kept in this process)
    monkeypatch.setattr(analysis, "REPOST_AFTER", 0.0)
    computer_turns._ANALYSES.clear()
    since = world.server.revision
    answer = await world.tap(t.chat, t.bob, board, data)
    assert not answer.show_alert and not answer.text
    again = await world.reply(t.chat, since, match=lambda m: m.photo is not None)
    assert again.message_id != first.message_id and again.caption == first.caption
    assert again.photo is not None and first.photo is not None
    assert again.photo.file_id == first.photo.file_id  # sent by its file id: not drawn again
    assert str(record.ref) not in computer_turns._ANALYSES  # and not analysed again
    uploads = [r for r in world.server.requests("sendPhoto")
               if r.files and "📊" in str(r.params.get("caption"))]
    assert len(uploads) == 1


async def test_a_second_tap_while_analysing_is_told_to_wait(world: World) -> None:
    t = _setup(world)
    record = await _finished(world, t, taps=4)
    board = world.board(t.chat)
    data = _analysis_button(world, board)
    # another worker analyses it
    assert await world.store.analysis.claim(t.chat.id, record.game_id)
    answer = await world.tap(t.chat, t.bob, board, data)
    assert answer.text == "This game is being analysed; the analysis comes in a moment."
    assert _analyses(world, t) == []
    await world.store.analysis.release(t.chat.id, record.game_id)
    # two taps at once: one analyses, the other waits
    taps = [world.server.user_taps(t.chat, user, board, data) for user in (t.alice, t.eve)]
    answers = sorted([(await tap.wait_answer_async(30)).text or "" for tap in taps])
    await world.idle()
    assert answers == ["This game is being analysed; the analysis comes in a moment.",
                       "📊 Analysing the game…"], answers
    assert len(_analyses(world, t)) == 1


async def test_text_boards_get_the_text_and_a_broken_painter_too(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.edge.handlers import analysis

    t = _setup(world)
    await world.store.games.update(settings_key(t.chat.id), lambda _s: ChatSettings(
        chat_id=t.chat.id, board_style="text"))
    await _finished(world, t, taps=6)
    text = await _text_analysis(world, t)
    assert "Error rate:" in text.text and "Win chance of" in text.text
    assert any(e["type"] == "pre" for e in text.entities)  # the win chance line
    # a picture chat whose picture cannot be painted gets the text too
    other = _setup(world)
    monkeypatch.setattr(analysis, "render_analysis", _broken_painter)
    await _finished(world, other, taps=4)
    assert "Error rate:" in (await _text_analysis(world, other)).text


async def _text_analysis(world: World, t: Table) -> Message:
    """Eve taps 📊 on the table's result: the analysis posted as text."""
    board = world.board(t.chat)
    since = world.server.revision
    await world.tap(t.chat, t.eve, board, _analysis_button(world, board))
    text = await world.reply(t.chat, since, match=lambda m: m.text is not None
                             and "📊 Analysis" in m.text)
    assert text.text is not None
    return text


def _broken_painter(_picture: object) -> bytes:
    raise RuntimeError("the painter is broken")


async def test_forged_stale_and_foreign_buttons_are_refused(world: World) -> None:
    t = _setup(world)
    record = await _finished(world, t, taps=4)
    board = world.board(t.chat)
    other = _setup(world)
    await _finished(world, other, taps=2)
    await _rematch(world, other)
    playing = await _record(world, other)  # a game in progress
    for data in ("an:nothere1", "an:", "an:x:y", "an:" + "x" * 30,
                 f"an:{(await _record(world, other)).game_id}"):
        answer = await world.tap(t.chat, t.eve, board, data, strict=False)
        assert answer.show_alert and answer.text == "This button does not work any more.", \
            (data, answer)
    # the other chat's game from this chat, and a game not over from its own chat
    answer = await world.tap(other.chat, other.eve, world.board(other.chat),
                             f"an:{record.game_id}", strict=False)
    assert answer.show_alert
    answer = await world.tap(other.chat, other.eve, world.board(other.chat),
                             f"an:{playing.game_id}", strict=False)
    assert answer.show_alert
    assert not [m for chat in (t.chat, other.chat) for m in world.server.messages(chat)
                if m.photo is not None and m.caption and "📊" in m.caption]


async def test_a_players_private_board_has_the_button_and_gets_the_analysis(
        world: World) -> None:
    from tests.bot.edge.handlers.test_games import _games, _show

    t = _setup(world)
    await _started(world, t)
    private = await _show(world, t.alice, await _games(world, t.alice), 0)
    record = await _resigned(world, t, 0)
    mine = world.server.private_chat(t.alice)
    fresh = world.server.message(mine.id, private.message_id)
    data = _analysis_button(world, fresh)
    assert data == f"an:{record.game_id}"
    since = world.server.revision
    answer = await world.tap(mine, t.alice, fresh, data)
    assert answer.text == "📊 Analysing the game…"
    photo = await world.reply(mine, since, match=lambda m: m.photo is not None)
    assert photo.reply_to == private.message_id and "📊 Analysis" in (photo.caption or "")
    # /analyze in the private chat: the player's last finished game (posted a moment ago)
    sent = await world.send(mine, t.alice, "/analyze")
    assert (await world.reply(mine, sent)).text == \
        "The analysis of this game was just posted here."
    # Eve's private chat knows no such board
    eves = world.server.private_chat(t.eve)
    sent = await world.send(eves, t.eve, "/analyze")
    assert (await world.reply(eves, sent)).text == \
        "There is no finished game here to analyse yet."


async def test_a_game_against_the_bot_in_a_private_chat(world: World) -> None:
    alice = world.server.add_user("Alice")
    mine = world.server.private_chat(alice)
    await world.start_computer(mine, alice, "/new backgammon bot level=easy")
    board = world.board(mine)
    for action in ("o", "R"):
        board = world.board(mine)
        await world.tap(mine, alice, board, _data(world, board, action))
    record = await chat_game(world.store, mine.id)
    assert record is not None and record.status is Status.FINISHED, world.server.transcript(mine)
    sent = await world.send(mine, alice, "/analyze")
    photo = await world.reply(mine, sent, match=lambda m: m.photo is not None)
    assert "🤖" in (photo.caption or "") and "Alice" in (photo.caption or "")


async def test_a_private_games_boards_each_get_the_analysis_and_nobody_else(
        world: World) -> None:
    from engine.position import Side
    from tests.bot.edge.handlers.test_invite import _invite, _open, _people, _private_game
    from tests.bot.edge.handlers.test_invite import _resign as _resign_privately

    p = _people(world)
    await _open(world, p.bob, await _invite(world, p, "backgammon"))
    record = await _private_game(world, p)
    users = {Side.WHITE: p.alice, Side.BLACK: p.bob}
    await _resign_privately(world, record, users)
    record = await _record_of(world, record)
    assert record.status is Status.FINISHED
    # each player on their own board; the second gets the first one's picture again
    said = ["📊 Analysing the game…", None]
    for view, expected in zip(record.views, said, strict=True):
        user = users[view.viewer]  # type: ignore[index]
        board = world.server.message(view.chat_id, view.message_id)
        since = world.server.revision
        answer = await world.tap(board.chat, user, board, _analysis_button(world, board))
        assert not answer.show_alert and answer.text == expected, answer
        photo = await world.reply(board.chat, since, match=lambda m: m.photo is not None)
        assert photo.reply_to == view.message_id
    # Carol has no board of it: the button names a game her chat does not have
    carols = world.server.private_chat(p.carol)
    sent = await world.send(carols, p.carol, "/analyze")
    notice = await world.reply(carols, sent)
    answer = await world.tap(carols, p.carol, notice, f"an:{record.game_id}", strict=False)
    assert answer.show_alert and answer.text == "This button does not work any more."
    # a rematch: the same boards show the new game, not over yet; /analyze alone
    # still finds the first (posted a moment ago)
    views = {v.viewer: v for v in record.views}
    white = world.server.message(views[Side.WHITE].chat_id, views[Side.WHITE].message_id)
    black = world.server.message(views[Side.BLACK].chat_id, views[Side.BLACK].message_id)
    await world.tap(white.chat, p.alice, white, text="Rematch")
    await world.tap(black.chat, p.bob, black, text="Accept")
    assert (await _record_of(world, record)).status is Status.ACTIVE
    sent = await world.send(white.chat, p.alice, "/analyze", reply_to=white.message_id)
    assert (await world.reply(white.chat, sent)).text == \
        "This game is not over yet: it can be analysed after its end."
    sent = await world.send(white.chat, p.alice, "/analyze")
    assert (await world.reply(white.chat, sent)).text == \
        "The analysis of this game was just posted here."


async def _record_of(world: World, record: GameRecord) -> GameRecord:
    fresh = await chat_game(world.store, record.chat_id, record.thread_id)
    assert fresh is not None
    return fresh


async def test_a_forum_topics_last_game_is_its_own(world: World) -> None:
    t = _setup(world, forum=True)
    # made by the bot: every message of a topic replies to its first, the bot's here
    topic = world.server.create_topic(t.chat, "Nardy", by=world.server.bot)
    sent = await world.send(t.chat, t.alice, "/analyze", thread_id=topic)
    assert (await world.reply(t.chat, sent)).text == \
        "There is no finished game here to analyse yet."
    record = await _finished(world, t, taps=2)  # outside the topic
    sent = await world.send(t.chat, t.alice, "/analyze", thread_id=topic)
    assert (await world.reply(t.chat, sent)).text == \
        "There is no finished game here to analyse yet."
    sent = await world.send(t.chat, t.eve, "/analyze")
    await world.reply(t.chat, sent, match=lambda m: m.photo is not None)
    assert await _posted_for(world, t, record.game_id) is not None


async def test_export_of_a_finished_game_carries_its_analysis(world: World) -> None:
    import re

    from engine.dice import verify_text

    t = _setup(world)
    await _started(world, t)
    sent = await world.send(t.chat, t.alice, "/export")  # not over: no analysis
    document = await world.reply(t.chat, sent, match=lambda m: m.document is not None)
    assert "Analysis" not in (document.document_bytes or b"").decode()
    record = await _resigned(world, t, 8)
    sent = await world.send(t.chat, t.alice, "/export")
    document = await world.reply(t.chat, sent, match=lambda m: m.document is not None)
    body = (document.document_bytes or b"").decode()
    lines = body.splitlines()
    match_line = next(i for i, line in enumerate(lines) if re.fullmatch(r" \d+ point match", line))
    comments = [i for i, line in enumerate(lines) if line.startswith("; Game 1, ")]
    assert comments and max(comments) < match_line, body  # where GNU Backgammon reads them
    assert any(line.startswith("; Analysis by nardy") for line in lines[:match_line])
    names = {p.name for p in record.players}
    assert {line.split(":")[0][len("; Game 1, "):] for line in lines[:match_line]
            if re.match(r"; Game 1, \w+: ", line)} == names
    assert verify_text(body).ok  # and the file alone still verifies its rolls


async def test_export_of_a_match_carries_every_games_analysis_and_the_totals(
        world: World) -> None:
    """After the second game of a match (and again once the third has
    begun): each finished game's figures and both players' totals over
    them; the game being played has none."""
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/new backgammon match=7")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
    await _resigned(world, t, 6)
    await _next_game(world, t)
    await _resigned(world, t, 6)

    def exported(body: str) -> list[str]:
        return [line for line in body.splitlines() if line.startswith("; ")
                and ("Game " in line or " games, " in line)]

    for ask in ("after the second game", "the third game begun"):
        if ask == "the third game begun":
            await _next_game(world, t)
        sent = await world.send(t.chat, t.alice, "/export")
        document = await world.reply(t.chat, sent, match=lambda m: m.document is not None)
        body = (document.document_bytes or b"").decode()
        lines = exported(body)
        for who in ("Alice", "Bob"):
            for number in (1, 2):
                assert any(line.startswith(f"; Game {number}, {who}: PR ") for line in lines), ask
            assert any(line.startswith(f"; 2 games, {who}: PR ") for line in lines), ask
            assert any(line.startswith(f"; 2 games, {who}: ") and "millipoints per decision"
                       in line for line in lines), ask
        assert not any(line.startswith("; Game 3") for line in lines), ask
        assert (" Game 3" in body) is (ask == "the third game begun")


async def _next_game(world: World, t: Table) -> None:
    """The match's next game: Alice offers, Bob accepts."""
    await world.tap(t.chat, t.alice, world.board(t.chat), text="Next game")
    board = world.board(t.chat)
    await world.tap(t.chat, t.bob, board, _data(world, board, "a"))


def _slow_analysis(work: object) -> object:
    """The analysis, seconds late (a long game on a busy machine)."""
    import time

    from bot.rules.analysis import analyse_job

    time.sleep(3)
    return analyse_job(work)  # type: ignore[arg-type]


async def test_other_games_taps_are_answered_while_a_game_is_analysed(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.edge.handlers import computer as computer_turns

    t = _setup(world)
    await _finished(world, t, taps=2)
    other = _setup(world)
    await _started(world, other)
    monkeypatch.setattr(computer_turns, "analyse_job", _slow_analysis)
    board = world.board(t.chat)
    looking = world.server.user_taps(t.chat, t.eve, board, _analysis_button(world, board))
    assert (await looking.wait_answer_async(10)).text == "📊 Analysing the game…"
    # meanwhile a move in the other chat: answered and shown, the analysis not posted yet
    for _ in range(3):
        playing = world.board(other.chat)
        data = pick(playing)
        assert data is not None
        since = world.server.revision
        tap = world.server.user_taps(other.chat, (await _mover(world, other))[0], playing, data)
        assert not (await tap.wait_answer_async(10)).show_alert
        await world.server.wait_for_async(
            lambda p=playing, s=since: world.server.message(other.chat.id, p.message_id).revision
            > s, 10, description="the other board to change")
    assert _analyses(world, t) == []
    posted = await world.reply(t.chat, board, match=lambda m: (m.caption or "").startswith(
        "📊 Analysis"), timeout=30)
    assert posted.photo is not None and posted.reply_to == board.message_id


async def test_an_inline_games_analysis_goes_to_the_players_private_chat(world: World) -> None:
    from tests.bot.edge.handlers.test_inline import _pair, _started

    world.server.set_inline(True)
    p = _pair(world)
    lobby = await _started(world, p)
    inline_id = lobby.inline_message_id or ""
    for action in ("o", "R", "a"):  # the player to move resigns, the other accepts
        board = world.server.inline_message(inline_id)
        record = await chat_game(world.store, inline_chat_id(inline_id))
        assert record is not None
        mover = waiting_user(record)
        user = p.alice if mover == p.alice.id else p.bob
        await world.tap(p.chat, user, board, _data(world, board, action))
    board = world.server.inline_message(inline_id)
    record = await chat_game(world.store, inline_chat_id(inline_id))
    assert record is not None and record.status is Status.FINISHED
    data = _analysis_button(world, board)
    # Alice never wrote to the bot: the tap opens her private chat with it
    answer = await world.tap(p.chat, p.alice, board, data)
    start = f"an{-record.chat_id}g{record.game_id}"
    assert answer.url == f"https://t.me/{world.server.bot.username}?start={start}", answer
    mine = world.server.private_chat(p.alice)
    sent = await world.send(mine, p.alice, f"/start {start}")
    photo = await world.reply(mine, sent, match=lambda m: m.photo is not None)
    assert (photo.caption or "").startswith("📊 Analysis") and photo.reply_to == sent.message_id
    # now she has: the tap answers and the bot writes there (a moment ago: not again)
    answer = await world.tap(p.chat, p.alice, board, data)
    assert answer.text == ("The analysis of this game was just sent to your private chat "
                           "with the bot."), answer
    # Bob (Russian) has started the bot too: his analysis comes in his chat, in Russian
    bobs = world.server.private_chat(p.bob)
    await world.reply(bobs, await world.send(bobs, p.bob, "/start"))
    since = world.server.revision
    answer = await world.tap(p.chat, p.bob, board, data)
    assert answer.text == "📊 Анализ придёт в ваш личный чат с ботом.", answer
    photo = await world.reply(bobs, since, match=lambda m: m.photo is not None)
    assert (photo.caption or "").startswith("📊 Анализ")
    # a stranger's /start with the link, and a stranger's tap, get nothing
    eve = world.server.add_user("Eve")
    eves = world.server.private_chat(eve)
    sent = await world.send(eves, eve, f"/start {start}")
    assert (await world.reply(eves, sent)).text == \
        "There is no finished game here to analyse yet."
    answer = await world.tap(p.chat, eve, board, data, strict=False)
    assert answer.show_alert
