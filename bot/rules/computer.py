"""The computer opponent at the table: its seat, and what it does when a game waits for it.

Pure, like :mod:`bot.rules.play`: the computer acts by pressing the same
buttons a person presses (:class:`Callback` s through
:func:`bot.rules.play.apply_game` / :func:`~bot.rules.aftergame.after_game`
with its own user id), so every rule, the dice and the scoring are the ones
of a human tap, and its record goes through the same compare-and-set.

One step of the computer is :func:`next_move`: either the buttons to press
right away (roll without a cube decision, accept the next game, agree to a
cancel proposal) or a :class:`Question` for the brains (``ai/``), answered by
:func:`think` (slow: the edge layer runs it off the event loop) and turned
into buttons by :func:`buttons_for`.  :func:`press` applies the buttons.

What the computer does (docs/playing.md):

* it rolls, doubles, takes or passes, and plays its whole turn at once;
* it answers a resignation offer from its evaluation, and never offers to
  resign itself (it plays every game out: a person resigning is their call,
  a machine giving up early would only hide its mistakes);
* it never beavers; it accepts the next game of a match and a rematch;
* it agrees at once when its opponent proposes to cancel (nothing is at
  stake in a game against it).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from ai import CubeState, Level, make_player
from ai.player import Player as Brain
from bot.rules.aftergame import after_game
from bot.rules.dice import Dealer
from bot.rules.hints import TOP, HintQuestion, Ranked
from bot.rules.lobby import start_game
from bot.rules.matchstate import MatchState, match_in_progress, table_of
from bot.rules.options import AUTO, computer_fields
from bot.rules.play import apply_game, may_double
from bot.rules.seats import waiting_user
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import (
    COMPUTER_USER_IDS,
    AutoStanding,
    GameRecord,
    Player,
    Status,
    TableOptions,
)
from bot.vocab.records import computer_level as record_level
from bot.vocab.refusals import STALE, Refusal
from engine.game import Phase
from engine.position import Dice, Position, Side, Step, Variant
from engine.scoring import ResultKind

LEVELS = tuple(Level)
DEFAULT_LEVEL = Level.MEDIUM
DEFAULT_CHOICE = DEFAULT_LEVEL.value
"""``/new long bot`` and the lobby's button: the middle level."""
LEVEL_NAMES = {Level.EASY: N_("easy"), Level.MEDIUM: N_("medium"), Level.STRONG: N_("strong"),
               Level.BEST: N_("best")}
BOT_NAME = N_("🤖 Nardy bot ({level})")
"""The computer's name at the table, in the language of the chat it sat down in."""
AUTO_NAME = N_("auto: {level}")
"""The level in :data:`BOT_NAME` of a game at ``level=auto``: "🤖 Nardy bot (auto: strong)"."""
SOMEONE_WAITS = N_("Someone is waiting for a second player here: tap {join} to play them.")
NOT_YOUR_LOBBY = N_("This lobby is not yours: only whoever opened it may play the bot here. "
                    "Tap {join} to play them, or send /new bot for a game of your own.")
PLAYING_THE_BOT = N_("You are playing the bot here already ({count} at once at most): finish "
                     "that game or /cancel it first.")
IDLE_DEFAULT = 7 * 24 * 3600
"""Seconds a game against the computer may wait for its person before it
ends, unrated and unbooked (``COMPUTER_IDLE_DAYS``, bot/edge/config.py): it
holds one of the chat's games at once (``MAX_CHAT_GAMES``) meanwhile."""
PER_PERSON_DEFAULT = 1
"""Games against the computer one person may play at once in a chat or topic
(``COMPUTER_GAMES_PER_PERSON``), as a person may have one lobby open there."""


