"""Picture boards and /settings through the real handlers and the local Bot
API server: the photo, its caption and keyboard, editMessageMedia after a
step, a caption-only edit for keyboard-only taps, re-posting on a style
switch or a deleted board, orientation, permissions, translated boards."""

from __future__ import annotations

from bot.present.render import point_label
from bot.rules.matchstate import table_of
from bot.vocab.records import ChatSettings, settings_key
from engine import Side
from tests.bot.conftest import World
from tests.bot.edge.handlers.test_handlers import Table as Club
from tests.bot.edge.handlers.test_handlers import _mover as movers
from tests.bot.edge.handlers.test_handlers import _setup
from tests.bot.edge.handlers.test_handlers import _start as start_game
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game


def _club(world: World) -> Club:
    """Alice, Bob and Eve in a group where Alice is an admin."""
    club = _setup(world)
    world.server.set_admins(club.chat, club.alice)
    return club


async def _start(world: World, c: Club, args: str = "backgammon") -> Message:
    return await start_game(world, c, args)


async def _mover(world: World, c: Club) -> User:
    return (await movers(world, c))[0]


async def _to_move(world: World, c: Club) -> Message:
    """Play on until the board shows step buttons."""
    for _ in range(20):
        board = world.board(c.chat)
        actions = [d.split(":")[3] for _, d in world.buttons(board)]
        if "m" in actions or "s" in actions:
            return board
        action = next(a for a in ("c", "r") if a in actions)
        data = next(d for _, d in world.buttons(board) if d.split(":")[3] == action)
        await world.tap(c.chat, await _mover(world, c), board, data)
    raise AssertionError(world.server.transcript(c.chat))


async def _settings(world: World, chat: Chat, user: User) -> Message:
    sent = await world.send(chat, user, "/settings")
    return await world.reply(chat, sent, "Settings of this chat")


async def test_the_board_is_a_photo_with_status_caption_and_moves(world: World) -> None:
    c = _club(world)
    board = await _start(world, c)
    assert board.photo is not None and board.text is None
    assert board.photo_bytes is not None and board.photo_bytes[:4] == b"\x89PNG"
    caption = board.caption or ""
    assert "Backgammon" in caption and "Opening roll" in caption
    assert "Pips: ○ 167 – ● 167" in caption
    assert "to move" in caption or "to roll" in caption
    assert world.buttons(board)
    # the picture is a message of its own; the lobby stays as it was, never
    # edited: it keeps the dice's whole commitment (issue 35, docs/fair-dice.md)
    lobbies = [m for m in world.server.messages(c.chat) if m.from_bot and "New game" in m.content]
    assert len(lobbies) == 1 and lobbies[0].message_id < board.message_id


async def test_a_step_redraws_the_photo_in_place(world: World) -> None:
    c = _club(world)
    await _start(world, c)
    board = await _to_move(world, c)
    before = world.server.message(c.chat.id, board.message_id)
    media = world.server.request_count("editMessageMedia")
    step = next(d for _, d in world.buttons(board) if d.split(":")[3] == "m")
    answer = await world.tap(c.chat, await _mover(world, c), board, step)
    assert not answer.show_alert
    after = world.server.message(c.chat.id, board.message_id)
    assert world.server.request_count("editMessageMedia") == media + 1
    assert after.photo_bytes != before.photo_bytes and after.buttons
    assert world.board(c.chat).message_id == board.message_id


async def test_keyboard_only_taps_edit_the_caption_and_repeats_are_ignored(world: World) -> None:
    c = _club(world)
    await _start(world, c)
    board = await _to_move(world, c)
    mover = await _mover(world, c)
    media = world.server.request_count("editMessageMedia")
    captions = world.server.request_count("editMessageCaption")
    menu = next(d for _, d in world.buttons(board) if d.split(":")[3] == "o")
    await world.tap(c.chat, mover, board, menu)
    assert any("Resign" in text for text, _ in world.buttons(board))
    # the same menu tap again draws the same caption and keyboard: "not modified", ignored
    again = await world.tap(c.chat, mover, board, menu, strict=False)
    assert not again.show_alert
    assert world.server.request_count("editMessageCaption") == captions + 2
    assert world.server.request_count("editMessageMedia") == media


async def test_a_deleted_photo_board_is_posted_again(world: World) -> None:
    c = _club(world)
    board = await _start(world, c)
    with world.server._cond:  # someone deleted the board (no user action for it in the server)
        world.server._chats[c.chat.id].messages[board.message_id].deleted = True
    sent = await world.send(c.chat, c.alice, "/cancel")
    await world.reply(c.chat, sent, "Cancel proposed")
    fresh = world.board(c.chat)
    assert fresh.message_id != board.message_id and fresh.photo is not None
    assert "proposes to cancel" in fresh.content


async def test_settings_switch_the_style_and_repost_the_board(world: World) -> None:
    c = _club(world)
    photo = await _start(world, c)
    panel = await _settings(world, c.chat, c.alice)
    assert "a picture" in panel.content and "Language:" in panel.content
    await world.tap(c.chat, c.alice, panel, text="🔤 Text")
    assert (await world.store.games.chat_settings(c.chat.id)).board_style == "text"
    text_board = world.board(c.chat)
    assert text_board.message_id != photo.message_id and text_board.photo is None
    assert "pips" in text_board.content and "Pips:" not in text_board.content
    assert not world.server.message(c.chat.id, photo.message_id).buttons
    assert "✓ 🔤 Text" in [t for row in world.server.message(
        c.chat.id, panel.message_id).buttons for t, _ in row]
    # a step on the text board edits it as text
    board = await _to_move(world, c)
    assert board.message_id == text_board.message_id
    await world.tap(c.chat, c.alice, panel, text="🖼 Picture")
    back = world.board(c.chat)
    assert back.photo is not None and back.message_id != text_board.message_id
    assert not world.server.message(c.chat.id, text_board.message_id).buttons


