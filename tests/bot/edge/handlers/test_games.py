"""/games: a player's games across chats, and live boards of them in the
private chat, through the real handlers and the local Bot API server."""

from __future__ import annotations

from bot.rules.matchstate import table_of
from bot.vocab.callbacks import Kind
from bot.vocab.records import Status
from tests.bot.conftest import World
from tests.bot.driver import game_board, start_button
from tests.bot.edge.handlers.test_handlers import Table, _mover, _record, _setup, _start
from tests.bot.edge.handlers.test_invite import LINK
from tests.botapi.model import Chat, Message, User
from tests.conftest import chat_game


async def _games(world: World, user: User) -> Message:
    chat = world.server.private_chat(user)
    sent = await world.send(chat, user, "/games")
    return await world.reply(chat, sent)


def _show_buttons(message: Message) -> list[tuple[str, str]]:
    return [(text, data) for row in message.buttons for text, data in row
            if data.startswith(Kind.SHOW.value + ":")]


async def _second_group(world: World, t: Table, title: str, opponent: User) -> Table:
    chat = world.server.add_group(title, members=[t.alice, opponent])
    return Table(chat, t.alice, opponent, t.eve)


async def _show(world: World, user: User, listing: Message, index: int) -> Message:
    """Tap the index-th board button of a /games list; the board posted in the private chat."""
    chat = world.server.private_chat(user)
    data = _show_buttons(listing)[index][1]
    since = world.server.revision
    answer = await world.tap(chat, user, listing, data)
    assert not answer.show_alert, answer
    return await world.reply(chat, since, match=lambda m: bool(m.buttons))


