"""The board message: the board (picture or text), its status lines and the
result, and the keyboard it carries (:func:`bot.present.keyboards.game_keyboard`);
the ping that tells a player it is their turn.  The lobby's message is
:mod:`bot.present.lobby`, the names of things :mod:`bot.present.names`,
money in words :mod:`bot.present.ledger`.

The board message is shared by both players.  It is a picture with the
status as its caption, or (the chat's ``/settings``) a text board.  It is
drawn from the point of view of the side the game waits for (its points
numbered 1..24 from its home, as it moves), or of a fixed side; the move
buttons print the numbers the board shows to that viewer.  The status lines
always say whose turn it is and the dice; the caption of a picture also
gives pips, cube and score in words (a photo caption holds 1024 characters,
so it stays short), the text board shows them itself.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from telegram import InlineKeyboardMarkup

from bot.present.dice import (
    commitment_lines,
    luck_line,
)
from bot.present.keyboards import game_keyboard, verify_keyboard
from bot.present.ledger import booked_line
from bot.present.lobby import dice_lines, options_line
from bot.present.names import (
    KIND_NAMES,
    MARKS,
    board_labels,
    mention,
    move_by,
    side_name,
    utc_time,
    variant_name,
)
from bot.present.render import (
    BoardView,
    LastTurn,
    render_png,
    render_text,
)
from bot.rules.matchstate import MatchState, table_of
from bot.rules.seats import player_on, seat_of, waiting_side
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status, computer_level
from bot.vocab.tournament import is_tournament_game
from bot.vocab.usertext import (
    CAPTION_LIMIT,
    TEXT_LIMIT,
    clean,
    fit_lines,
    html_text,
    visible_length,
)
from engine.choices import forced_turn
from engine.game import Action, Event, Game, Phase
from engine.match import starter_of
from engine.notation import format_turn
from engine.position import Dice, Position, Side, Variant
from engine.scoring import EndReason
from engine.turns import apply_step, end_turn

CLOSED_BY_TOURNAMENT = N_("The tournament game was closed: it is decided by forfeit (or its "
                          "tournament was cancelled), and nothing of it is booked.")
"""A tournament game is closed only by its tournament: a withdrawal's or a
no-show's forfeit, a cancelled tournament, or a cancel that counts as a
double forfeit (bot/service/tournament.py ``result_of``)."""

PICTURE, TEXT = "png", "text"
"""Board styles (``ChatSettings.board_style``)."""


FIXED = {"white": Side.WHITE, "black": Side.BLACK}
"""``ChatSettings.orientation`` values that fix the side drawn at the bottom;
anything else ("follow") draws the game's first mover at the bottom."""


def viewer_of(game: Game, orientation: str = "follow") -> Side:
    """The side drawn at the bottom, the same for the whole game (checkers
    must not jump): a fixed side, else the side that moves first (White
    until the opening roll decides)."""
    if orientation in FIXED:
        return FIXED[orientation]
    if game.starter is not None:
        return game.starter
    return game.opening.starter if game.opening is not None else Side.WHITE


def numbering_of(game: Game, viewer: Side) -> Side:
    """The side whose point numbers the board prints: whoever must act
    (their buttons use the same numbers), else the bottom side."""
    return game.to_act if game.to_act is not None else viewer


def board_view(tr: Translator, record: GameRecord, table: MatchState, viewer: Side, *,
               own: bool = False) -> BoardView:
    """The picture of ``record``'s game with ``viewer`` at the bottom,
    numbered for the side to act (``own``: the viewer's own board, in their
    private chat, always numbered for the viewer, its one reader), the steps
    of the turn in progress marked."""
    game = table.game
    names = (clean(player_on(record, Side.WHITE).name), clean(player_on(record, Side.BLACK).name))
    cube = game.cube
    # however the game ended (borne off, resigned, passed, on time, cancelled)
    over = game.is_over or record.status in (Status.FINISHED, Status.CANCELLED)
    played = tuple(game.turn.played) if game.turn is not None else ()
    return BoardView(
        game.position, viewer, names=names, dice=game.dice,
        used=tuple(step.die for step in played),
        cube=cube.value if cube is not None else None,
        cube_owner=cube.owner if cube is not None else None,
        score=table.score if table.match_length else None,
        match_length=table.match_length or None, last_turn=last_turn(game),
        labels=board_labels(tr),
        numbering=viewer if over or own else numbering_of(game, viewer),
        to_act=game.to_act, current=played, over=over,
    )


