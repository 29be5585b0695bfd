"""The cube, resignations and the result work in the Mini App as in the chat (issue 24):
one player acts through the app's API, the other taps the group board, and each
sees the other's action.  In process: the app's routes (bot/edge/webapp.py) on a
tornado server beside the polling bot (the ``served`` fixture of
test_webapp_budget)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx

from bot.present.analysis import summary
from bot.present.webapp import game_of, payload
from bot.rules.analysis import analyse_job, job
from bot.vocab.callbacks import ButtonAction, Callback, CallbackDataError
from bot.vocab.i18n import translator
from tests.bot.conftest import World
from tests.bot.driver import pick
from tests.bot.edge.handlers.test_webapp_budget import (
    Hold,
    _at_a_roll,
    _call,
    _drawn_version,
    _init,
    served,  # noqa: F401 (the fixture)
)
from tests.bot.trees import walk
from tests.botapi.model import Chat, User


def _data(world: World, chat: Chat, action: ButtonAction) -> str | None:
    """The data of the group board's ``action`` button, if it has one."""
    for row in world.board(chat).buttons:
        for _, data in row:
            try:
                if Callback.parse(data).action is action:
                    return data
            except CallbackDataError:
                continue
    return None


async def _drawn(world: World, chat: Chat) -> None:
    """Wait until the group board is drawn for the stored game: an app request's
    redraw follows its answer in the background (no update the world can wait for)."""
    async def current() -> bool:
        [record] = await world.store.games.chat_games(chat.id)
        return await _drawn_version(world, chat, world.board(chat)) == "current" \
            or record.status.value != "active"

    for _ in range(500):
        if await current():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(world.server.transcript(chat))


async def _tap(world: World, chat: Chat, user: User, *actions: ButtonAction) -> None:
    """``user`` taps the first of ``actions`` the group board offers (a second tap
    where the first asks again, as Pass does), refused by nothing."""
    await _drawn(world, chat)
    data = next((d for d in (_data(world, chat, a) for a in actions) if d), None)
    assert data is not None, (actions, world.server.transcript(chat))
    answer = await world.tap(chat, user, world.board(chat), data)
    assert not answer.show_alert, answer


async def _resigned(world: World, client: httpx.AsyncClient, url: str, base: dict[str, Any],
                    chat: Any, chat_user: Any) -> dict[str, Any]:
    """The app's player resigns (a single game's worth), the other accepts on the group
    board: the app's state once the game has ended."""
    state = await _call(client, url, "state", **base)
    offered = await _call(client, url, "action", **base, version=state["version"],
                          action="resign", level=1)
    await world.idle()
    await _tap(world, chat, chat_user, ButtonAction.ACCEPT)
    return await _newer(client, url, base, offered["version"])


async def _newer(client: httpx.AsyncClient, url: str, base: dict[str, Any],
                 version: int) -> Any:
    """The app's state once the stored game moved on from ``version`` (its long poll)."""
    for _ in range(3):
        state = await _call(client, url, "state", **base, after=version)
        if state["version"] != version:
            return state
    raise AssertionError(f"the game stayed at version {version}")


async def _play_in_the_app(client: httpx.AsyncClient, url: str, base: dict[str, Any],
                           state: Any) -> Any:
    """Roll (if needed) and play a whole turn through the app; the state after it."""
    if state["tree"] is None:
        state = await _call(client, url, "action", **base, version=state["version"],
                            action="roll")
    steps = [edge["step"] for edge in walk(state["tree"])]
    return await _call(client, url, "turn", **base, version=state["version"], steps=steps)


