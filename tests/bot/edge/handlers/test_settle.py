"""/settle through the real handlers: a balance settled by reply or by choice,
declined, refused when it changed meanwhile; a payment of the settle-up plan
booked on its pair once, however the requests race."""

from __future__ import annotations

import pytest

from bot.rules.settle import nets
from bot.store import PlanChanged, Store
from bot.vocab.records import SettleRequest
from tests.bot.conftest import World
from tests.bot.edge.handlers.club import book, club_of_three, command
from tests.botapi.model import Chat, Message, User

CHAT = -100777


async def test_settle_by_reply_needs_the_other_player(world: World) -> None:
    club, ann, bob, eve = club_of_three(world)
    await book(world, club, ann, bob, 30)
    said = await world.send(club, eve, "hi")
    assert "Nothing to settle" in await command(world, club, ann, "/settle", reply_to=said)
    said = await world.send(club, bob, "I lost")
    sent = await world.send(club, ann, "/settle", reply_to=said)
    prompt = await world.reply(club, sent, "settle up")
    assert "Bob → Ann 30" in prompt.content
    confirm = world.find(prompt, lambda text, _data: text == "✅ Settled")[1]
    for intruder in (eve, ann):  # a third person, and the requester herself
        refused = await world.tap(club, intruder, prompt, text="✅ Settled")
        assert refused.show_alert
    assert await world.store.ledger.balance(club.id, ann.id, bob.id) == 30
    await world.tap(club, bob, prompt, text="✅ Settled")
    assert await world.store.ledger.balance(club.id, ann.id, bob.id) == 0
    assert "Settled: Bob → Ann 30; the balance is 0." in world.server.message(
        club.id, prompt.message_id).content
    again = await world.tap(club, bob, prompt, confirm, strict=False)
    assert again.show_alert  # the request is gone; nothing settles twice


async def test_settle_refuses_a_balance_that_changed_meanwhile(world: World) -> None:
    club, ann, bob, _eve = club_of_three(world)
    await book(world, club, ann, bob, 30)
    said = await world.send(club, ann, "paid you")
    sent = await world.send(club, bob, "/settle", reply_to=said)  # the debtor asks
    prompt = await world.reply(club, sent, "settle up")
    await book(world, club, ann, bob, 5, thread=9)  # another game ends before Ann confirms
    await world.tap(club, ann, prompt, text="✅ Settled")
    assert "changed" in world.server.message(club.id, prompt.message_id).content
    assert await world.store.ledger.balance(club.id, ann.id, bob.id) == 35


async def test_settle_by_choosing_and_declining(world: World) -> None:
    club, ann, bob, eve = club_of_three(world)
    assert "no open balance" in await command(world, club, ann, "/settle")
    await book(world, club, ann, bob, 12)
    await book(world, club, eve, ann, 3)
    sent = await world.send(club, ann, "/settle")
    menu = await world.reply(club, sent, "with whom")
    labels = [text for text, _ in world.buttons(menu)]
    assert "Bob → Ann 12" in labels and "Ann → Eve 3" in labels
    refused = await world.tap(club, bob, menu, text="Bob → Ann 12")
    assert refused.show_alert  # only Ann chooses
    await world.tap(club, ann, menu, text="Ann → Eve 3")
    assert "Eve, confirm" in world.server.message(club.id, menu.message_id).content
    refused = await world.tap(club, bob, menu, text="✖ No")
    assert refused.show_alert  # Bob is not part of this one
    await world.tap(club, eve, menu, text="✖ No")
    assert "said no" in world.server.message(club.id, menu.message_id).content
    assert await world.store.ledger.balance(club.id, eve.id, ann.id) == 3


async def test_ledger_shows_the_plan_and_settle_books_a_planned_payment_on_its_pair(
        world: World) -> None:
    """Bob owes Ann 30 and Eve owes Bob 10: the plan is Bob pays Ann 20, Eve
    pays Ann 10 (a transfer; a debt is written "Bob → Ann 30").  Eve's payment
    to Ann is booked on the Ann-Eve pair only (both confirm); Bob's balances
    stay his, and the plan that is left still holds."""
    club, ann, bob, eve = club_of_three(world)
    await book(world, club, ann, bob, 30)
    await book(world, club, bob, eve, 10)
    text = await command(world, club, eve, "/ledger")
    plan_part = text.split("Settle-up plan", 1)[1]
    assert "Bob → Ann 30" in text.split("Settle-up plan", 1)[0]  # the debts
    assert "\nBob pays Ann 20\nEve pays Ann 10\n" in plan_part, plan_part
    sent = await world.send(club, eve, "/settle")
    menu = await world.reply(club, sent, "with whom")
    labels = [text for text, _ in world.buttons(menu)]
    assert "Eve → Bob 10" in labels and "📋 Eve pays Ann 10" in labels
    refused = await world.tap(club, ann, menu, text="📋 Eve pays Ann 10")
    assert refused.show_alert  # only Eve chooses her own request
    await world.tap(club, eve, menu, text="📋 Eve pays Ann 10")
    prompt = world.server.message(club.id, menu.message_id)
    assert "Ann, confirm that it was paid?" in prompt.content
    for intruder in (bob, eve):
        assert (await world.tap(club, intruder, prompt, text="✅ Settled")).show_alert
    await world.tap(club, ann, prompt, text="✅ Settled")
    assert "Booked: Eve pays Ann 10." in world.server.message(club.id, menu.message_id).content
    assert await world.store.ledger.balance(club.id, ann.id, eve.id) == -10  # Ann's pair with Eve
    assert await world.store.ledger.balance(club.id, ann.id, bob.id) == 30  # untouched
    assert await world.store.ledger.balance(club.id, bob.id, eve.id) == 10  # untouched
    text = await command(world, club, bob, "/ledger")
    assert text.split("Settle-up plan", 1)[1].count(" pays ") == 1 and "Bob pays Ann 20" in text


