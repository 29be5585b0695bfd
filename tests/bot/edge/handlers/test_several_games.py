"""Several games in one group at once (issue 18): each on its own board and
under its own key, a person in several of them, the chat's limit, and the
commands that mean "the game" finding theirs (a reply to a board, the
caller's one game, else a list to pick from).  Through the real handlers."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.store import Store
from bot.vocab.records import ChatSettings, GameRecord, Status, settings_key
from tests.bot.conftest import World
from tests.bot.driver import Driver, game_board, game_id_of, pick
from tests.botapi.model import Chat, Message, User


async def _group(world: World, *names: str) -> tuple[Chat, list[User]]:
    s = world.server
    users = [s.add_user(name) for name in names]
    chat = s.add_group("Club", members=users)
    # text boards: nothing here is about pictures, and no painting keeps it quick
    await world.store.games.update(settings_key(chat.id), lambda _s: ChatSettings(
        chat_id=chat.id, board_style="text"))
    return chat, users


async def _open(world: World, chat: Chat, creator: User, args: str = "") -> Message:
    sent = await world.send(chat, creator, f"/new {args}".strip())
    return await world.reply(chat, sent, "New game")


async def _start(world: World, chat: Chat, creator: User, first: User, second: User,
                 args: str = "") -> str:
    """``creator`` opens a lobby, ``first`` and ``second`` join it: the game's id."""
    lobby = await _open(world, chat, creator, args)
    game_id = game_id_of(lobby)
    await world.tap(chat, first, lobby, text="✋ Join")
    lobby = world.server.message(chat.id, lobby.message_id)
    await world.tap(chat, second, lobby, text="✋ Join")
    return game_id


async def _game(world: World, chat: Chat, game_id: str) -> GameRecord:
    record = await world.store.games.load_game(chat.id, game_id)
    assert record is not None
    return record


async def test_three_games_at_once_one_player_in_two_to_the_end(world: World) -> None:
    chat, (alice, bob, carol, dave, eve) = await _group(
        world, "Alice", "Bob", "Carol", "Dave", "Eve")
    first = await _start(world, chat, alice, bob, alice, "long")
    second = await _start(world, chat, carol, carol, alice, "backgammon")
    third = await _start(world, chat, dave, dave, eve, "long stake=2")
    assert await world.store.games.live_count(chat.id, None) == 3
    assert {g.game_id for g in await world.store.games.user_games(alice.id)} == {first, second}
    # nobody plays twice in one game: Alice's second Join is refused
    records = {gid: await _game(world, chat, gid) for gid in (first, second, third)}
    assert all(r.status is Status.ACTIVE for r in records.values())
    drivers = [Driver(world.server, chat, (bob, alice), intruder=eve, game_id=first),
               Driver(world.server, chat, (carol, alice), intruder=dave, game_id=second),
               Driver(world.server, chat, (dave, eve), intruder=alice, game_id=third)]
    playing = list(drivers)
    for _ in range(400):  # a few taps on each board in turn, until every game is over
        for driver in list(playing):
            board = await asyncio.to_thread(driver.play, 4, stop_early=True)
            if pick(board) is None:
                assert "🏁" in board.content, board.content
                playing.remove(driver)
        if not playing:
            break
    assert not playing
    assert all(d.refused > 0 for d in drivers)  # the intruders' taps were refused
    history = await world.store.ledger.history(chat.id)
    assert sorted(e.game_id for e in history) == sorted([first, second, third])
    assert await world.store.games.live_count(chat.id, None) == 0
    stats = {(s.user_id, s.variant.value): s.games for s in await world.store.ledger.player_stats(
        chat.id)}
    assert stats[(alice.id, "long")] == 1 and stats[(alice.id, "backgammon")] == 1
    assert await world.store.games.user_games(alice.id) == []
    # each board shows its own game's result
    for driver in drivers:
        board = game_board(world.server, chat, game_id=driver.game_id)
        assert board is not None and "🏁" in board.content


async def test_a_lobby_per_creator_and_the_chats_limit(world: World) -> None:
    chat, (alice, bob, carol, dave) = await _group(world, "Alice", "Bob", "Carol", "Dave")
    world.store.max_live = 3
    lobby = await _open(world, chat, alice)
    sent = await world.send(chat, alice, "/new backgammon")
    again = await world.reply(chat, sent, "lobby open here already")
    assert again.reply_to == sent.message_id
    assert game_board(world.server, chat) is None
    newest = world.board(chat)
    assert game_id_of(newest) == game_id_of(lobby)  # her lobby, posted again
    assert await world.store.games.live_count(chat.id, None) == 1
    await _open(world, chat, bob)
    await _open(world, chat, carol, "backgammon")
    sent = await world.send(chat, dave, "/new")
    refused = await world.reply(chat, sent, "at once")
    assert "3" in refused.content and "/cancel" in refused.content
    assert await world.store.games.live_count(chat.id, None) == 3
    # a lobby closed makes room
    sent = await world.send(chat, carol, "/cancel")
    await world.reply(chat, sent)
    assert await world.store.games.live_count(chat.id, None) == 2
    await _open(world, chat, dave)
    assert await world.store.games.live_count(chat.id, None) == 3