AUTO_STEP = 0.5
"""How far one game moves ``level=auto`` along its ladder: two wins in a
row (or two losses) move it a whole level."""
AUTO_START = 1.0
"""Where a person starts on ``level=auto``'s ladder: medium, the default."""
AUTO_MARGIN = 2.0
"""Levels' worth of rungs beyond each end of the ladder (they play easy
below, best above): a staircase that hit its end would stay put on a loss
at easy (a win at best), which would leave the person's result short of
even (a person who beats easy 55% of the time would win 44% with no
margin, 48% with it: the simulation in tests/bot/rules/test_computer_rules.py)."""
AUTO_FLOOR = -AUTO_MARGIN
AUTO_TOP = len(LEVELS) + AUTO_MARGIN - AUTO_STEP


def auto_rung(rung: float, person_won: bool) -> float:
    """``level=auto`` after a game: a step up the ladder when the person won,
    a step down when they lost, within :data:`AUTO_FLOOR` ..
    :data:`AUTO_TOP`.

    Equal steps make a staircase: where the person wins more than half the
    games against a level the rung climbs, where less it falls, so it
    settles between the two levels that bracket an even result, and as its
    steps up and down even out, so do the person's wins and losses.

    >>> auto_rung(AUTO_START, True), auto_rung(AUTO_FLOOR, False), auto_rung(AUTO_TOP, True)
    (1.5, -2.0, 5.5)
    """
    moved = rung + (AUTO_STEP if person_won else -AUTO_STEP)
    return min(max(moved, AUTO_FLOOR), AUTO_TOP)


def auto_level(rung: float) -> Level:
    """The level ``level=auto`` plays at from ``rung`` (two rungs a level;
    easy below the ladder, best above it).

    >>> [auto_level(r).value for r in (-2.0, 0.5, 1.0, 2.5, 3.5, 5.5)]
    ['easy', 'easy', 'medium', 'strong', 'best', 'best']
    """
    return LEVELS[min(max(math.floor(rung), 0), len(LEVELS) - 1)]


def auto_moved(standing: AutoStanding | None, user_id: int, variant: Variant,
               person_won: bool) -> AutoStanding:
    """``user_id``'s standing at auto in ``variant`` after a finished game at
    auto (``standing``: before it; None: their first), as bot/store/computer.py
    books it, once per game.

    >>> first = auto_moved(None, 7, Variant.LONG, False)
    >>> first.rung, first.games, first.wins, auto_level(first.rung).value
    (0.5, 1, 0, 'easy')
    >>> auto_moved(first, 7, Variant.LONG, True).rung
    1.0
    """
    before = standing or AutoStanding(user_id=user_id, variant=variant, rung=AUTO_START)
    return before.model_copy(update={"rung": auto_rung(before.rung, person_won),
                                     "games": before.games + 1,
                                     "wins": before.wins + person_won})


def auto_result(record: GameRecord) -> tuple[int, Variant, bool] | None:
    """What the end of ``record`` does to ``level=auto``: the person, the
    variant and whether the person won, for a game at auto that was played
    to its end (won, lost, resigned, passed); None for any other (a game
    between people or at a fixed level, a cancelled game, one never started).

    >>> from engine.position import Side
    >>> people = (Player(user_id=7, name="P", side=Side.WHITE),
    ...           Player(user_id=user_id(Level.EASY), name="bot", side=Side.BLACK))
    >>> auto_result(GameRecord(chat_id=1, variant=Variant.LONG, players=people,
    ...                        status=Status.CANCELLED, options=TableOptions(computer=AUTO)))
    """
    seat = computer_seat(record)
    if (record.options.computer != AUTO or seat is None or record.status is not Status.FINISHED
            or not record.engine):
        return None
    result = table_of(record).game.result
    person = next((p for p in record.players if p.user_id != seat.user_id), None)
    if result is None or person is None:
        return None
    return person.user_id, record.variant, person.side is result.winner


