"""After a game: a new lobby, the offer of the next game of a match or of a
rematch, and ending a match between two of its games.
"""

from __future__ import annotations

from bot.rules.cancelling import cancel_vote
from bot.rules.dice import Dealer, committed, with_tap
from bot.rules.lobby import new_lobby
from bot.rules.matchstate import MatchState, engine_dict, match_in_progress, table_of
from bot.rules.play import advanced
from bot.rules.seats import seat_of
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_
from bot.vocab.records import GameRecord, Status, computer_level
from bot.vocab.refusals import MATCH_IN_PROGRESS, NOT_PLAYING, PROPOSED, STALE, Refusal
from bot.vocab.tournament import is_tournament_game
from engine.game import Game

IN_TOURNAMENT = N_("A tournament game is followed by the tournament's next round, not by a "
                   "rematch or a new game: /standings shows it.")


def after_game(record: GameRecord, user_id: int, data: Callback, dealer: Dealer
               ) -> GameRecord:
    """The record after a button of a finished (or cancelled) game.

    A new lobby (New game: anyone, not in a private game and not between
    two games of a match), or a step of the offer of the next game: the
    next game of the match, or a rematch of the same two players.  One
    player offers (Rematch / Next game), the other accepts or declines, the
    offerer may withdraw; the game starts only when both have tapped, so a
    staked or timed game never starts on one player's tap.  Between two
    games of a match the players may also answer a proposal to end the
    match (``/cancel``).  The boards in private chats stay the game's views.
    """
    if record.status not in (Status.FINISHED, Status.CANCELLED) or record.next_game is not None:
        raise Refusal(STALE)  # (continued by a later game already: its buttons are gone)
    action = data.action
    if is_tournament_game(record.game_id) and (action is ButtonAction.NEW or (
            action is ButtonAction.REMATCH and table_of(record).match_over)):
        raise Refusal(IN_TOURNAMENT)   # its buttons say 📋 Standings; an old or forged tap
    if action is ButtonAction.NEW:
        if record.is_private:
            raise Refusal(STALE)  # no chat to open a lobby in; the button is not offered
        if match_in_progress(record):
            raise Refusal(MATCH_IN_PROGRESS)
        return new_lobby(record.chat_id, record.thread_id, record.variant, record.options,
                         user_id, dealer).model_copy(update={"board_message_id": None})
    if seat_of(record, user_id) is None:
        raise Refusal(NOT_PLAYING)
    if record.status is Status.CANCELLED:
        raise Refusal(STALE)
    if action in (ButtonAction.CANCEL, ButtonAction.KEEP):
        if not match_in_progress(record) or record.cancel_by is None:
            raise Refusal(STALE)
        if action is ButtonAction.CANCEL:
            return cancel_vote(record, user_id)
        return record.model_copy(update={"cancel_by": None})
    offerer = record.rematch_by
    if action is ButtonAction.REMATCH and offerer is None:
        # a rematch is a new match: its seed is committed with the offer
        fresh = committed(dealer) if table_of(record).match_over else None
        return record.model_copy(update={"rematch_by": user_id, "next_dice": fresh})
    if offerer is None or action not in (ButtonAction.REMATCH, ButtonAction.ACCEPT,
                                         ButtonAction.DECLINE, ButtonAction.WITHDRAW):
        raise Refusal(STALE)
    if action is ButtonAction.WITHDRAW:
        if offerer != user_id:
            raise Refusal(N_("Only the player who made the offer can withdraw it."))
        return record.model_copy(update={"rematch_by": None, "next_dice": None})
    if offerer == user_id:
        raise Refusal(PROPOSED)
    if action is ButtonAction.DECLINE:
        return record.model_copy(update={"rematch_by": None, "next_dice": None})
    return _following(record, dealer)  # the other player accepts (or offered the same)


def _following(record: GameRecord, dealer: Dealer) -> GameRecord:
    """The next game of the match (the match's dice, the next game number),
    or a rematch: a new match with the seed committed on the offer and the
    accepting tap's entropy."""
    table = table_of(record)
    if table.match_over and any(computer_level(p.user_id) is not None for p in record.players):
        # against the computer nobody's accepting tap is the person's: the rematch
        # waits for their ▶ Start, the seed committed on it (bot/rules/computer.py)
        return GameRecord(chat_id=record.chat_id, thread_id=record.thread_id,
                          variant=record.variant, options=record.options,
                          players=record.players, created_by=record.created_by,
                          views=record.views, dice=record.next_dice or committed(dealer))
    if table.match_over:
        following = MatchState(Game.new(table.game.options))
        state = with_tap(record.next_dice or committed(dealer), dealer.tap_id,
                         refused=dealer.refused)
    else:
        following = table.next_game()
        state = record.dice if record.dice is not None else committed(dealer)
    new = GameRecord(chat_id=record.chat_id, thread_id=record.thread_id, variant=record.variant,
                     options=record.options, players=record.players, status=Status.ACTIVE,
                     engine={}, created_by=record.created_by, views=record.views, dice=state,
                     inline_message_id=record.inline_message_id,  # an inline game stays there
                     board_photo=record.board_photo and record.is_inline)
    return new.model_copy(update={"engine": engine_dict(advanced(following, new))})


def continued(old: GameRecord, new: GameRecord, now: float) -> GameRecord:
    """``old`` once ``new`` continues it (the match's next game, a rematch, a
    new lobby from its board): the two are saved together
    (:func:`bot.service.saving.save_first`).  ``old`` keeps its result and its
    board; its offers end, and its boards in private chats are ``new``'s."""
    return old.model_copy(update={
        "next_game": new.game_id, "rematch_by": None, "cancel_by": None, "next_dice": None,
        "views": () if new.views else old.views, "updated_at": now})