async def _play_until(world: World, chat: Chat, chat_user: User, client: httpx.AsyncClient,
                      url: str, base: dict[str, Any], done: Callable[[Any], bool]) -> Any:
    """Play on (the app's player a whole turn at a time through the app, the chat's
    player one driver tap at a time) until ``done(state)`` holds for the app's state:
    Double is offered only where the bot does not judge the roller clearly behind."""
    for _ in range(300):
        await world.idle()
        await _drawn(world, chat)
        state = await _call(client, url, "state", **base)
        if done(state):
            return state
        assert state["status"] == "active", state
        if state["to_act"] == state["you"]:
            await _play_in_the_app(client, url, base, state)
        else:
            data = pick(world.board(chat))
            assert data is not None, world.server.transcript(chat)
            await world.tap(chat, chat_user, world.board(chat), data)
    raise AssertionError(world.server.transcript(chat))


async def _seated(world: World, options: str = "") -> tuple[Chat, User, User, str]:
    """A backgammon game at a roll (:func:`_at_a_roll`, ``options`` as /new takes
    them): its chat, the player at the roll, the other player, and the game's app
    payload."""
    chat, rolling, game = await _at_a_roll(world, options)
    [record] = await world.store.games.chat_games(chat.id)
    ids = {p.user_id for p in record.players}
    other = next(u for u in world.server.users() if u.id in ids and u.id != rolling.id)
    return chat, rolling, other, game


def _app_may_double(state: Any) -> bool:
    return bool(state["to_act"] == state["you"] and "double" in state["actions"])


async def test_doubles_takes_and_a_declined_then_accepted_resignation_in_the_app(
        served: tuple[World, Hold, str]) -> None:  # noqa: F811
    world, hold, url = served
    hold.released.set()  # a roll left without a turn is drawn at once here
    chat, app_user, chat_user, game = await _seated(world)
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, app_user), "game": game}
        state = await _play_until(world, chat, chat_user, client, url, base, _app_may_double)
        you = state["you"]
        doubled = await _call(client, url, "action", **base, version=state["version"],
                              action="double")
        assert doubled["to_act"] != you and doubled["actions"] == [], doubled
        await world.idle()
        await _tap(world, chat, chat_user, ButtonAction.TAKE)  # in the group
        state = await _newer(client, url, base, doubled["version"])
        assert state["cube"] == {"value": 2, "owner": 1 - you}, state["cube"]
        state = await _play_until(world, chat, chat_user, client, url, base, lambda st: (
            st["to_act"] != st["you"] and _data(world, chat, ButtonAction.DOUBLE) is not None))
        await _tap(world, chat, chat_user, ButtonAction.DOUBLE, ButtonAction.DOUBLE_SURE)
        state = await _newer(client, url, base, state["version"])
        assert state["to_act"] == you and {"take", "pass"} <= set(state["actions"]), state
        state = await _call(client, url, "action", **base, version=state["version"],
                            action="take")
        assert state["cube"] == {"value": 4, "owner": you}, state["cube"]
        state = await _play_until(world, chat, chat_user, client, url, base,
                                  lambda st: "resign" in st["actions"])
        offered = await _call(client, url, "action", **base, version=state["version"],
                              action="resign", level=1)
        assert offered["to_act"] != you, offered
        await world.idle()
        await _tap(world, chat, chat_user, ButtonAction.DECLINE)
        state = await _newer(client, url, base, offered["version"])
        assert state["status"] == "active" and state["to_act"] == you, state
        offered = await _call(client, url, "action", **base, version=state["version"],
                              action="resign", level=1)
        await world.idle()
        await _tap(world, chat, chat_user, ButtonAction.ACCEPT)
        ended = await _newer(client, url, base, offered["version"])
    assert ended["status"] == "finished" and ended["to_act"] is None, ended
    assert ended["actions"] == [] and ended["tree"] is None
    line = ended["result"]["line"]
    assert "by resignation: single game, 4 points" in line, line
    [record] = await world.store.games.chat_games(chat.id)
    assert record.status.value == "finished"


