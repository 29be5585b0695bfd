"""A group with three players and booked games, for the tests of the ledger's
commands (/stake, /ledger, /history), /settle and the ratings (/stats, /top)."""

from __future__ import annotations

from bot.rules.ledger import Outcome, booking, updated_stats
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from engine.position import Side, Variant
from engine.scoring import EndReason, GameResult, ResultKind
from tests.bot.conftest import World
from tests.botapi.model import Chat, User


def club_of_three(world: World) -> tuple[Chat, User, User, User]:
    s = world.server
    ann, bob, eve = s.add_user("Ann"), s.add_user("Bob"), s.add_user("Eve")
    club = s.add_group("Club", members=[bob, eve], admins=[ann])
    return club, ann, bob, eve


async def command(world: World, chat: Chat, user: User, text: str, **kw: object) -> str:
    sent = await world.send(chat, user, text, **kw)
    return (await world.reply(chat, sent)).content


async def book(world: World, chat: Chat, winner: User, loser: User, amount: int,
               thread: int | None = None) -> None:
    """A finished game in the chat, booked the way the bot books it."""
    players = (Player(user_id=winner.id, name=winner.first_name, side=Side.WHITE),
               Player(user_id=loser.id, name=loser.first_name, side=Side.BLACK))
    record = await world.store.games.save(GameRecord(
        chat_id=chat.id, thread_id=thread, variant=Variant.LONG, players=players,
        status=Status.ACTIVE, options=TableOptions(stake_per_point=amount)), 0)
    result = GameResult(Side.WHITE, ResultKind.OIN, EndReason.RESIGNED)
    outcome = Outcome(record.game_id, Variant.LONG, players, result, amount, thread_id=thread)
    entry, ledger = booking(outcome)
    done = record.model_copy(update={"status": Status.FINISHED})
    await world.store.ledger.finish_game(done, record.version, entry, ledger,
                                        lambda current: updated_stats(outcome, current))