def last_turn(game: Game) -> LastTurn | None:
    """The last confirmed turn with the position it started from (so hits
    show) and the roll it played."""
    index = next((i for i in range(len(game.events) - 1, -1, -1)
                  if game.events[i].action is Action.MOVE), None)
    if index is None or game.last_start is None:
        return None
    last = game.events[index]
    return LastTurn(last.side, last.steps, game.last_start, roll_of(game, index))


def roll_of(game: Game, index: int) -> Dice | None:
    """The roll that the turn ``game.events[index]`` (a MOVE) played: its
    side's last ROLL before it (the opening's dice in backgammon are one)."""
    side = game.events[index].side
    for event in reversed(game.events[:index]):
        if event.action is Action.ROLL and event.side is side:
            return event.dice
        if event.action is Action.MOVE:
            return None
    return None


def _dice_text(game: Game) -> str:
    dice = game.dice
    return f"{dice.first}-{dice.second}" if dice is not None else ""


def _opening_line(tr: Translator, record: GameRecord, game: Game,
                  told: Sequence[LastTurn] = (), computer: Side | None = None) -> str | None:
    """The opening roll, until a person has chosen a turn: before the first
    turn, and above the ``told`` turns when the bot played each of them
    (forced, or the ``computer`` side's: the opening and those turns were
    made by themselves, so the group has not seen them yet; issue 35)."""
    if game.opening is None or any(_chosen(t) and t.side is not computer for t in told) or (
            not told and any(e.action is Action.MOVE for e in game.events)):
        return None
    rolls = game.opening.rolls
    white, black = rolls[-1]
    line = tr.gettext("Opening roll: {white} {w}, {black} {b}.",
                      white=side_name(record, Side.WHITE), w=white,
                      black=side_name(record, Side.BLACK), b=black)
    if len(rolls) > 1:
        ties = ", ".join(f"{a}-{b}" for a, b in rolls[:-1])
        line += " " + tr.gettext("(Ties rolled again: {ties}.)", ties=ties)
    return line + " " + tr.gettext("{name} starts.", name=side_name(record, game.opening.starter))


def told_turns(game: Game, computer: Side | None = None) -> list[LastTurn]:
    """The confirmed turns the board tells, oldest first: the last turn a
    person chose on a board and every turn after it, which the bot played
    (forced turns, bot/rules/autoplay.py, and the ``computer`` side's turns),
    so nobody saw them on a board; all of them when nobody has chosen yet.
    Usually just the last turn; a replay of the game's turns only when that
    one was the bot's."""
    last = last_turn(game)
    if last is None:
        return []
    if _chosen(last) and last.side is not computer:
        return [last]
    told: list[LastTurn] = []
    for turn in reversed(_turns(game)):
        told.append(turn)
        if _chosen(turn) and turn.side is not computer:
            break
    return told[::-1]


def _chosen(turn: LastTurn) -> bool:
    """Whether the player had a choice in ``turn`` (its roll allowed two results)."""
    assert turn.start is not None
    return turn.dice is not None and not _was_forced(turn.start, turn.dice)


def _turns(game: Game) -> tuple[LastTurn, ...]:
    """Every confirmed turn of ``game`` with the position it started from
    (replayed from the initial position, as the export does) and its roll."""
    return _replayed(game.variant, starter_of(game) or Side.WHITE, tuple(game.events))


@functools.lru_cache(maxsize=64)
def _replayed(variant: Variant, starter: Side, events: tuple[Event, ...]
              ) -> tuple[LastTurn, ...]:
    """:func:`_turns`, kept: a game's boards are drawn several times a change
    (each name length tried, each player's view), and a replay of a long
    game costs tens of milliseconds."""
    turns: list[LastTurn] = []
    position = Position.initial(variant, starter)
    rolled: dict[Side, Dice | None] = {}
    for event in events:
        if event.action is Action.ROLL:
            rolled[event.side] = event.dice
        if event.action is not Action.MOVE:
            continue
        turns.append(LastTurn(event.side, event.steps, position, rolled.get(event.side)))
        rolled = {}  # a roll is the next turn's only (as roll_of reads it)
        for step in event.steps:
            position = apply_step(position, step)
        if position.winner is None:
            position = end_turn(position)
    return tuple(turns)


