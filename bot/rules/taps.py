"""A tap on a lobby or game board: which board may be tapped, and which rule
answers the button (:mod:`bot.rules.lobby`, :mod:`bot.rules.play`,
:mod:`bot.rules.aftergame`, or the computer sitting down).
"""

from __future__ import annotations

import dataclasses

from bot.rules import computer
from bot.rules.aftergame import after_game
from bot.rules.dice import Dealer
from bot.rules.lobby import apply_lobby, awaits_start, start_seated
from bot.rules.play import apply_game, ui_only
from bot.vocab.callbacks import ButtonAction, Callback, Kind
from bot.vocab.records import BoardViewRef, GameRecord, Status
from bot.vocab.refusals import CATCHING_UP, LOBBY_STARTED, RESIGN_MOVED, STALE, Refusal

REPAIR_GRACE = 1.0
"""Seconds after a change during which a refused tap leaves the boards to the
handler of that change (its redraw is on its way)."""


def settling(record: GameRecord, now: float) -> bool:
    """Whether ``record`` changed within :data:`REPAIR_GRACE` of ``now``, so a
    refused tap leaves its boards to the handler of that change rather than
    redrawing (posting) them a second time beside it.  ``now`` and the stamp
    come from one clock, :func:`bot.vocab.clock.now` (a test's offset moves
    both); a stamp a little ahead (another worker's clock) is recent too."""
    return abs(now - record.updated_at) < REPAIR_GRACE


def tapped_view(record: GameRecord, chat_id: int, message_id: int, *, in_view: bool,
                inline_message_id: str | None = None) -> BoardViewRef | None:
    """The player's view tapped (``in_view``: the message is a board in a private
    chat), else None for the chat's board (or an inline game's message: the tap
    names only its ``inline_message_id``); :class:`Refusal` for a message that
    is not (any more) one of the game's boards."""
    if inline_message_id is not None or (record.is_inline and not in_view):
        if record.inline_message_id != inline_message_id:
            raise Refusal(STALE)
        return None
    if in_view:
        view = next((v for v in record.views if (v.chat_id, v.message_id) == (chat_id, message_id)),
                    None)
        if view is None:
            raise Refusal(STALE)
        return view
    if record.board_message_id is not None and message_id != record.board_message_id:
        raise Refusal(STALE)
    return None


def off_the_lobby(record: GameRecord, data: Callback, message_id: int) -> None:
    """:class:`Refusal` (:data:`LOBBY_STARTED`) for a lobby button tapped on a
    chat's lobby message after its game started: the message keeps the dice's
    commitment and is never edited, buttons included (docs/fair-dice.md), so
    the tapper is told where the game is instead of "out of date"."""
    if data.kind is Kind.LOBBY and record.status is not Status.LOBBY \
            and not record.is_inline and message_id != record.board_message_id:
        raise Refusal(LOBBY_STARTED)


SAME_MEANING = frozenset({
    (Kind.LOBBY, ButtonAction.JOIN), (Kind.LOBBY, ButtonAction.LEAVE),
    (Kind.GAME, ButtonAction.STEP), (Kind.GAME, ButtonAction.SOURCE),
    (Kind.GAME, ButtonAction.BACK),
})
"""Buttons whose data means the same thing in any later state of their game:
a step names its points and die, a source its point, Join and Leave their
lobby.  Whether such a tap is still legal is the rules' question.  The
others (a whole turn's index, Undo, Confirm, Roll, the cube, offers) are
answers to the state they were drawn for."""


def caught_up(record: GameRecord, data: Callback) -> Callback:
    """A tap drawn for an older version of the record, on one of its current
    boards (:func:`tapped_view` let it through): the board's redraw is on its
    way (the group's flood budget paces it), so the player did nothing wrong.
    Returns the tap re-aimed at the current version when its button means
    the same now (:data:`SAME_MEANING`; :func:`tap` then judges it as any
    other), else :class:`Refusal` (:data:`CATCHING_UP`), never "out of date".

    >>> from engine.position import Variant
    >>> game = GameRecord(chat_id=1, game_id="abcd", variant=Variant.LONG, version=7,
    ...                   status=Status.ACTIVE)
    >>> caught_up(game, Callback.game("abcd", 5, ButtonAction.STEP, 13, 10, 3)).version
    7
    >>> try:
    ...     caught_up(game, Callback.game("abcd", 5, ButtonAction.UNDO))
    ... except Refusal as refusal:
    ...     print(refusal.message == CATCHING_UP)
    True
    """
    if data.version == record.version:
        return data
    if data.kind is Kind.GAME and data.action is ButtonAction.RESIGN_SURE:
        raise Refusal(RESIGN_MOVED)  # its cost was the old board's
    expected = Kind.LOBBY if record.status is Status.LOBBY else Kind.GAME
    if data.kind is not expected or (data.kind, data.action) not in SAME_MEANING:
        raise Refusal(CATCHING_UP)
    return dataclasses.replace(data, version=record.version)


def tap(record: GameRecord, user_id: int, name: str, data: Callback, dealer: Dealer, *,
        own_board: bool, seat: computer.Seat | None = None, confirm: bool = True
        ) -> GameRecord:
    """The record a tap by ``user_id`` (called ``name``) makes: the same one for
    keyboard-only taps; :class:`Refusal` when nothing may change.  ``seat``:
    where the computer sits down on the lobby's 🤖 Play the bot (its level
    and name, :func:`bot.rules.computer.seat_for`); ``confirm``: a whole turn
    waits for Confirm (:func:`bot.rules.play.confirms_turns`)."""
    if data.kind is Kind.LOBBY:
        if data.action is ButtonAction.START:
            return start_seated(record, user_id, dealer)
        if awaits_start(record) and data.action is not ButtonAction.DROP:
            raise Refusal(STALE)  # its seats are taken: only Start or Close
        if data.action is ButtonAction.COMPUTER and record.is_inline:
            raise Refusal(STALE)  # not offered: the computer plays in the private chat
        if data.action is ButtonAction.COMPUTER:
            if seat is None:
                raise Refusal(STALE)  # pragma: no cover - the edge finds its seat first
            return computer.play_from_lobby(record, user_id, name, seat, dealer)
        return apply_lobby(record, user_id, name, data, dealer)
    if record.status is not Status.ACTIVE:  # the buttons after the end
        new = after_game(record, user_id, data, dealer)
        return new.model_copy(update={"board_message_id": record.board_message_id})
    new = apply_game(record, user_id, data, own_board=own_board, confirm=confirm)
    if new is record and not ui_only(record, data.action):
        raise Refusal(STALE)
    return new