async def test_a_planned_payment_is_not_booked_when_its_pair_changed(world: World) -> None:
    club, ann, bob, eve = club_of_three(world)
    await book(world, club, ann, bob, 30)
    await book(world, club, bob, eve, 10)
    sent = await world.send(club, eve, "/settle")
    menu = await world.reply(club, sent, "with whom")
    await world.tap(club, eve, menu, text="📋 Eve pays Ann 10")
    await book(world, club, ann, eve, 5, thread=9)  # a game between them ends meanwhile
    await world.tap(club, ann, menu, text="✅ Settled")
    assert "changed" in world.server.message(club.id, menu.message_id).content
    assert await world.store.ledger.balance(club.id, ann.id, eve.id) == 5
    assert await world.store.ledger.balance(club.id, ann.id, bob.id) == 30


async def _two_plan_menus(world: World) -> tuple[Chat, User, User, User, Message, Message]:
    """Issue 21's ledger: Bob → Ann 10, Ann → Eve 10, so the plan is "Bob pays
    Eve 10"; Bob sends /settle twice (two requests from the same ledger)."""
    club, ann, bob, eve = club_of_three(world)
    await book(world, club, ann, bob, 10)
    await book(world, club, eve, ann, 10)
    menus = []
    for _ in range(2):
        sent = await world.send(club, bob, "/settle")
        menus.append(await world.reply(club, sent, "with whom"))
    return club, ann, bob, eve, menus[0], menus[1]


async def _nets(world: World, chat: Chat) -> dict[int, int]:
    return {uid: net for uid, net in nets(await world.store.ledger.ledger(chat.id)).items() if net}


async def test_a_planned_payment_from_an_older_request_is_not_booked_twice(
        world: World) -> None:
    """Issue 21, item 1, as reported: the first request books the plan's
    payment; the older second one, picked afterwards, must not book it again
    (it made "Eve → Bob 20" out of nothing)."""
    club, _ann, bob, eve, first, second = await _two_plan_menus(world)
    await world.tap(club, bob, first, text="📋 Bob pays Eve 10")
    await world.tap(club, eve, first, text="✅ Settled")
    assert "Booked: Bob pays Eve 10." in world.server.message(club.id, first.message_id).content
    assert await _nets(world, club) == {}  # everyone is square
    refused = await world.tap(club, bob, second, text="📋 Bob pays Eve 10")
    assert refused.show_alert and "no longer in the settle-up plan" in (refused.text or "")
    shown = world.server.message(club.id, second.message_id)
    assert "no longer in the settle-up plan" in shown.content and not shown.buttons
    assert await _nets(world, club) == {}
    assert await world.store.ledger.balance(club.id, bob.id, eve.id) == 10  # booked once


async def test_a_planned_payment_confirmed_twice_in_a_race_is_booked_once(
        world: World) -> None:
    """Both requests picked before either is confirmed: the second confirmation
    is refused inside the store's one script, with an alert, buttons removed."""
    club, _ann, bob, eve, first, second = await _two_plan_menus(world)
    for menu in (first, second):
        await world.tap(club, bob, menu, text="📋 Bob pays Eve 10")
    await world.tap(club, eve, first, text="✅ Settled")
    refused = await world.tap(club, eve, second, text="✅ Settled")
    assert refused.show_alert
    assert not world.server.message(club.id, second.message_id).buttons
    assert await _nets(world, club) == {}
    assert await world.store.ledger.balance(club.id, bob.id, eve.id) == 10


async def test_the_store_refuses_a_planned_payment_the_ledger_no_longer_owes(
        store: Store) -> None:
    """The class fix itself, below the handlers: a request whose pair balance
    is current but whose payment the nets no longer owe is refused by the
    settle script (the compare-and-set), and dropped."""
    ann, bob, eve = 1, 2, 3
    await store.redis.hset(store.keys.chat(CHAT, "ledger"), mapping={"2:3": 10})  # Eve → Bob
    request = SettleRequest(chat_id=CHAT, requester=bob, other=eve, amount=10, change=10,
                            names={ann: "Ann", bob: "Bob", eve: "Eve"})
    await store.ledger.put_settle(request)
    with pytest.raises(PlanChanged):
        await store.ledger.settle(request)
    assert await store.ledger.ledger(CHAT) == {(2, 3): 10}
    assert await store.ledger.load_settle(CHAT, request.request_id) is None


async def test_a_paid_plan_leaves_nobody_owing_on_the_ledger(world: World) -> None:
    """Issue 37: Bob → Ann 10, Ann → Eve 10; the plan's "Bob pays Eve 10" is
    booked on the Bob-Eve pair, which left the circle Bob → Ann, Ann → Eve,
    Eve → Bob on /ledger when everybody was square."""
    club, ann, bob, eve = club_of_three(world)
    await book(world, club, ann, bob, 10)
    await book(world, club, eve, ann, 10)
    sent = await world.send(club, bob, "/settle")
    menu = await world.reply(club, sent, "with whom")
    await world.tap(club, bob, menu, text="📋 Bob pays Eve 10")
    await world.tap(club, eve, world.server.message(club.id, menu.message_id),
                    text="✅ Settled")
    assert await world.store.ledger.balance(club.id, bob.id, eve.id) != 0  # booked on its pair
    text = await command(world, club, ann, "/ledger")
    assert "Nobody owes anybody here." in text and "→" not in text, text
