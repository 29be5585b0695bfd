"""Expensive computations are made once and never hold up play (issue 21 §3):
fifteen /export of one game run one analysis (bot/edge/memo.py), the
computer plays and hints are answered while an analysis runs (its own pool,
bot/edge/handlers/computer.py), requests waiting for an analysis hold no
update slot (bot/edge/handlers/analysis.py), and new analyses are bounded per chat and
per user (bot/edge/handlers/analysis.py).  The thinking pools are threads
here, and the analysis waits for the test: order and outcome only."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bot.edge import app as app_module
from bot.edge.handlers import analysis
from bot.edge.handlers import computer as computer_turns
from bot.rules import matchstate, seats
from bot.store import Store
from bot.vocab.records import GameRecord, Status
from tests.bot.conftest import World, running_world
from tests.bot.driver import game_board, start_button
from tests.bot.edge.handlers.test_analysis import _finished
from tests.bot.edge.handlers.test_handlers import _setup
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game


class HeldAnalysis:
    """``analyse_job``, counted, each run waiting until :meth:`release`."""

    def __init__(self) -> None:
        self.runs = 0
        self.started = threading.Event()
        self._go = threading.Event()
        self._real = computer_turns.analyse_job

    def __call__(self, work: Any) -> Any:
        self.runs += 1
        self.started.set()
        self._go.wait(20)
        return self._real(work)

    def release(self) -> None:
        self._go.set()

    def hold_again(self) -> None:
        """The next runs wait again (until :meth:`release`)."""
        self.started.clear()
        self._go.clear()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldAnalysis]:
    monkeypatch.setenv(computer_turns.WORKERS_ENV, "thread")
    monkeypatch.setattr(computer_turns, "_POOL", None)
    monkeypatch.setattr(computer_turns, "_ANALYSIS_POOL", None)
    hold = HeldAnalysis()
    monkeypatch.setattr(computer_turns, "analyse_job", hold)
    computer_turns._ANALYSES.clear()
    try:
        yield hold
    finally:
        hold.release()
        for made in (computer_turns._POOL, computer_turns._ANALYSIS_POOL):
            if made is not None:
                made.shutdown(wait=False)
        computer_turns._ANALYSES.clear()


async def test_fifteen_exports_run_one_analysis(world: World, held: HeldAnalysis) -> None:
    t = _setup(world)
    await _finished(world, t, taps=4)
    computer_turns._ANALYSES.clear()  # whatever the game's end computed: none kept
    held.runs = 0
    asked = [world.server.user_sends(t.chat, t.alice, "/export") for _ in range(15)]
    await asyncio.to_thread(held.started.wait, 10)
    await asyncio.sleep(0.3)  # the other fourteen arrive while it is in flight
    held.release()
    await _every_file(world, t.chat, len(asked))
    for document in _documents(world, t.chat):
        assert "; Analysis by nardy" in (document.document_bytes or b"").decode()
    assert held.runs == 1


async def test_the_computer_plays_while_an_analysis_runs(world: World,
                                                         held: HeldAnalysis) -> None:
    t = _setup(world)
    await _finished(world, t, taps=4)
    computer_turns._ANALYSES.clear()
    world.server.user_sends(t.chat, t.alice, "/export")
    await asyncio.to_thread(held.started.wait, 10)  # the analysis runs, and waits
    # (world.tap and world.reply wait for the bot to be idle: the /export is not)
    await _play_the_computer(world, world.server.add_group("Other", members=[t.bob]), t.bob)
    assert held.runs == 1 and not _documents(world, t.chat)


async def test_requests_waiting_for_an_analysis_hold_no_update_slot(
        store: Store, held: HeldAnalysis, monkeypatch: pytest.MonkeyPatch) -> None:
    """More requests waiting for one analysis than the bot has update slots
    (here three): each gives its slot back while it waits, so another
    chat's game goes on; then every request gets its file."""
    monkeypatch.setattr(app_module, "CONCURRENT_UPDATES", 3)
    async with running_world(store) as world:
        t = _setup(world)
        await _finished(world, t, taps=4)
        computer_turns._ANALYSES.clear()
        held.runs = 0
        asked = [world.server.user_sends(t.chat, who, "/export")
                 for who in (t.alice, t.bob, t.eve, t.alice, t.bob)]
        await asyncio.to_thread(held.started.wait, 10)
        await _play_the_computer(world, world.server.add_group("Other", members=[t.bob]),
                                 t.bob)
        assert held.runs == 1 and not _documents(world, t.chat)
        held.release()
        await _every_file(world, t.chat, len(asked))
        assert held.runs == 1