async def test_a_pass_from_the_app_ends_the_game(
        served: tuple[World, Hold, str]) -> None:  # noqa: F811
    """The chat player doubles, the app player passes: the game is over in both."""
    world, hold, url = served
    hold.released.set()
    chat, chat_user, app_user, game = await _seated(world)
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, app_user), "game": game}
        before = await _play_until(world, chat, chat_user, client, url, base, lambda st: (
            st["to_act"] != st["you"] and _data(world, chat, ButtonAction.DOUBLE) is not None))
        await _tap(world, chat, chat_user, ButtonAction.DOUBLE, ButtonAction.DOUBLE_SURE)
        state = await _newer(client, url, base, before["version"])
        assert state["to_act"] == state["you"] and "pass" in state["actions"], state
        before_pass = world.server.revision
        passed = await _call(client, url, "action", **base, version=state["version"],
                             action="pass")
    assert passed["status"] == "finished" and passed["actions"] == [], passed
    assert "the double was passed" in passed["result"]["line"], passed["result"]["line"]
    await world.server.wait_message_async(chat, "🏁", since=before_pass)


async def test_a_resignation_in_the_chat_declined_then_accepted_in_the_app(
        served: tuple[World, Hold, str]) -> None:  # noqa: F811
    """The chat player resigns; the app player declines, then accepts the next
    offer: the app offers Accept and Decline only while an offer waits for them."""
    world, hold, url = served
    hold.released.set()
    chat, chat_user, app_user, game = await _seated(world)
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, app_user), "game": game}
        versions = []
        for answer in ("decline", "accept"):
            state = await _play_until(world, chat, chat_user, client, url, base, lambda st: (
                st["to_act"] != st["you"] and _data(world, chat, ButtonAction.MENU) is not None))
            assert "accept" not in state["actions"], state
            await _tap(world, chat, chat_user, ButtonAction.MENU)
            await _tap(world, chat, chat_user, ButtonAction.RESIGN, ButtonAction.RESIGN_SURE)
            state = await _newer(client, url, base, state["version"])
            assert state["to_act"] == state["you"], state
            assert state["actions"] == ["accept", "decline"], state["actions"]
            state = await _call(client, url, "action", **base, version=state["version"],
                                action=answer)
            versions.append(state["version"])
            if answer == "decline":
                assert state["status"] == "active" and state["to_act"] != state["you"], state
    assert state["status"] == "finished" and state["actions"] == [], state
    assert "by resignation" in state["result"]["line"], state["result"]["line"]
    [record] = await world.store.games.chat_games(chat.id)
    assert record.status.value == "finished" and record.version == versions[-1]


async def test_a_rematch_offered_in_the_app_is_accepted_on_the_group_board(
        served: tuple[World, Hold, str]) -> None:  # noqa: F811
    """The app's Rematch is the group board's: the offer saved with its seed committed,
    the group board redrawn with Accept / Decline; the other player's Accept from the
    app is refused (its tap is the new match's dice entropy), made on the group board;
    the app's long poll then names the new game, whose dice mixed in that tap's id."""
    world, hold, url = served
    hold.released.set()
    chat, app_user, chat_user, game = await _seated(world)  # the app's player at a roll
    chat_id, game_id = game_of(game)
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, app_user), "game": game}
        ended = await _resigned(world, client, url, base, chat, chat_user)
        assert ended["status"] == "finished" and ended["result"]["rematch"], ended["result"]
        assert ended["result"]["offer"] is None
        offer = await _call(client, url, "action", **base, version=ended["version"],
                            action="rematch")
        assert offer["result"]["offer"] == {
            "mine": True, "accept": None,
            "line": f"Waiting for {chat_user.first_name} to accept the rematch."}
        assert not offer["result"]["rematch"]
        record = await world.store.games.load_game(chat_id, game_id)
        assert record is not None and record.rematch_by == app_user.id
        assert record.next_dice is not None and not record.next_dice.fixed  # committed
        await world.idle()
        for _ in range(500):  # the group board, redrawn after the answer
            if _data(world, chat, ButtonAction.ACCEPT) is not None:
                break
            await asyncio.sleep(0.02)
        assert "offers a rematch" in world.board(chat).text, world.board(chat).text
        assert _data(world, chat, ButtonAction.DECLINE) is not None
        # the other player's Accept from the app: refused, nothing changes
        other = {"initData": _init(world, chat_user), "game": game}
        seen = await _call(client, url, "state", **other)
        assert seen["result"]["offer"]["accept"] == "chat", seen["result"]["offer"]
        refused = await client.post(f"{url}/action", json={
            **other, "version": seen["version"], "action": "accept"})
        assert refused.status_code == 409
        assert "board in the chat" in refused.json()["error"], refused.text
        again = await world.store.games.load_game(chat_id, game_id)
        assert again is not None and again.version == record.version
        # accepted on the group board: the app's long poll names the new game
        await _tap(world, chat, chat_user, ButtonAction.ACCEPT)
        following = await _newer(client, url, base, offer["version"])
    old = await world.store.games.load_game(chat_id, game_id)
    assert old is not None and old.next_game is not None
    assert following["result"]["next"] == payload(chat_id, old.next_game)
    new = await world.store.games.load_game(chat_id, old.next_game)
    assert new is not None and new.status.value == "active" and new.dice is not None
    assert new.dice.seed == record.next_dice.seed  # the seed committed with the offer
    assert any(item.startswith("tg.join=") for item in new.dice.entropy), new.dice