def _turn_line(tr: Translator, record: GameRecord, game: Game, last: LastTurn,
               numbering: Side | None = None) -> str:
    """What a player did in the confirmed turn ``last``, with its roll (in
    the numbers of ``numbering``, the side the board is numbered for, saying
    whose they are when they are not the mover's; the board's words for bar
    and off), or a roll that could not be played."""
    assert last.start is not None
    roll = last.dice
    dice = f"{roll.first}-{roll.second}" if roll is not None else ""
    if not last.steps:
        return tr.gettext("{name} rolled {dice} and cannot move.",
                          name=side_name(record, last.side), dice=dice)
    labels = board_labels(tr)
    if numbering is None:  # (not `numbering or …`: White is side 0)
        numbering = numbering_of(game, viewer_of(game))
    steps = format_turn(last.start, last.steps, numbering=numbering, bar=labels.bar,
                        off=labels.off)
    if numbering is not last.side:  # says so: backgammon books count from the mover
        steps += " " + tr.gettext("({name}'s numbers, as on the board)",
                                  name=side_name(record, numbering))
    if roll is not None and _was_forced(last.start, roll):
        # played by itself (bot/rules/autoplay.py), or by hand without a choice
        return tr.gettext("{name}'s turn with {dice} was forced: {steps}",
                          name=side_name(record, last.side), dice=dice, steps=steps)
    return tr.gettext("{name} played {dice}: {steps}", name=side_name(record, last.side), dice=dice,
                      steps=steps)


def _history_lines(tr: Translator, record: GameRecord, game: Game,
                   numbering: Side | None = None) -> list[str]:
    """The opening roll and the turns played since the last board a player
    acted on (:func:`told_turns`), one line each, oldest first."""
    computer = next((p.side for p in record.players if computer_level(p.user_id) is not None),
                    None)
    told = told_turns(game, computer)
    opening = _opening_line(tr, record, game, told, computer)
    return ([opening] if opening else []) + [
        _turn_line(tr, record, game, turn, numbering) for turn in told]


@functools.lru_cache(maxsize=1024)
def _was_forced(start: Position, roll: Dice) -> bool:
    """Whether ``roll`` left no choice from ``start``: a turn search, and the
    same answer for every board drawn until the next turn is confirmed (each
    step, each player's view), so the answers (a flag each) are kept."""
    return forced_turn(start, roll) is not None


def result_line(tr: Translator, record: GameRecord, game: Game) -> str:
    result = game.result
    assert result is not None
    kind = tr.gettext(KIND_NAMES[result.kind])
    points = tr.ngettext("{n} point", "{n} points", result.points, n=result.points)
    name = side_name(record, result.winner)
    if result.reason is EndReason.RESIGNED:
        return tr.gettext("{name} wins by resignation: {kind}, {points}.", name=name, kind=kind,
                          points=points)
    if result.reason is EndReason.DOUBLE_PASSED:
        return tr.gettext("{name} wins: the double was passed, {points}.", name=name,
                          points=points)
    if result.reason is EndReason.TIMEOUT:
        return tr.gettext("{name} wins on time: {points}.", name=name, points=points)
    return tr.gettext("{name} wins: {kind}, {points}.", name=name, kind=kind, points=points)