async def test_only_admins_change_group_settings(world: World) -> None:
    c = _club(world)
    panel = await _settings(world, c.chat, c.eve)
    refused = await world.tap(c.chat, c.eve, panel, text="🔤 Text")
    assert refused.show_alert and "Only chat admins" in (refused.text or "")
    assert (await world.store.games.chat_settings(c.chat.id)).board_style == "png"
    for data in ("set:style:gif", "set:view", "set:colour:red"):
        bad = await world.tap(c.chat, c.alice, panel, data, strict=False)
        assert bad.show_alert and "does not work" in (bad.text or "")
    assert await world.store.games.load(settings_key(c.chat.id)) is None


async def test_in_a_private_chat_the_user_changes_settings(world: World) -> None:
    user = world.server.add_user("Solo")
    dm = world.server.private_chat(user)
    panel = await _settings(world, dm, user)
    answer = await world.tap(dm, user, panel, text="● Black")
    assert not answer.show_alert
    assert (await world.store.games.chat_settings(dm.id)).orientation == "black"


def _bottom_mark(content: str) -> str:
    """The checker mark of the player line under a text board's grid."""
    lines = content.splitlines()
    frames = [i for i, line in enumerate(lines) if line.startswith("+---")]
    return lines[frames[1] + 3][2]


async def test_fixed_side_stays_at_the_bottom_and_buttons_follow_the_mover(world: World
                                                                          ) -> None:
    c = _club(world)
    await world.store.games.save(ChatSettings(chat_id=c.chat.id, board_style="text",
                                              orientation="white"), 0)
    await _start(world, c)
    movers_seen = set()
    for _ in range(6):  # both players' turns: White stays at the bottom, the numbers follow
        board = await _to_move(world, c)
        record = await chat_game(world.store, c.chat.id)
        assert record is not None
        game = table_of(record).game
        mover = game.to_act
        assert mover is not None
        movers_seen.add(mover)
        assert _bottom_mark(board.content) == "○"
        for text, data in world.buttons(board):
            parts = data.split(":")
            if parts[3] == "m":
                source, target = text.split(" (")[0].split("→")
                assert source == point_label(game.variant, mover, mover, int(parts[4]))
                assert target == point_label(game.variant, mover, mover, int(parts[5]))
                assert f" {source} " in board.content  # a number printed on the board
        steps = [d for _, d in world.buttons(board) if d.split(":")[3] == "m"]
        data = steps[0] if steps else next(d for _, d in world.buttons(board)
                                           if d.split(":")[3] == "s")
        await world.tap(c.chat, await _mover(world, c), board, data)
    # another side redraws the same text message in place
    panel = await _settings(world, c.chat, c.alice)
    board = world.board(c.chat)
    edits = world.server.message(c.chat.id, board.message_id).edits
    await world.tap(c.chat, c.alice, panel, text="● Black")
    redrawn = world.server.message(c.chat.id, board.message_id)
    assert redrawn.edits == edits + 1 and world.board(c.chat).message_id == board.message_id
    assert _bottom_mark(redrawn.content) == "●" and movers_seen == set(Side)


async def test_boards_speak_the_chat_language(world: World) -> None:
    for lang, caption_word, text_word in (("ru", "Пипсы:", "пипсов"),
                                          ("lt", "Liko eiti:", " liko ")):
        c = _club(world)
        await _start(world, c)
        # the first game noted its language
        settings = await world.store.games.chat_settings(c.chat.id)
        await world.store.games.save(settings.model_copy(update={"language": lang}),
                                     settings.version)
        sent = await world.send(c.chat, c.alice, "/board")
        photo = await world.reply(c.chat, sent, caption_word)
        assert photo.photo is not None and "Pips" not in photo.content
        settings = await world.store.games.chat_settings(c.chat.id)
        await world.store.games.save(settings.model_copy(update={"board_style": "text"}),
                                     settings.version)
        sent = await world.send(c.chat, c.alice, "/board")
        text_board = await world.reply(c.chat, sent, text_word)
        assert "pips" not in text_board.content and "Dice" not in text_board.content


async def test_autoplay_is_a_chat_setting_for_new_games(world: World) -> None:
    """/settings turns forced turns by hand for the chat's new games (admins
    only); /new autoplay= overrides it."""
    c = _club(world)
    menu = await _settings(world, c.chat, c.alice)
    assert "New games play forced turns by themselves." in menu.content
    refused = await world.tap(c.chat, c.bob, menu, "set:autoplay:off")
    assert refused.show_alert
    await world.tap(c.chat, c.alice, menu, "set:autoplay:off")
    assert (await world.store.games.chat_settings(c.chat.id)).autoplay is False
    menu = world.server.message(c.chat.id, menu.message_id)
    assert "New games leave forced turns to the players." in menu.content
    assert "✓ Forced turns: by hand" in [text for text, _ in world.buttons(menu)]
    await _start(world, c, "long")
    record = await chat_game(world.store, c.chat.id)
    assert record is not None and record.options.autoplay is False
    assert "forced turns by hand" in world.board(c.chat).content