def level_for(choice: str, standing: AutoStanding | None) -> Level:
    """The level the computer plays at for a game asked at ``choice`` (a
    level's word, or :data:`AUTO`: the one the person's ``standing`` in the
    game's variant gives now; no standing yet: :data:`AUTO_START`).

    >>> level_for("strong", None).value, level_for(AUTO, None).value
    ('strong', 'medium')
    """
    if choice == AUTO:
        return auto_level(AUTO_START if standing is None else standing.rung)
    return Level(choice)


@dataclass(frozen=True)
class Seat:
    """Where the computer sits down: the level asked for (:attr:`choice`, a
    word of :data:`bot.rules.options.LEVEL_WORDS`, kept in the game's options),
    the level it plays at, and its name at the table."""

    choice: str
    level: Level
    name: str


def seat_for(tr: Translator, choice: str, standing: AutoStanding | None) -> Seat:
    """The computer's seat for a game asked at ``choice`` by a person whose
    standing at auto in its variant is ``standing``, named in ``tr``'s language
    (that of the board it sits at)."""
    level = level_for(choice, standing)
    return Seat(choice, level, bot_name(tr, level, choice))


def user_id(level: Level) -> int:
    """The computer's seat at ``level`` (a reserved, never a Telegram, user id)."""
    return COMPUTER_USER_IDS[level.value]


def level_of_user(uid: int) -> Level | None:
    level = record_level(uid)
    return None if level is None else Level(level)


def computer_seat(record: GameRecord) -> Player | None:
    """The computer's seat in ``record``, None in a game between people."""
    return next((p for p in record.players if record_level(p.user_id) is not None), None)


def computer_options(options: TableOptions, choice: str) -> TableOptions:
    """A game against the computer at ``choice`` (a level, or :data:`AUTO`):
    never staked, no clock (it never runs out of time, and nobody waits for
    a person against a machine), no beavers (it never beavers, and answers
    no beaver): each option's :attr:`~bot.rules.options.Option.computer` in
    the table.

    >>> computer_options(TableOptions(stake_per_point=5, beavers=True, jacoby=True),
    ...                  "easy").model_dump(include={"stake_per_point", "beavers", "jacoby"})
    {'stake_per_point': 0, 'jacoby': True, 'beavers': False}
    """
    return options.model_copy(update={**computer_fields(), "computer": choice})


def seat_computer(lobby: GameRecord, seat: Seat, person: Player,
                  dealer: Dealer | None = None) -> GameRecord:
    """``lobby`` with ``person`` and the computer seated (the person plays
    White, the first seat); started (the opening rolled) with ``dealer``'s
    tap, else waiting for the person's ▶ Start (:func:`awaits_start`).  A
    rematch waiting for its Start is seated again this way, at the level its
    choice gives now (bot/edge/handlers/computer.py)."""
    options = computer_options(lobby.options, seat.choice)
    players = (person.model_copy(update={"side": Side.WHITE}),
               Player(user_id=user_id(seat.level), name=seat.name, side=Side.BLACK))
    seated = lobby.model_copy(update={"players": players, "options": options})
    return seated if dealer is None else start_game(seated, dealer)


def bot_name(tr: Translator, level: Level, choice: str | None = None) -> str:
    """The computer's name at ``level``, asked for at ``choice`` (at auto it says so)."""
    named = tr.gettext(LEVEL_NAMES[level])
    if choice == AUTO:
        named = tr.gettext(AUTO_NAME, level=named)
    return tr.gettext(BOT_NAME, level=named)


def play_from_lobby(record: GameRecord, user_id: int, name: str, seat: Seat,
                    dealer: Dealer) -> GameRecord:
    """The lobby's "Play the bot": the tapper plays the computer, unless
    somebody else has joined and waits for a person.  Only whoever opened the
    lobby (or sits in it) may: anyone else would take away their lobby, and
    its stake (issue 21)."""
    if record.status is not Status.LOBBY:
        raise Refusal(STALE)
    if any(p.user_id != user_id for p in record.players):
        raise Refusal(SOMEONE_WAITS)
    if not record.players and user_id != record.created_by:
        raise Refusal(NOT_YOUR_LOBBY)
    return seat_computer(record, seat, Player(user_id=user_id, name=name[:64]), dealer)