def _status_lines(tr: Translator, record: GameRecord, table: MatchState, ui: ButtonAction | None,
                  numbering: Side | None = None) -> list[str]:
    game = table.game
    lines = _history_lines(tr, record, game, numbering)
    phase = game.phase
    if phase is Phase.OVER:
        lines.append("🏁 " + result_line(tr, record, game))
        if table.match_length:
            white, black = table.score
            lines.append(tr.gettext("Match to {n}: {white} {w} – {black} {b}.",
                                    n=table.match_length, white=side_name(record, Side.WHITE),
                                    w=white, black=side_name(record, Side.BLACK), b=black))
            if table.match_over:
                lines.append(tr.gettext("{name} wins the match!",
                                        name=side_name(record, game.result.winner)))  # type: ignore[union-attr]
        booked = booked_line(tr, record)
        if booked:
            lines.append("💰 " + booked)
        return lines + _after_lines(tr, record, table)
    actor = game.to_act
    assert actor is not None
    name = side_name(record, actor)
    if phase is Phase.ROLL:
        lines.append("➡ " + tr.gettext("{name} to roll.", name=name))
        if ui is ButtonAction.DOUBLE and game.cube is not None:
            lines.append(tr.gettext("Offer a double to {value}? Are you sure?",
                                    value=game.cube.value * 2))
    elif phase is Phase.MOVE:
        lines.append("➡ " + tr.gettext("{name} to move: {dice}.", name=name, dice=_dice_text(game)))
    elif phase is Phase.DOUBLE:
        assert game.cube is not None
        if game.cube.beavered:  # the doubler answers the beaver
            lines.append(tr.gettext("{name} beavers and keeps the cube.",
                                    name=side_name(record, actor.opponent)))
        lines.append("➡ " + tr.gettext("{name}, you are doubled to {value}: take or pass?",
                                       name=name, value=game.cube.value * 2))
        if ui is ButtonAction.PASS:
            lines.append(tr.gettext("Passing ends the game. Are you sure?"))
    elif phase is Phase.RESIGNATION:
        offer = game.resign_offer
        assert offer is not None
        lines.append("➡ " + tr.gettext(
            "{who} offers to resign ({kind}). {name}: accept or decline?",
            who=side_name(record, offer.side), name=name, kind=tr.gettext(KIND_NAMES[offer.kind])))
    if record.cancel_by is not None:  # only the answer to it may be given now (issue 37):
        # the game's turn is no longer "➡", the proposal is
        lines = [line.removeprefix("➡ ") for line in lines]
        proposer = next(p for p in record.players if p.user_id == record.cancel_by)
        other = next((p for p in record.players if p.user_id != record.cancel_by), None)
        lines.append("➡ " + tr.gettext(
            "{name} proposes to cancel the game. {other}: accept or decline?",
            name=html_text(proposer.name), other=html_text(other.name))
            if other is not None else tr.gettext("{name} proposes to cancel the game.",
                                                 name=html_text(proposer.name)))
    return lines


def _after_lines(tr: Translator, record: GameRecord, table: MatchState) -> list[str]:
    """The offer of the next game and a proposal to end the match, after a game."""
    lines = []
    offerer = seat_of(record, record.rematch_by) if record.rematch_by is not None else None
    if offerer is not None:
        name, other = side_name(record, offerer), side_name(record, offerer.opponent)
        lines.append("➡ " + (
            tr.gettext("{name} offers a rematch. {other}: accept or decline?", name=name,
                       other=other) if table.match_over else
            tr.gettext("{name} offers the next game. {other}: accept or decline?", name=name,
                       other=other)))
    proposer = seat_of(record, record.cancel_by) if record.cancel_by is not None else None
    if proposer is not None:
        lines.append(tr.gettext("{name} proposes to end the match; nothing is booked.",
                                name=side_name(record, proposer)))
    return lines


@dataclass(frozen=True)
class BoardMessage:
    """What the board message shows: its text (the caption of a picture),
    its keyboard, and for a picture board its ``photo``: the PNG, or ``b""``
    while it is not drawn yet (``picture`` is then the view to draw, see
    :func:`painted`) and when the picture stays as posted."""

    text: str
    markup: InlineKeyboardMarkup | None
    photo: bytes | None = None
    picture: BoardView | None = None


def painted(message: BoardMessage, photo: bytes | None = None) -> BoardMessage:
    """``message`` with its picture drawn: ``photo`` if the caller painted it
    elsewhere, else here and now."""
    if message.picture is None:
        return message
    return dataclasses.replace(message, photo=photo if photo is not None
                               else render_png(message.picture), picture=None)