def _documents(world: World, chat: Chat) -> list[Message]:
    return [m for m in world.server.messages(chat) if m.document is not None]


async def _every_file(world: World, chat: Chat, count: int) -> None:
    """Exactly ``count`` files reach ``chat``.  They are not replies
    (do_quote=False), so one file would satisfy a wait per request: wait for
    the count, then for the bot to be idle, and count again (none more)."""
    await world.server.wait_for_async(lambda: len(_documents(world, chat)) >= count,
                                      description=f"{count} exported files")
    await world.idle()
    assert len(_documents(world, chat)) == count


async def _play_the_computer(world: World, club: Chat, bob: User) -> None:
    """Bob starts a game against the computer in ``club``, asks a 💡 hint and
    plays two turns, each answered by the computer's, without waiting for
    the bot to be idle (an analysis elsewhere is not)."""
    s = world.server
    sent = s.user_sends(club, bob, "/new backgammon bot level=easy")
    # the game waits for ▶ Start (the tap is the dice's entropy); the board of
    # the opening is a new message (a picture), not an edit of the ▶ Start one
    posted = await s.wait_message_async(club, since=sent,
                                        match=lambda m: start_button(m) is not None)
    start = start_button(posted)
    assert start is not None
    tapped = s.user_taps(club, bob, posted, start)
    await tapped.wait_answer_async(10)
    await s.wait_message_async(club, since=tapped, match=lambda m: any(
        d is not None and d.startswith("g:") for row in m.buttons for _, d in row))
    hinted = False
    for _ in range(2):  # two of Bob's turns, each answered by the computer's
        record = await _settled(world, club.id, bob.id)
        before = len(matchstate.table_of(record).game.events)
        while True:
            board = game_board(s, club)
            assert board is not None
            hint = next((d for row in board.buttons for _, d in row
                         if d.split(":")[3] == "i"), None)
            if hint is not None and not hinted:  # the hint is worked out meanwhile too
                answer = await s.user_taps(club, bob, board, hint).wait_answer_async(10)
                assert answer.show_alert and answer.text, answer
                hinted = True
            data = next(d for row in board.buttons for _, d in row
                        if d.split(":")[3] in ("c", "m", "r", "t"))
            tap = s.user_taps(club, bob, board, data)
            await tap.wait_answer_async(10)
            await s.wait_message_async(club, since=tap,
                                       match=lambda m, b=board: m.message_id == b.message_id)
            if data.split(":")[3] == "c":
                break
        after = await _settled(world, club.id, bob.id)
        if after.status is not Status.ACTIVE:
            break
        assert len(matchstate.table_of(after).game.events) > before + 1  # the computer moved
    assert hinted


async def _settled(world: World, chat_id: int, user_id: int) -> GameRecord:
    """The chat's game once it waits for ``user_id`` (or is over)."""
    for _ in range(600):
        record = await chat_game(world.store, chat_id)
        if record is not None and (record.status is not Status.ACTIVE
                                   or seats.waiting_user(record) == user_id):
            return record
        await asyncio.sleep(0.05)
    raise AssertionError("the computer did not move")


async def test_new_analyses_are_bounded_per_user(world: World, held: HeldAnalysis) -> None:
    t = _setup(world)
    first = await _finished(world, t, taps=4)
    second = await _finished(world, t, taps=4)
    computer_turns._ANALYSES.clear()
    assert first.game_id != second.game_id
    world.server.user_sends(t.chat, t.alice, "/analyze")  # her last game: the second
    await asyncio.to_thread(held.started.wait, 10)
    board = next(m for m in world.server.messages(t.chat)
                 if m.by_bot and any(d.startswith("an:") and first.game_id in d
                                     for row in m.buttons for _, d in row))
    data = next(d for row in board.buttons for _, d in row if d.startswith("an:"))
    tap = world.server.user_taps(t.chat, t.alice, board, data)  # another game: a new analysis
    answer = await tap.wait_answer_async(10)
    assert answer.text == "Your earlier request is still being analysed; please ask again " \
                          "in a minute."
    assert held.runs == 1
    held.release()
    await world.idle()  # the first analysis is posted


