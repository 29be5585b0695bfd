"""A finished game's analysis through the bot (bot/edge/handlers/analysis.py):
📊 on the result, /analyze, the picture or the text, one analysis in flight
per game, what was posted posted again, refused payloads, private boards."""

from __future__ import annotations

import io

from PIL import Image

from bot.store.records import GameRecord, Status
from tests.bot.conftest import World
from tests.bot.driver import pick
from tests.bot.test_handlers import Table, _data, _mover, _record, _setup
from tests.botapi.model import Message


async def _finished(world: World, t: Table, variant: str = "backgammon", taps: int = 12
                    ) -> GameRecord:
    """A game of ``variant`` played ``taps`` taps, then resigned."""
    sent = await world.send(t.chat, t.alice, f"/new {variant}")
    lobby = await world.reply(t.chat, sent, "New game")
    await world.tap(t.chat, t.alice, lobby, text="✋ Join")
    await world.tap(t.chat, t.bob, lobby, text="✋ Join")
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
    assert width == 1000 and height > 1000
    assert posted.caption is not None and "📊 Analysis" in posted.caption
    assert ("○ Alice" in posted.caption and "● Bob" in posted.caption) or \
        ("○ Bob" in posted.caption and "● Alice" in posted.caption)
    assert "error rate" in posted.caption and "luck" in posted.caption
    assert await _record(world, t) == record  # a look: the game did not change
    answer = await world.tap(t.chat, t.alice, board, data)
    assert answer.text == "The analysis of this game was just posted here.", answer
    assert len([m for m in world.server.messages(t.chat) if m.photo is not None
                and m.message_id > board.message_id]) == 1
