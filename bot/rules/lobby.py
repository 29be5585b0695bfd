"""Lobby rules: a new lobby, joining, leaving, its variant, closing it, and the
game that starts when two players are seated.
"""

from __future__ import annotations

from bot.rules.cancelling import TOURNAMENT_GAME
from bot.rules.dice import JOIN_LABEL, START_LABEL, Dealer, committed, with_tap
from bot.rules.matchstate import MatchState, with_table
from bot.rules.options import OptionError, engine_options
from bot.rules.play import advanced
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import NOT_PLAYING, STALE, Refusal
from bot.vocab.tournament import is_tournament_game
from engine.game import Game
from engine.position import Side, Variant

VARIANTS = (Variant.LONG, Variant.BACKGAMMON)
"""Variant order of the lobby buttons (the callback carries the index)."""


def new_lobby(chat_id: int, thread_id: int | None, variant: Variant, options: TableOptions,
              creator: int, dealer: Dealer) -> GameRecord:
    """A lobby, committed to its dice seed before anyone sees it (bot/rules/dice.py)."""
    engine_options(variant, options)  # refuse bad combinations before posting anything
    return GameRecord(chat_id=chat_id, thread_id=thread_id, variant=variant, options=options,
                      created_by=creator, dice=committed(dealer))


def start_game(record: GameRecord, dealer: Dealer, label: str = JOIN_LABEL) -> GameRecord:
    """Two players are seated: fix the dice's entropy with the starting tap
    (its id under ``label``), make the game, roll the opening and play on to
    the first choice (:func:`bot.rules.autoplay.advance`).

    A chat's lobby seated by a tap on it (``tg.join``: the second player's
    Join, 🤖 Play the bot) is the message that keeps the dice's whole
    commitment, posted before that tap: it is never edited into the game,
    whose board is posted as a message of its own (no board message yet)
    (docs/fair-dice.md)."""
    state = with_tap(record.dice if record.dice is not None else committed(dealer),
                     dealer.tap_id, label, dealer.refused)
    update: dict[str, object] = {"dice": state}
    if label == JOIN_LABEL and not record.is_inline:
        update |= {"board_message_id": None, "board_photo": False}
    record = record.model_copy(update=update)
    table = MatchState(Game.new(engine_options(record.variant, record.options)))
    return with_table(record, advanced(table, record), status=Status.ACTIVE)


def awaits_start(record: GameRecord) -> bool:
    """A game whose seats are taken (a person and the computer, the two
    players of an invitation or of an inline game) and whose dice are
    committed on its message, waiting for a player's ▶ Start: that tap's id,
    which the bot cannot know when it commits, is the dice's entropy
    (docs/fair-dice.md)."""
    return record.status is Status.LOBBY and len(record.players) == 2


def start_seated(record: GameRecord, user_id: int, dealer: Dealer) -> GameRecord:
    """A seated player's ▶ Start: the tap's id mixed in (``tg.start``), the opening rolled."""
    if not awaits_start(record):
        raise Refusal(STALE)
    if not any(p.user_id == user_id for p in record.players):
        raise Refusal(NOT_PLAYING)
    return start_game(record, dealer, START_LABEL)


def apply_lobby(record: GameRecord, user_id: int, name: str, data: Callback,
                dealer: Dealer) -> GameRecord:
    if record.status is not Status.LOBBY:
        raise Refusal(STALE)
    seated = any(p.user_id == user_id for p in record.players)
    if data.action is ButtonAction.JOIN:
        if seated:
            raise Refusal(N_("You have joined already; waiting for a second player."))
        side = Side(len(record.players))
        players = (*record.players, Player(user_id=user_id, name=name[:64], side=side))
        joined = record.model_copy(update={"players": players, "updated_at": clock.now()})
        # an inline game waits for ▶ Start: its second player's Join is the first
        # moment the bot knows them, so the commitment reaches them (their private
        # chat, 🎲 Verify) before a tap of theirs is mixed in (docs/fair-dice.md)
        starts = len(players) == 2 and not record.is_inline
        return start_game(joined, dealer) if starts else joined
    if data.action is ButtonAction.LEAVE:
        if not seated:
            raise Refusal(N_("You have not joined this game."))
        players = tuple(p for p in record.players if p.user_id != user_id)
        players = tuple(p.model_copy(update={"side": Side(i)}) for i, p in enumerate(players))
        return record.model_copy(update={"players": players})
    if data.action is ButtonAction.VARIANT:
        if not seated and user_id != record.created_by:
            raise Refusal(N_("Only the players or whoever opened the lobby may change it."))
        if data.args[0] >= len(VARIANTS):
            raise Refusal(STALE)
        variant = VARIANTS[data.args[0]]
        if variant is record.variant:
            return record
        try:
            engine_options(variant, record.options)
        except OptionError as error:
            raise Refusal(error.message, **error.values) from None
        # whoever joined joined the other game: they join again if they want this one
        kept = tuple(p.model_copy(update={"side": Side.WHITE})
                     for p in record.players if p.user_id == user_id)
        return record.model_copy(update={"variant": variant, "players": kept})
    if data.action is ButtonAction.DROP:
        if is_tournament_game(record.game_id):
            raise Refusal(TOURNAMENT_GAME)
        if not seated and user_id != record.created_by:
            raise Refusal(N_("Only the players or whoever opened the lobby may close it."))
        return record.model_copy(update={"status": Status.CANCELLED})
    raise Refusal(STALE)