def playing_the_bot(games: Sequence[GameRecord], user_id: int, limit: int,
                    but: str | None = None) -> None:
    """:class:`Refusal` when ``user_id`` already plays ``limit`` of ``games``
    (a chat's or topic's live games) against the computer (0: no limit),
    a lobby with the computer seated included (before its ▶ Start: four
    ``/new … bot`` filled a chat, issue 37); ``but``: the game asked about.
    The saving script checks it again, atomically (bot/store/layout.py)."""
    mine = [g for g in games if computer_seat(g) is not None and g.game_id != but
            and any(p.user_id == user_id for p in g.players)]
    if 0 < limit <= len(mine):
        raise Refusal(PLAYING_THE_BOT, count=limit)


def idle(record: GameRecord, now: float, idle_after: float) -> bool:
    """Whether a game against the computer has waited ``idle_after`` seconds
    for its person (0: never): its last change is that old."""
    return (idle_after > 0 and record.status is Status.ACTIVE
            and computer_seat(record) is not None and now - record.updated_at >= idle_after)


# ---------------------------------------------------------------- what it must decide


@dataclass(frozen=True)
class Question:
    """What the brains must answer (picklable: it may cross to a process).

    ``kind``: ``"move"`` (the answer: the steps of the turn), ``"double"``
    (offer a double before rolling?), ``"take"`` (take the double?) or
    ``"resign"`` (accept the offer to resign with ``offered``?)."""

    kind: str
    variant: Variant
    level: Level
    koks: bool
    position: Position
    me: Side
    dice: Dice | None = None
    cube: CubeState | None = None
    offered: ResultKind | None = None


Answer = bool | tuple[Step, ...]


def waiting_for_computer(record: GameRecord) -> bool:
    """Whether the record waits for the computer (its move, its answer, its
    yes to the next game or to a cancel proposal)."""
    seat = computer_seat(record)
    if seat is None:
        return False
    if record.status is Status.ACTIVE and record.cancel_by not in (None, seat.user_id):
        return True
    if record.status is Status.FINISHED and match_in_progress(record) \
            and record.cancel_by not in (None, seat.user_id):
        return True
    return waiting_user(record) == seat.user_id


def next_move(record: GameRecord) -> Question | tuple[Callback, ...] | None:
    """The computer's next step in ``record``: buttons to press now, a
    question for the brains, or None when the record does not wait for it."""
    if not waiting_for_computer(record):
        return None
    seat = computer_seat(record)
    assert seat is not None and seat.side is not None
    if record.cancel_by is not None and record.cancel_by != seat.user_id:
        return (_button(record, ButtonAction.CANCEL),)
    if record.status is not Status.ACTIVE:
        return (_button(record, ButtonAction.ACCEPT),)  # the next game, or a rematch
    level = level_of_user(seat.user_id)
    assert level is not None
    table = table_of(record)
    game = table.game
    me = seat.side
    ask = Question("move", game.variant, level, game.options.koks, game.turn_start, me)
    if game.phase is Phase.ROLL:
        if may_double(record, table):
            return dataclasses.replace(ask, kind="double", cube=cube_state(table))
        return (_button(record, ButtonAction.ROLL),)
    if game.phase is Phase.MOVE:
        assert game.turn is not None
        return dataclasses.replace(ask, dice=game.turn.dice)
    if game.phase is Phase.DOUBLE:
        return dataclasses.replace(ask, kind="take", cube=cube_state(table))
    if game.phase is Phase.RESIGNATION:
        assert game.resign_offer is not None
        return dataclasses.replace(ask, kind="resign", cube=cube_state(table),
                                   offered=game.resign_offer.kind)
    return None  # pragma: no cover - an active game waits for one of the above