async def test_an_analysis_started_after_the_check_is_still_refused_politely(
        world: World, held: HeldAnalysis, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another analysis may start between the early check and the analysis
    (the handler awaits in between): the bound's refusal then is the same
    answer, not "the game could not be analysed" with a stack trace."""
    t = _setup(world)
    first = await _finished(world, t, taps=4)
    await _finished(world, t, taps=4)
    computer_turns._ANALYSES.clear()
    world.server.user_sends(t.chat, t.alice, "/analyze")  # her last game: the second
    await asyncio.to_thread(held.started.wait, 10)
    monkeypatch.setattr(analysis, "refusal", lambda *_: None)   # the check saw room
    board = next(m for m in world.server.messages(t.chat)
                 if m.by_bot and any(d.startswith("an:") and first.game_id in d
                                     for row in m.buttons for _, d in row))
    data = next(d for row in board.buttons for _, d in row if d.startswith("an:"))
    await world.server.user_taps(t.chat, t.alice, board, data).wait_answer_async(10)
    await world.idle()
    said = [m.text or "" for m in world.server.messages(t.chat) if m.by_bot]
    assert any("still being analysed" in text for text in said), said
    assert not any("could not be analysed" in text for text in said), said
    held.release()
    await world.idle()


async def test_new_analyses_are_bounded_per_chat(world: World, held: HeldAnalysis) -> None:
    """Three members each ask 📊 for another game: the chat has two analyses
    in flight at most (MAX_PER_CHAT), the third asker is told to ask later."""
    t = _setup(world)
    games = [await _finished(world, t, taps=4) for _ in range(computer_turns.MAX_PER_CHAT + 1)]
    computer_turns._ANALYSES.clear()
    held.runs = 0

    def button(game: GameRecord) -> tuple[Message, str]:
        board = next(m for m in world.server.messages(t.chat)
                     if m.by_bot and any(d.startswith("an:") and game.game_id in d
                                         for row in m.buttons for _, d in row))
        return board, next(d for row in board.buttons for _, d in row if d.startswith("an:"))

    answers = []
    for game, who in zip(games, (t.alice, t.bob, t.eve), strict=True):
        board, data = button(game)
        answers.append(await world.server.user_taps(t.chat, who, board, data)
                       .wait_answer_async(10))
    assert [a.text for a in answers[:-1]] == (
        ["📊 Analysing the game…"] * computer_turns.MAX_PER_CHAT)
    assert answers[-1].text == "Games of this chat are being analysed already; please ask " \
                               "again in a minute."
    held.release()
    await world.idle()  # the two analyses are posted
    assert held.runs == computer_turns.MAX_PER_CHAT


async def test_an_analysis_picture_is_painted_while_another_analysis_runs(
        world: World, held: HeldAnalysis, monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture of a game analysed before is painted (the painter's
    process, not the analysis pool) while another game's analysis is held."""
    t = _setup(world)
    first = await _finished(world, t, taps=4)
    computer_turns._ANALYSES.clear()
    held.release()
    board = next(m for m in world.server.messages(t.chat)
                 if m.by_bot and any(d.startswith("an:") and first.game_id in d
                                     for row in m.buttons for _, d in row))
    data = next(d for row in board.buttons for _, d in row if d.startswith("an:"))
    await world.tap(t.chat, t.alice, board, data)  # analysed, painted and posted
    assert held.runs == 1 and str(first.ref) in computer_turns._ANALYSES
    second = await _finished(world, t, taps=4)
    held.hold_again()
    other = next(m for m in world.server.messages(t.chat)
                 if m.by_bot and any(d.startswith("an:") and second.game_id in d
                                     for row in m.buttons for _, d in row))
    world.server.user_taps(t.chat, t.alice, other, next(
        d for row in other.buttons for _, d in row if d.startswith("an:")))
    assert await asyncio.to_thread(held.started.wait, 10)
    # the first game's picture is to be painted again: nothing posted kept
    await world.store.redis.delete(f"nardy:{{chat:{t.chat.id}}}:finished:{first.game_id}"
                                   ":analysis")
    analysis._PICTURES.clear()
    monkeypatch.setattr(analysis, "REPOST_AFTER", -1.0)
    tap = world.server.user_taps(t.chat, t.bob, board, data)
    await tap.wait_answer_async(10)
    await world.server.wait_message_async(t.chat, since=tap, match=lambda m: m.photo is not None
                                          and m.reply_to == board.message_id)
    assert held.runs == 2 and str(second.ref) not in computer_turns._ANALYSES  # still held
    held.release()
    await world.idle()
