"""Play rules: the record after a game button, or a :class:`Refusal`.

Pure: :func:`apply_game` takes the stored record, the tapping user and the
button's :class:`Callback` and returns the next record (the record itself
for a keyboard-only button); nothing is written (bot/service/saving.py saves
it with one compare-and-set on the version the button was drawn for).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from bot.rules.autoplay import advance, double_offered, undo
from bot.rules.cancelling import cancel_vote
from bot.rules.dice import Dealer, committed
from bot.rules.dice import roll as fair_roll
from bot.rules.matchstate import MatchState, table_of, with_table
from bot.rules.seats import seat_of
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_
from bot.vocab.records import GameRecord, Status, computer_level
from bot.vocab.refusals import NOT_PLAYING, NOT_YOUR_TURN, STALE, THEIR_BUTTONS, Refusal
from engine.choices import TurnChoice, turn_choices
from engine.game import Game, Phase
from engine.position import EngineError, Position, Side, Step
from engine.scoring import ResultKind, resign_kinds
from engine.turns import Turn


def roll_table(record: GameRecord, table: MatchState) -> Game:
    """The one roll of the bot: the table's game rolled with the match's fair
    dice (a record from before fair dice gets its seed now)."""
    state = record.dice if record.dice is not None else committed(Dealer())
    return fair_roll(table.game, state, table.number)


def advanced(table: MatchState, record: GameRecord) -> MatchState:
    """``table`` with its game advanced to the next choice (the record's autoplay
    option; every roll with the match's fair dice, :func:`roll_table`)."""
    game = advance(table.game, lambda g: roll_table(record, dataclasses.replace(table, game=g)),
                   autoplay=record.options.autoplay, score=table.score,
                   judge=judges_doubles(record))
    return table if game is table.game else dataclasses.replace(table, game=game)


def judges_doubles(record: GameRecord) -> bool:
    """Whether the bot may leave out **Double** for a money player clearly
    behind (:func:`bot.rules.autoplay.clearly_behind`): with autoplay on,
    staked or not.  Such a double is a mistake whatever the stake, and a
    Roll tap is one group message a turn (issue 35; before it, staked games
    were never judged, and cost a Roll tap on most turns).  Purists turn
    autoplay off and are asked whenever the rules allow."""
    return record.options.autoplay


def may_double(record: GameRecord, table: MatchState) -> bool:
    """Whether the player on roll is offered **Double** now
    (:func:`bot.rules.autoplay.double_offered`: allowed, the cube not dead at
    the match score, and not clearly behind when :func:`judges_doubles`)."""
    return double_offered(table.game, table.score, judge=judges_doubles(record))


def may_beaver(game: Game) -> bool:
    """Whether the player answering a double is offered **Beaver** now: the
    engine's rule (beavers on, not a beaver already, the cube's limit), the one
    place both the chat's keyboard and the app ask (issue 34: the app offered it
    whenever beavers were on, and a second one was refused)."""
    cube, actor = game.cube, game.to_act
    return (game.phase is Phase.DOUBLE and cube is not None and actor is not None
            and cube.why_not_beaver(actor) is None)


def needs_double_confirmation(record: GameRecord) -> bool:
    """A double in a staked game is money: it asks once more, as Pass does."""
    return record.options.stake_per_point > 0


def needs_resign_confirmation(record: GameRecord) -> bool:
    """A resignation in a staked game is money too: **Resign** asks once more,
    saying what it costs (:func:`resign_cost`); the second tap (``RESIGN_SURE``)
    offers it."""
    return record.options.stake_per_point > 0


def resign_cost(record: GameRecord, side: Side, level: int) -> tuple[GameRecord, ResultKind]:
    """The record as ``side``'s resignation at ``level`` would end it once
    accepted (its :func:`bot.rules.ledger.outcome` says who pays whom how
    much: the kind's multiplier, the cube, the match), and the kind."""
    table = table_of(record)
    kinds = resign_options(table)
    if not 1 <= level <= len(kinds):
        raise Refusal(STALE)
    kind = kinds[level - 1]
    return played(record, table, lambda g: g.offer_resignation(side, kind)
                  .accept_resignation(side.opponent)), kind


UI_ONLY = frozenset({ButtonAction.SOURCE, ButtonAction.BACK, ButtonAction.MENU, ButtonAction.PASS})
"""Buttons that only redraw the keyboard for the tapper; no record change."""


def ui_only(record: GameRecord, action: ButtonAction) -> bool:
    """Whether ``action`` only redraws the keyboard of this record (Double
    asks to confirm in a staked game, see :func:`needs_double_confirmation`)."""
    return action in UI_ONLY or (action is ButtonAction.DOUBLE
                                 and needs_double_confirmation(record)) or (
        action is ButtonAction.RESIGN and needs_resign_confirmation(record))
ANSWERS = frozenset({ButtonAction.ACCEPT, ButtonAction.DECLINE, ButtonAction.TAKE,
                     ButtonAction.PASS, ButtonAction.PASS_SURE})
"""Answers to an offer: :func:`_answering` says who gives them."""
MENU_ACTIONS = frozenset({ButtonAction.MENU, ButtonAction.BACK, ButtonAction.SOURCE,
                          ButtonAction.RESIGN, ButtonAction.RESIGN_SURE, ButtonAction.CANCEL})


def confirms_turns(record: GameRecord, setting: str = "never") -> bool:
    """Whether a completed turn waits for Confirm in this game, by the
    chat's ``setting`` (``confirm_turns``: ``never``, the default: a Confirm
    would be one group message a turn more, issue 35; ``staked``: in staked
    games; ``always``).  Against the computer always: it answers at once, so
    a turn handed over could never be taken back."""
    if any(computer_level(p.user_id) is not None for p in record.players):
        return True
    if setting == "staked":
        return record.options.stake_per_point > 0
    return setting == "always"


def apply_game(record: GameRecord, user_id: int, data: Callback, *,
               own_board: bool = False, confirm: bool = True) -> GameRecord:
    """The record after a game button; ``record`` itself for keyboard-only buttons.

    A change is followed by everything nobody chooses (the next roll when
    it is the only choice, forced turns with the autoplay option): see
    :func:`bot.rules.autoplay.advance`.

    The chat's board is shared: its buttons belong to the player the game
    waits for, and the other player's taps on them (even the menu, whose
    state is the keyboard everybody sees) are refused; only the answers to
    a cancel proposal are either player's.  ``own_board``: the tap is on a
    player's own board (a view in their private chat), where the waiting
    player may open the menu and resign or propose to cancel.

    ``confirm`` (:func:`confirms_turns`): a whole-turn button waits for
    Confirm; without it the turn is confirmed at once and handed over, the
    opponent's roll left to their first tap so that nobody sees it while the
    mover may still take the turn back (Undo: ``takeback_by``).

    Raises :class:`Refusal` for anything not allowed to this user now.
    """
    return _followed(record, _apply_game(record, user_id, data, own_board=own_board,
                                         confirm=confirm))


def apply_turn(record: GameRecord, user_id: int, steps: Sequence[Step]) -> GameRecord:
    """The record after the mover plays ``steps`` and confirms them: a whole turn
    sent at once (the Mini App, bot/edge/webapp.py).  The refusals are a tap's:
    the turn is checked as the first step's tap would be, then each step must be
    legal where it is played and the turn complete after the last."""
    # the first step's tap (Confirm's, for no steps) refuses as a tap would: the game
    # over, not playing, not your turn, not moving now; its record is not kept
    probe = (Callback.game(record.game_id, record.version, ButtonAction.STEP, steps[0].source,
                           steps[0].target, steps[0].die) if steps else
             Callback.game(record.game_id, record.version, ButtonAction.CONFIRM))
    _apply_game(record, user_id, probe, own_board=False)
    table = table_of(record)
    if table.game.phase is not Phase.MOVE:
        raise Refusal(STALE)

    def whole(game: Game) -> Game:
        for step in steps:
            if step not in game.legal_steps:
                raise Refusal(STALE)
            game = game.play_step(step)
        if game.turn is None or not game.turn.is_complete:
            raise Refusal(N_("The turn is not complete yet."))
        return game.confirm()

    return _followed(record, played(record, table, whole))


def _followed(record: GameRecord, new: GameRecord) -> GameRecord:
    """``new`` advanced to the next choice (:func:`advanced`), unless unchanged or over."""
    if new is record or new.status is not Status.ACTIVE or new.takeback_by is not None:
        return new
    table = table_of(new)
    following = advanced(table, new)
    if following is table:
        return new
    return played(new, table, lambda _: following.game)


def _apply_game(record: GameRecord, user_id: int, data: Callback, *,
                own_board: bool, confirm: bool = True) -> GameRecord:
    if record.status is not Status.ACTIVE:
        raise Refusal(N_("This game is over."))
    side = seat_of(record, user_id)
    if side is None:
        raise Refusal(NOT_PLAYING)
    table = table_of(record)
    game = table.game
    action = data.action
    if action is ButtonAction.KEEP:
        if record.cancel_by is None:
            return record
        return record.model_copy(update={"cancel_by": None})
    if action is ButtonAction.CANCEL and record.cancel_by is not None:
        return cancel_vote(record, user_id)  # agreeing: the proposer's opponent
    if action is ButtonAction.UNDO and record.takeback_by is not None:
        if record.takeback_by != user_id:
            raise Refusal(N_("Only the player who moved takes the turn back."))
        return played(record, table, lambda g: g.take_back_turn())
    if not own_board and action not in ANSWERS and game.to_act is not side:
        raise Refusal(THEIR_BUTTONS if action in MENU_ACTIONS else NOT_YOUR_TURN)
    if action is ButtonAction.CANCEL:
        return cancel_vote(record, user_id)
    if action in (ButtonAction.RESIGN, ButtonAction.RESIGN_SURE):
        kinds = resign_options(table)
        if not 1 <= data.args[0] <= len(kinds):
            raise Refusal(STALE)
        if game.phase not in (Phase.ROLL, Phase.MOVE):
            raise Refusal(N_("Answer the pending offer first."))
        if action is ButtonAction.RESIGN and needs_resign_confirmation(record):
            return record  # the keyboard asks "Yes, resign", with its cost
        if action is ButtonAction.RESIGN_SURE and not needs_resign_confirmation(record):
            raise Refusal(STALE)
        return played(record, table, lambda g: g.offer_resignation(side, kinds[data.args[0] - 1]))
    if action in (ButtonAction.ACCEPT, ButtonAction.DECLINE):
        _answering(game, side, Phase.RESIGNATION)
        if action is ButtonAction.ACCEPT:
            return played(record, table, lambda g: g.accept_resignation(side))
        return played(record, table, lambda g: g.decline_resignation(side))
    if action in (ButtonAction.TAKE, ButtonAction.PASS, ButtonAction.PASS_SURE,
                  ButtonAction.BEAVER):
        _answering(game, side, Phase.DOUBLE)
        if action is ButtonAction.TAKE:
            return played(record, table, lambda g: g.take(side))
        if action is ButtonAction.BEAVER:
            return played(record, table, lambda g: g.beaver(side))
        if action is ButtonAction.PASS:
            return record
        return played(record, table, lambda g: g.pass_(side))
    if action is ButtonAction.MENU:
        return record
    if action is ButtonAction.BACK:
        if game.phase is Phase.DOUBLE:
            _answering(game, side, Phase.DOUBLE)
        return record  # out of the menu or a source point: only the tapper's keyboard
    if game.to_act is not side:
        raise Refusal(NOT_YOUR_TURN)
    if action in (ButtonAction.ROLL, ButtonAction.DOUBLE, ButtonAction.DOUBLE_SURE):
        if game.phase is not Phase.ROLL:
            raise Refusal(STALE)
        if action is ButtonAction.ROLL:
            return played(record, table, lambda g: roll_table(record, table),
                         notify_message_id=None)
        if not may_double(record, table):
            raise Refusal(N_("You cannot double now."))
        if action is ButtonAction.DOUBLE and needs_double_confirmation(record):
            return record  # the keyboard asks "Yes, double"
        if action is ButtonAction.DOUBLE_SURE and not needs_double_confirmation(record):
            raise Refusal(STALE)
        return played(record, table, lambda g: g.double(side))
    if game.phase is not Phase.MOVE:
        raise Refusal(STALE)
    if action is ButtonAction.SOURCE:
        if not any(s.source == data.args[0] for s in game.legal_steps):
            raise Refusal(STALE)
        return record
    if action is ButtonAction.STEP:
        try:
            step = Step(*data.args)
        except EngineError:
            raise Refusal(STALE) from None
        if step not in game.legal_steps:
            raise Refusal(STALE)
        new = played(record, table, lambda g: _stepped(g, step, autoplay=record.options.autoplay))
        return new if confirm else _handed_over(new, user_id)
    if action is ButtonAction.TURN:
        new = played(record, table, lambda g: _whole_turn(g, data.args[0]))
        return new if confirm else _handed_over(new, user_id)
    if action is ButtonAction.UNDO:
        if game.turn is None or not game.turn.played:
            raise Refusal(STALE)
        return played(record, table, lambda g: undo(g, autoplay=record.options.autoplay))
    if action is ButtonAction.CONFIRM:
        if game.turn is None or not game.turn.is_complete:
            raise Refusal(N_("The turn is not complete yet."))
        return played(record, table, lambda g: g.confirm())
    raise Refusal(STALE)


WHOLE_TURNS = 30
"""Up to this many distinct results of a roll are offered as whole-turn buttons:
a turn in one tap is one group message where steps cost two or more (issue
35; 12 reached 46% of long nardy turns, 30 reach 84%, and backgammon's 58%
become 89%), within Telegram's 100 buttons (15 rows of two, beside at most
26 step or point buttons, tests/bot/rules/test_pace.py)."""
RUNS = 4
"""When a roll has more results, up to this many of its runs (one checker
moved by the whole roll) are offered as whole-turn buttons."""


def offered_turns(game: Game) -> tuple[TurnChoice, ...]:
    """The whole turns offered as one-tap buttons.  At a turn's start, in
    :func:`engine.choices.turn_choices` order: every result when the roll
    has 2..:data:`WHOLE_TURNS`, else its first :data:`RUNS` runs (one
    checker carried by every die: ``24/13``, the shortcut of a board app's
    double tap; a long nardy turn is most often a step and its finish, two
    group messages, where a run is one).  After some steps (a double's four
    steps, or a roll with many results), every distinct way to finish it
    from there, in the order of their texts (each a whole turn from its
    start: the steps played, then the rest).  A button carries its index;
    none otherwise."""
    turn = game.turn
    if game.phase is not Phase.MOVE or turn is None or turn.is_complete:
        return ()
    if turn.played:
        choices = _finishes(game)
        return choices if 2 <= len(choices) <= WHOLE_TURNS else ()
    choices = turn_choices(turn.start, turn.dice)
    if len(choices) <= WHOLE_TURNS:
        return choices if len(choices) >= 2 else ()
    return tuple(c for c in choices if _is_run(c.steps))[:RUNS]


def _is_run(steps: Sequence[Step]) -> bool:
    """One checker carried by every step of the turn."""
    return len(steps) >= 2 and all(b.source == a.target for a, b in pairwise(steps))


def _finishes(game: Game) -> tuple[TurnChoice, ...]:
    """The distinct ends of the turn in progress, walked with the engine's own
    legal steps (the turn's rules hold: the dice to use, the head's limit);
    ``()`` as soon as there are more than :data:`WHOLE_TURNS`."""
    turn = game.turn
    assert turn is not None
    played = tuple(turn.played)
    ends: dict[Position, tuple[Step, ...]] = {}
    seen: set[tuple[Position, int]] = set()

    def walk(at: Game, rest: tuple[Step, ...]) -> bool:
        now = at.turn
        assert now is not None
        if now.is_complete:
            ends.setdefault(now.position, rest)
            return len(ends) <= WHOLE_TURNS
        for step in sorted(at.legal_steps, key=lambda s: (s.source, s.target, s.die)):
            after = at.play_step(step)
            assert after.turn is not None
            key = (after.turn.position, len(after.turn.played))
            if key in seen and not after.turn.is_complete:
                continue  # reached already (the same dice in another order)
            seen.add(key)
            if not walk(after, (*rest, step)):
                return False
        return True

    if not walk(game, ()):
        return ()
    choices = [TurnChoice(turn.start, Turn(played + rest, position))
               for position, rest in ends.items()]
    return tuple(sorted(choices, key=lambda c: c.notation()))


def _stepped(game: Game, step: Step, *, autoplay: bool) -> Game:
    """``game`` after the mover's ``step`` and, with ``autoplay``, the rest of
    the turn when only one way to finish it is left (as
    :func:`bot.rules.autoplay.advance` plays it): the tap's one board edit
    then shows the turn done (handed over without Confirm, issue 35)."""
    game = game.play_step(step)
    turn = game.turn
    if autoplay and turn is not None and not turn.is_complete and turn.forced_steps:
        for rest in turn.forced_steps:
            game = game.play_step(rest)
    return game


def _handed_over(record: GameRecord, user_id: int) -> GameRecord:
    """Without Confirm, a completed turn (a whole-turn button, or the step
    that completes it) is handed over at once, so the tap costs the group one
    board edit (issues 24 and 35).  Where the opponent's next roll is no
    choice (long nardy; backgammon when no double is offered,
    :func:`bot.rules.autoplay.double_offered`) it is made at once by
    :func:`_followed` and shown on that same edit: the roll confirms the
    turn, which can no longer be taken back (the mover has seen the
    opponent's dice, and a turn replayed knowing them, or a roll thrown
    again, would not be fair).  Where it is a tap of theirs (Roll or
    Double), the mover may take the turn back with one tap until then
    (``takeback_by``), nobody having seen that roll."""
    table = table_of(record)
    turn = table.game.turn
    if record.status is not Status.ACTIVE or turn is None or not turn.is_complete:
        return record
    confirmed = played(record, table, lambda g: g.confirm())
    if confirmed.status is not Status.ACTIVE:
        return confirmed
    after = table_of(confirmed)
    if advanced(after, confirmed) is not after:  # the roll is made by itself: it confirms
        return confirmed
    return confirmed.model_copy(update={"takeback_by": user_id})


def _whole_turn(game: Game, index: int) -> Game:
    """Play the steps of the offered whole turn ``index`` (the turn waits at Confirm)."""
    offered = offered_turns(game)
    if not 0 <= index < len(offered):
        raise Refusal(STALE)
    assert game.turn is not None
    for step in offered[index].steps[len(game.turn.played):]:  # the steps not played yet
        game = game.play_step(step)
    return game


_ANSWERS = {
    Phase.DOUBLE: N_("Only the doubled player answers the double."),
    Phase.RESIGNATION: N_("Only the opponent answers a resignation offer."),
}


def _answering(game: Game, side: Side, phase: Phase) -> None:
    """Refuse unless the game waits for ``side``'s answer to an offer of ``phase``."""
    if game.phase is not phase:
        raise Refusal(STALE)
    if game.to_act is not side:
        raise Refusal(_ANSWERS[phase])


def played(record: GameRecord, table: MatchState, step: Any, **changes: Any) -> GameRecord:
    try:
        game = step(table.game)
    except EngineError:
        raise Refusal(STALE) from None
    new = dataclasses.replace(table, game=game)
    if game.is_over:
        new = new.scored()
        changes.setdefault("status", Status.FINISHED)
    return with_table(record, new, cancel_by=None, takeback_by=None, **changes)


def resign_options(table: MatchState) -> list[ResultKind]:
    return list(resign_kinds(table.game.variant, koks=table.game.options.koks))