def cube_state(table: MatchState) -> CubeState:
    """The brains' view of the cube (a pending double leaves it as it was)."""
    game = table.game
    cube = game.cube
    if cube is None:
        return CubeState(match_length=table.match_length, score=table.score)
    return CubeState(value=cube.value, owner=cube.owner, match_length=table.match_length,
                     score=table.score, crawford=game.crawford, jacoby=game.options.jacoby,
                     max_value=cube.max_value)


def buttons_for(record: GameRecord, question: Question, answer: Answer) -> tuple[Callback, ...]:
    """The buttons that carry out the brains' ``answer``."""
    if question.kind == "move":
        assert isinstance(answer, tuple)
        game = table_of(record).game
        played = len(game.turn.played) if game.turn is not None else 0
        undo = tuple(_button(record, ButtonAction.UNDO) for _ in range(played))
        steps = tuple(_button(record, ButtonAction.STEP, s.source, s.target, s.die) for s in answer)
        return (*undo, *steps, _button(record, ButtonAction.CONFIRM))
    yes, no = {"double": (ButtonAction.DOUBLE, ButtonAction.ROLL), "take": (ButtonAction.TAKE,
                                                                            ButtonAction.PASS_SURE),
               "resign": (ButtonAction.ACCEPT, ButtonAction.DECLINE)}[question.kind]
    return (_button(record, yes if answer else no),)


def press(record: GameRecord, buttons: Sequence[Callback], dealer: Dealer
          ) -> GameRecord:
    """The record after the computer pressed ``buttons`` (a :class:`Refusal`
    means the record moved on: the caller starts again from the stored one)."""
    seat = computer_seat(record)
    assert seat is not None
    for data in buttons:
        if data.action is ButtonAction.STEP and _turn_complete(record):
            continue  # the forced rest of the turn was played by itself (bot/rules/autoplay.py)
        if record.status is Status.ACTIVE:
            record = apply_game(record, seat.user_id, data)
        else:
            record = after_game(record, seat.user_id, data, dealer)
    return record


def _turn_complete(record: GameRecord) -> bool:
    turn = table_of(record).game.turn
    return turn is not None and turn.is_complete


def _button(record: GameRecord, action: ButtonAction, *args: int) -> Callback:
    return Callback.game(record.game_id, record.version, action, *args)


# ---------------------------------------------------------------- the brains


_BRAINS = threading.local()
"""The players made so far, per thread (a :class:`~ai.player.Player` keeps an
rng; each worker thread or process has its own)."""


def brain(variant: Variant, level: Level, koks: bool) -> Brain:
    made: dict[tuple[Variant, Level, bool], Brain] | None = getattr(_BRAINS, "made", None)
    if made is None:
        made = _BRAINS.made = {}
    key = (variant, level, koks)
    if key not in made:
        made[key] = make_player(variant, level, seed=0, koks=koks)
    return made[key]


def think(question: Question) -> Answer:
    """The brains' answer (slow: up to ~150 ms at the strong level)."""
    player = brain(question.variant, question.level, question.koks)
    if question.kind == "move":
        assert question.dice is not None
        return player.choose(question.position, question.dice).steps
    assert question.cube is not None
    if question.kind == "double":
        return player.should_double(question.position, question.cube)
    if question.kind == "take":
        return player.should_take(question.position, question.cube)
    assert question.offered is not None
    return player.accepts_resignation(question.position, question.me, question.offered,
                                      question.cube)


def best_turns(question: HintQuestion) -> tuple[Ranked, ...]:
    """A hint's turns: the best :data:`~bot.rules.hints.TOP` of the roll, best
    first, as the strong level ranks them for a hint (backgammon: its best
    few again at 2-ply; slow: up to a few hundred ms; the edge layer runs it
    in the computer's worker pool)."""
    player = brain(question.variant, Level.STRONG, question.koks)
    ranked = player.hint_ranked(question.position, question.dice)
    return tuple(Ranked(r.turn.steps, r.equity) for r in ranked[:TOP])