async def test_the_analysis_in_the_app_is_the_bots(
        served: tuple[World, Hold, str]) -> None:  # noqa: F811
    """📊 from the app: refused while the game is on; after it, each player's figures as
    the bot's analysis gives them (computed in its analysis pool, as /analyze does)."""
    world, hold, url = served
    hold.released.set()
    chat, app_user, chat_user, game = await _seated(world)
    chat_id, game_id = game_of(game)
    async with httpx.AsyncClient(timeout=60) as client:
        base = {"initData": _init(world, app_user), "game": game}
        early = await client.post(f"{url}/analysis", json=base)
        assert early.status_code == 409 and "not over" in early.json()["error"], early.text
        state = await _call(client, url, "state", **base)
        offered = await _call(client, url, "action", **base, version=state["version"],
                              action="resign", level=1)
        await world.idle()
        await _tap(world, chat, chat_user, ButtonAction.ACCEPT)
        await _newer(client, url, base, offered["version"])
        answer = await _call(client, url, "analysis", **base)
    record = await world.store.games.load_game(chat_id, game_id)
    assert record is not None
    expected = summary(translator("en"), record, analyse_job(job(record)))
    assert answer["analysis"] == expected
    assert [p["name"] for p in answer["analysis"]["players"]] == [
        p.name for p in record.players]


async def test_the_matchs_next_game_accepted_in_the_app(
        served: tuple[World, Hold, str]) -> None:  # noqa: F811
    """Between two games of a match (the match's dice: no tap to mix in) the next game
    offered on the group board is accepted in the app; its answer is the game it
    asked for, continued, naming the next one, which is being played."""
    world, hold, url = served
    hold.released.set()
    chat, app_user, chat_user, game = await _seated(world, "match=3")
    chat_id, game_id = game_of(game)
    async with httpx.AsyncClient(timeout=30) as client:
        base = {"initData": _init(world, app_user), "game": game}
        ended = await _resigned(world, client, url, base, chat, chat_user)  # game 1 of 3
        assert ended["result"]["rematch_label"] == "Next game", ended["result"]
        await _tap(world, chat, chat_user, ButtonAction.REMATCH)  # Next game, in the chat
        asked = await _newer(client, url, base, ended["version"])
        assert asked["result"]["offer"]["accept"] == "app", asked["result"]
        answer = await _call(client, url, "action", **base, version=asked["version"],
                             action="accept")
    old = await world.store.games.load_game(chat_id, game_id)
    assert old is not None and old.next_game is not None
    assert answer["game"] == game_id and answer["result"]["next"] == payload(
        chat_id, old.next_game), answer["result"]
    new = await world.store.games.load_game(chat_id, old.next_game)
    assert new is not None and new.status.value == "active" and new.dice == old.dice