async def test_commands_find_the_callers_game_a_replied_board_or_ask(world: World) -> None:
    chat, (alice, bob, carol, dave, eve) = await _group(
        world, "Alice", "Bob", "Carol", "Dave", "Eve")
    first = await _start(world, chat, alice, alice, bob, "long")
    second = await _start(world, chat, carol, carol, alice, "long")
    third = await _start(world, chat, dave, dave, eve, "backgammon")
    boards = {gid: game_board(world.server, chat, game_id=gid) for gid in (first, second, third)}
    # Bob plays one game here: /board posts that one
    sent = await world.send(chat, bob, "/board")
    posted = await world.reply(chat, sent, match=lambda m: bool(m.buttons))
    assert game_id_of(posted) == first
    # Alice plays two: /cancel lists hers; the list is hers alone
    sent = await world.send(chat, alice, "/cancel")
    listing = await world.reply(chat, sent, "Which one?")
    datas = [d for row in listing.buttons for _, d in row]
    assert sorted(d.rsplit(":", 1)[1] for d in datas) == sorted([first, second])
    assert all(d.startswith(f"gp:cancel:{alice.id}:") for d in datas)
    choice = next(d for d in datas if d.endswith(second))
    answer = await world.tap(chat, carol, listing, choice)
    assert answer.show_alert and "Only whoever sent the command" in (answer.text or "")
    assert (await _game(world, chat, second)).cancel_by is None
    answer = await world.tap(chat, alice, listing, choice)
    assert not answer.show_alert
    await world.reply(chat, listing, "Cancel proposed")
    assert (await _game(world, chat, second)).cancel_by == alice.id
    assert (await _game(world, chat, first)).cancel_by is None
    assert world.server.message(chat.id, listing.message_id).buttons == []
    # a reply to a board means that board's game, whoever asks
    sent = await world.send(chat, alice, "/cancel", reply_to=boards[first])
    await world.reply(chat, sent, "Cancel proposed")
    assert (await _game(world, chat, first)).cancel_by == alice.id
    sent = await world.send(chat, bob, "/export", reply_to=boards[third])
    document = await world.reply(chat, sent, match=lambda m: m.document is not None)
    assert document.document_name is not None and third in document.document_name
    # someone who plays none of them: the chat's games to pick from
    outsider = world.server.add_user("Olga")
    sent = await world.send(chat, outsider, "/board")
    listing = await world.reply(chat, sent, "Which one?")
    assert len(listing.buttons) == 3
    choice = next(d for row in listing.buttons for _, d in row if d.endswith(third))
    await world.tap(chat, outsider, listing, choice)
    newest = game_board(world.server, chat)
    assert newest is not None and game_id_of(newest) == third
    # a stale pick (the game is over) is refused and changes nothing
    sent = await world.send(chat, alice, "/cancel")
    listing = await world.reply(chat, sent, "Which one?")
    sent = await world.send(chat, carol, "/cancel", reply_to=boards[second])
    await world.reply(chat, sent, "cancelled")
    choice = next(d for row in listing.buttons for _, d in row if d.endswith(second))
    answer = await world.tap(chat, alice, listing, choice)
    assert answer.show_alert and "send the command again" in (answer.text or "")
    assert (await _game(world, chat, second)).status is Status.CANCELLED


@pytest.mark.parametrize("when", ["before the upgrade", "after the upgrade"])
async def test_a_game_stored_by_the_old_code_is_moved_by_its_first_tap(world: World,
                                                                       when: str) -> None:
    """A group's game saved before several games per chat (schema 1, at
    ``game:0``) goes on: the first tap on its board moves it to its own key.
    Also when a worker of the old release saved it after the upgrade (a mixed
    deploy, a rollback): the store is marked current and this process has
    looked at the chat already (docs/storage.md, mixed deploys)."""
    chat, (alice, bob) = await _group(world, "Alice", "Bob")
    game_id = await _start(world, chat, alice, alice, bob, "backgammon")
    driver = Driver(world.server, chat, (alice, bob), game_id=game_id)
    await asyncio.to_thread(driver.play, 6, stop_early=True)
    await world.idle()
    # the store as the old code left it: the record at game:0, JSON schema 1, in `slots`
    store, redis = world.store, world.store.redis
    for _ in range(200):  # (after the start-up's pass, which would move it at once)
        if await redis.exists("nardy:schema"):
            break
        await asyncio.sleep(0.05)
    record = await _game(world, chat, game_id)
    new_key = store.keys.record(record.key)
    fields = {k.decode(): v.decode() for k, v in (await redis.hgetall(new_key)).items()}
    data = json.loads(fields["d"])
    del data["next_game"]
    fields["d"] = json.dumps({**data, "schema_version": 1})
    old_key = store.keys.chat(chat.id, "game:0")
    await redis.delete(new_key, store.keys.chat(chat.id, "live"))
    if when == "after the upgrade":
        assert await store.games.chat_games(chat.id) == []  # this process looked at the chat
    await redis.hset(old_key, mapping=fields)
    await redis.sadd(store.keys.chat(chat.id, "slots"), "game:0")
    if when == "before the upgrade":
        await redis.delete("nardy:schema")  # as before the start-up's pass moved everything
        # the bot as just upgraded: a store that has not looked at any chat yet
        store = world.app.bot_data["store"] = Store(redis)
    final = await asyncio.to_thread(driver.play)
    assert "🏁" in final.content
    assert not await redis.exists(old_key)
    done = await store.games.load_game(chat.id, game_id)
    assert done is not None and done.status is Status.FINISHED and done.schema_version == 2
    assert [e.game_id for e in await store.ledger.history(chat.id)] == [game_id]