async def test_games_lists_every_chat_with_turn_deadline_and_buttons(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    den = await _second_group(world, t, "Den", t.eve)
    await _start(world, den, "backgammon time=1d")
    lobby_chat = world.server.add_group("Attic", members=[t.alice])
    sent = await world.send(lobby_chat, t.alice, "/new")
    lobby = await world.reply(lobby_chat, sent, "New game")
    await world.tap(lobby_chat, t.alice, lobby, text="✋ Join")
    # a private game with Carol through an invitation
    carol = world.server.add_user("Carol")
    mine = world.server.private_chat(t.alice)
    sent = await world.send(mine, t.alice, "/invite")
    link = LINK.search((await world.reply(mine, sent, "Invitation")).text)
    assert link is not None
    carols = world.server.private_chat(carol)
    await world.reply(carols, await world.send(carols, carol, f"/start {link.group(2)}"))
    await world.idle()
    start = game_board(world.server, carols)  # the game waits for a player's ▶ Start
    assert start is not None and start_button(start) is not None
    await world.tap(carols, carol, start, start_button(start))

    listing = await _games(world, t.alice)
    lines = listing.text.splitlines()
    assert lines[0] == "Your games" and len(lines) == 5, listing.text
    club = await _record(world, t)
    den_record = await chat_game(world.store, den.chat.id)
    assert den_record is not None and den_record.deadline is not None
    by_chat = {"Club": club, "Den": den_record}
    for title, record in by_chat.items():
        line = next(line for line in lines if f"in {title}" in line)
        opponent = "Bob" if title == "Club" else "Eve"
        assert f"against {opponent}" in line
        to_move = table_of(record).game.to_act
        waiting = next(p for p in record.players if p.side is to_move)
        turn = "your turn" if waiting.user_id == t.alice.id else f"{waiting.name}'s turn"
        assert turn in line, line
        assert ("Move by" in line) is (title == "Den"), line
    assert any("against Carol" in line and "private game" in line for line in lines)
    assert any("in Attic" in line and "waiting for a second player" in line for line in lines)
    # a button per game being played (not for the lobby), within 64 bytes
    buttons = _show_buttons(listing)
    assert len(buttons) == 3 and all(len(d.encode()) <= 64 for _, d in buttons)


async def test_games_in_a_group_points_to_the_private_chat(world: World) -> None:
    t = _setup(world)
    sent = await world.send(t.chat, t.alice, "/games")
    hint = await world.reply(t.chat, sent)
    assert "private chat" in hint.text and hint.reply_markup is not None
    url = hint.reply_markup["inline_keyboard"][0][0]["url"]
    assert url == f"https://t.me/{world.server.bot.username}?start=games"
    # the link's /start opens the list
    mine = world.server.private_chat(t.alice)
    listing = await world.reply(mine, await world.send(mine, t.alice, "/start games"))
    assert "no games in progress" in listing.text


async def test_board_shown_in_private_is_live_both_ways(world: World) -> None:
    t = _setup(world)
    group_board = await _start(world, t, "backgammon")
    mover, waiting = await _mover(world, t)
    listing = await _games(world, mover)
    private = await _show(world, mover, listing, 0)
    record = await _record(world, t)
    assert [(v.chat_id, v.message_id) for v in record.views] == [(mover.id, private.message_id)]
    # the group board was redrawn for the version that saved the view: still live
    assert {d.split(":")[2] for _, d in world.buttons(group_board)} == {str(record.version)}
    assert {d.split(":")[2] for _, d in world.buttons(private)} == {str(record.version)}
    step = world.find(private, lambda _t, d: d.split(":")[3] == "m")[1]
    before = world.server.message(t.chat.id, group_board.message_id).revision
    answer = await world.tap(private.chat, mover, private, step)
    assert not answer.show_alert, answer
    moved = await _record(world, t)
    assert moved.version == record.version + 1
    group_now = world.server.message(t.chat.id, group_board.message_id)
    assert group_now.revision > before
    assert {d.split(":")[2] for _, d in world.buttons(group_now)} == {str(moved.version)}
    # and a tap on the group board redraws the private one
    undo = world.find(group_now, lambda _t, d: d.split(":")[3] == "u")[1]
    await world.tap(t.chat, mover, group_now, undo)
    undone = await _record(world, t)
    assert undone.version == moved.version + 1
    assert {d.split(":")[2] for _, d in world.buttons(private)} == {str(undone.version)}
    # the waiting player's own board: drawn for them, only the menu
    theirs = await _show(world, waiting, await _games(world, waiting), 0)
    assert [text for text, _ in world.buttons(theirs)] == ["⋯ More"]
    record = await _record(world, t)
    assert {v.viewer for v in record.views} == {p.side for p in record.players}


async def test_showing_again_replaces_the_old_private_board(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    mover, _ = await _mover(world, t)
    first = await _show(world, mover, await _games(world, mover), 0)
    old = world.buttons(first)
    second = await _show(world, mover, await _games(world, mover), 0)
    assert second.message_id != first.message_id
    assert world.buttons(first) == []  # the old board lost its buttons
    record = await _record(world, t)
    assert [v.message_id for v in record.views] == [second.message_id]
    answer = await world.tap(first.chat, mover, first, old[0][1], strict=False)
    assert answer.show_alert and "out of date" in (answer.text or "")
    assert await _record(world, t) == record


async def test_show_refuses_strangers_forgeries_and_finished_games(world: World) -> None:
    t = _setup(world)
    await _start(world, t)
    listing = await _games(world, t.alice)
    data = _show_buttons(listing)[0][1]
    eves: Chat = world.server.private_chat(t.eve)
    fake = await world.reply(eves, await world.send(eves, t.eve, "/games"))
    answer = await world.tap(eves, t.eve, fake, data, strict=False)
    assert answer.show_alert and "not playing" in (answer.text or "")
    answer = await world.tap(eves, t.eve, fake, "gv:nonsense", strict=False)
    assert answer.show_alert and "not being played" in (answer.text or "")
    record = await _record(world, t)
    assert record.views == ()
    await world.send(t.chat, t.alice, "/cancel")
    await world.send(t.chat, t.bob, "/cancel")
    await world.idle()
    assert (await _record(world, t)).status is Status.CANCELLED
    answer = await world.tap(listing.chat, t.alice, listing, data)
    assert answer.show_alert and "not being played" in (answer.text or "")