def _facts_line(tr: Translator, record: GameRecord, table: MatchState) -> str:
    """Pips, cube and match score in words, for the caption of a picture."""
    game = table.game

    def both(values: tuple[int, int] | list[int]) -> dict[str, str]:
        return {"white": f"{MARKS[Side.WHITE]} {values[0]}",
                "black": f"{MARKS[Side.BLACK]} {values[1]}"}

    parts = [tr.gettext("Pips: {white} – {black}",
                        **both([game.position.pips(side) for side in Side]))]
    cube = game.cube
    if cube is not None and not game.is_over:
        parts.append(tr.gettext("cube {value}", value=cube.value) if cube.owner is None else
                     tr.gettext("cube {value} ({name})", value=cube.value,
                                name=side_name(record, cube.owner)))
    if table.match_length and not game.is_over:
        parts.append(tr.gettext("score {white} – {black}, match to {n}", n=table.match_length,
                                **both(table.score)))
    return " · ".join(parts)


def _deadline_line(tr: Translator, record: GameRecord) -> str | None:
    """The clock: the deadline of the player to move, time up, or paused."""
    if record.status is not Status.ACTIVE:
        return None
    lines = []
    if record.paused_at is not None:
        lines.append("⏸ " + tr.gettext("The clock is paused."))
    elif record.deadline is not None:
        when = utc_time(record.deadline)
        if record.deadline <= clock.now():
            lines.append("⌛ " + tr.gettext("Time ran out at {time} UTC.", time=when))
        else:
            lines.append("⏰ " + move_by(tr, record.deadline))
    if record.pause_by is not None and any(p.user_id == record.pause_by for p in record.players):
        name = html_text(next(p.name for p in record.players if p.user_id == record.pause_by))
        lines.append(tr.gettext("{name} proposes to resume the clock.", name=name)
                     if record.paused_at is not None else
                     tr.gettext("{name} proposes to pause the clock.", name=name))
    return "\n".join(lines) or None


LIVE_IN_APP = N_("Played live in the board app: tap {app} to watch.")
"""The group board's line while both players play in the Mini App (issue 34): the
watchers learn where the game is played, and which button shows it."""


def _live_line(tr: Translator, record: GameRecord, game: Game) -> str | None:
    """:data:`LIVE_IN_APP` for a game still being played (never on its final board);
    the button named as this board's keyboard reads it (the same translator)."""
    if record.status is not Status.ACTIVE or game.is_over:
        return None
    return "📱 " + tr.naming(LIVE_IN_APP, tr)


def board_message(tr: Translator, record: GameRecord, *, style: str = PICTURE,
                  orientation: str = "follow", ui: ButtonAction | None = None,
                  source: int | None = None, player: Side | None = None,
                  picture: bool = True, live: bool = False) -> BoardMessage:
    """The board message of an active or finished game and its keyboard.

    ``style`` is ``"png"`` (a picture, the status in its caption) or
    ``"text"``; ``orientation`` is ``"follow"``, ``"white"`` or ``"black"``
    (see :func:`viewer_of`).  ``ui`` is a keyboard-only state the tapper
    asked for (the menu, a source point, a pass to confirm).  ``player``:
    the board is one player's own (a view in their private chat), drawn
    from their side, with the game's buttons only while the game waits
    for them (else just the menu).  ``picture=False``: the caption and
    keyboard of a picture board whose picture stays as it is (a keyboard-only
    redraw).  The picture is not drawn here (it costs ~5 ms): ``picture`` is
    the view to draw (:func:`painted`, or :mod:`bot.present.painter` off the loop).
    ``live``: both players play it in the Mini App now (bot/edge/boardpace.py): the
    group board says so while the game goes on (:data:`LIVE_IN_APP`).
    """
    for cut in NAME_CUTS:  # long names are shortened before any line is dropped
        message, lines, drop_order = _board_message(
            tr, _short_names(record, cut), style=style, orientation=orientation, ui=ui,
            source=source, player=player, picture=picture, live=live)
        limit = CAPTION_LIMIT if message.photo is not None else TEXT_LIMIT
        if visible_length(message.text) <= limit:
            return message
    return dataclasses.replace(message, text=fit_lines(lines, limit, drop_order))


NAME_CUTS = (64, 24, 12)
"""Name lengths tried, longest first, until a board message fits Telegram's limit."""


LINE_BREAK = "\n"


def _short_names(record: GameRecord, limit: int) -> GameRecord:
    players = tuple(p.model_copy(update={"name": clean(p.name, limit)}) for p in record.players)
    return record.model_copy(update={"players": players})


def _board_message(tr: Translator, record: GameRecord, *, style: str, orientation: str,
                   ui: ButtonAction | None, source: int | None, player: Side | None,
                   picture: bool, live: bool = False
                   ) -> tuple[BoardMessage, list[str], list[int]]:
    """:func:`board_message` before it is fitted to Telegram's limit, its
    lines (each balanced HTML: the ``<pre>`` text board is one) and the
    indexes of those that may be dropped, least needed first."""
    table = table_of(record)
    game = table.game
    seen_from = player if player is not None else viewer_of(game, orientation)
    view = board_view(tr, record, table, seen_from, own=player is not None)
    white, black = side_name(record, Side.WHITE), side_name(record, Side.BLACK)
    title = escape(variant_name(tr, record.variant))
    header = f"<b>{title}</b> · {MARKS[Side.WHITE]} {white} – {MARKS[Side.BLACK]} {black}"
    extra = options_line(tr, record)
    lines = [header] + ([escape(extra)] if extra else [])
    # the least needed lines first: the options (the lobby showed them), the
    # facts (the picture shows them), the opening or the turn before
    drop_order = [1] if extra else []
    photo = b"" if style == PICTURE else None
    to_draw = view if picture and photo is not None else None
    if photo is None:
        lines.append(f"<pre>{escape(render_text(view))}</pre>")
    if record.status is Status.CANCELLED:  # the seed revealed, and its check (docs/fair-dice.md)
        lines += [tr.gettext(CLOSED_BY_TOURNAMENT if is_tournament_game(record.game_id)
                             else "The game was cancelled."), *commitment_lines(tr, record)]
        return (BoardMessage(LINE_BREAK.join(lines), verify_keyboard(tr, record), photo, to_draw),
                lines, drop_order)
    status = _status_lines(tr, record, table, ui, view.numbered_for)
    told = len(_history_lines(tr, record, game, view.numbered_for))
    told = min(told, len(status) - 1)  # the line of whose turn it is always stays
    history = list(range(len(lines), len(lines) + told))
    lines += status
    if game.is_over:
        lines.append(luck_line(tr, record))
    dice = dice_lines(tr, record)
    drop_order += range(len(lines), len(lines) + len(dice))
    lines += dice
    if photo is not None:
        drop_order.append(len(lines))
        lines.append(_facts_line(tr, record, table))
    drop_order += history  # the oldest turn told first
    deadline = _deadline_line(tr, record)
    if deadline:
        lines.append(deadline)
    live_line = _live_line(tr, record, game) if live else None
    if live_line:  # the first dropped: the 📱 button stays without it
        drop_order.insert(0, len(lines))
        lines.append(live_line)
    markup = game_keyboard(tr, record, table, ui=ui, source=source, viewer=view.numbered_for,
                           player=player)
    return BoardMessage(LINE_BREAK.join(lines), markup, photo, to_draw), lines, drop_order


def notification(tr: Translator, record: GameRecord) -> str | None:
    """The short message that pings the player the game now waits for."""
    actor = waiting_side(record)
    if actor is None:
        return None
    player = player_on(record, actor)
    who = mention(player.user_id, player.name)
    table = table_of(record)
    game = table.game
    if record.status is not Status.ACTIVE:  # an offer of the next game
        if table.match_over:
            return tr.gettext("{who}, your opponent offers a rematch.", who=who)
        return tr.gettext("{who}, your opponent offers the next game of the match.", who=who)
    if game.phase is Phase.DOUBLE:
        return tr.gettext("{who}, you are doubled: take or pass?", who=who)
    if game.phase is Phase.RESIGNATION:
        return tr.gettext("{who}, your opponent offers to resign.", who=who)
    return tr.gettext("{who}, your turn.", who=who)
