"""One game from the opening roll to its result: the record the bot stores.

A :class:`Game` is immutable: every action returns the next game and a bad
action raises (an :class:`~engine.position.EngineError`) leaving the old one
as it was.  Randomness only comes from the ``rng`` passed to :meth:`Game.roll`
(the bot passes ``secrets.SystemRandom()``, tests ``random.Random(seed)``), so
a game is a pure function of its rolls and actions, and :meth:`Game.to_dict`
stores exactly those: :meth:`Game.from_dict` replays them through the same
checks and compares the stored position and result, so corrupt data is
refused, never repaired.

The opening: each side rolls one die, ties roll again.  In long nardy the
starter then rolls both dice; in backgammon the starter plays the two opening
dice (house option ``opening_reroll``: it rolls both dice instead).  In a
match, long nardy games after the first are started by the player who was
second in the last one (``starter``), without an opening roll.

>>> import random
>>> game = Game.new(GameOptions.backgammon()).roll(random.Random(12))
>>> game.opening.rolls, game.phase, game.to_act
(((4, 3),), <Phase.MOVE: 'move'>, <Side.WHITE: 0>)
>>> game = game.play_step(Step(13, 9, 4)).play_step(Step(13, 10, 3)).confirm()
>>> game.phase, game.to_act, game.events[-1].steps[-1]
(<Phase.ROLL: 'roll'>, <Side.BLACK: 1>, Step(source=13, target=10, die=3))
>>> Game.from_dict(game.to_dict()) == game
True
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.cube import DEFAULT_MAX_CUBE, Cube, ResignOffer
from engine.ids import long_id, position_id
from engine.position import (
    Dice,
    EngineError,
    Position,
    RandomSource,
    Side,
    Step,
    Variant,
    check_type,
)
from engine.scoring import GameResult, ResultKind
from engine.turns import TurnInProgress

FORMAT_VERSION = 1


class GameError(EngineError):
    """An action that is not allowed in the game's current state."""


class GameDataError(GameError):
    """A stored game that cannot be read back: malformed or inconsistent."""


class Phase(enum.Enum):
    """What the game waits for."""

    OPENING = "opening"
    """The opening roll (either player starts it)."""
    ROLL = "roll"
    """The side to act rolls (or doubles, or resigns)."""
    MOVE = "move"
    """A turn is being played step by step."""
    DOUBLE = "double"
    """A double waits for take, pass or beaver."""
    RESIGNATION = "resignation"
    """A resignation offer waits for an answer."""
    OVER = "over"


class Action(enum.Enum):
    """What an :class:`Event` records."""

    ROLL = "roll"
    MOVE = "move"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    DECLINE = "decline"
    TIMEOUT = "timeout"


_OPTION_FIELDS = (
    "koks",
    "cube",
    "jacoby",
    "beavers",
    "max_cube",
    "match_length",
    "opening_reroll",
)


def _flag(value: object, name: str) -> None:
    check_type(value, bool, name, GameError)


def _side(value: object) -> Side:
    check_type(value, Side, "a side", GameError)
    assert isinstance(value, Side)
    return value


@dataclass(frozen=True, slots=True)
class GameOptions:
    """The rules a game is played with.

    ``match_length`` 0 is money play (or a single game); ``max_cube`` None is
    an unlimited cube.  Jacoby and beavers are money-play options.
    """

    variant: Variant
    koks: bool = False
    cube: bool = False
    jacoby: bool = False
    beavers: bool = False
    max_cube: int | None = DEFAULT_MAX_CUBE
    match_length: int = 0
    opening_reroll: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.variant, Variant):
            raise GameError(f"unknown variant {self.variant!r}")
        for name in ("koks", "cube", "jacoby", "beavers", "opening_reroll"):
            _flag(getattr(self, name), name)
        length = self.match_length
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise GameError(f"match length must be a whole number >= 0, got {length!r}")
        long = self.variant is Variant.LONG
        if long and (self.cube or self.opening_reroll):
            raise GameError("long nardy has no cube and no opening re-roll option")
        if self.koks and not long:
            raise GameError("koks is a long nardy rule")
        if (self.jacoby or self.beavers) and not self.cube:
            raise GameError("Jacoby and beavers need the cube")
        if (self.jacoby or self.beavers) and length:
            raise GameError("Jacoby and beavers are for money play, not matches")
        Cube(max_value=self.max_cube)  # checks the limit

    def to_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {"variant": self.variant.value}
        item.update({name: getattr(self, name) for name in _OPTION_FIELDS})
        return item

    @classmethod
    def from_dict(cls, value: object) -> GameOptions:
        """Options stored by :meth:`to_dict`; :class:`GameDataError` if bad."""
        if not isinstance(value, dict) or set(value) != {"variant", *_OPTION_FIELDS}:
            fields = ", ".join(_OPTION_FIELDS)
            raise GameDataError(f"options need exactly the fields variant, {fields}")
        try:
            return cls(Variant(value["variant"]), **{name: value[name] for name in _OPTION_FIELDS})
        except (EngineError, ValueError) as error:
            raise GameDataError(f"bad options: {error}") from error

    @classmethod
    def long(cls, *, koks: bool = False, match_length: int = 0) -> GameOptions:
        return cls(Variant.LONG, koks=koks, match_length=match_length)

    @classmethod
    def backgammon(
        cls,
        *,
        cube: bool = True,
        jacoby: bool = False,
        beavers: bool = False,
        max_cube: int | None = DEFAULT_MAX_CUBE,
        match_length: int = 0,
        opening_reroll: bool = False,
    ) -> GameOptions:
        return cls(
            Variant.BACKGAMMON,
            cube=cube,
            jacoby=jacoby,
            beavers=beavers,
            max_cube=max_cube,
            match_length=match_length,
            opening_reroll=opening_reroll,
        )


@dataclass(frozen=True, slots=True)
class Opening:
    """The opening roll: ``rolls`` are (White's die, Black's die) pairs, the
    ties first and the deciding roll last.

    >>> opening = Opening(((3, 3), (2, 5)))
    >>> opening.starter, opening.dice
    (<Side.BLACK: 1>, Dice(first=5, second=2))
    """

    rolls: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.rolls, tuple) or not all(
            isinstance(roll, tuple) and len(roll) == 2 for roll in self.rolls
        ):
            raise GameError(f"the opening rolls are pairs of dice, got {self.rolls!r}")
        if not self.rolls:
            raise GameError("the opening needs at least one roll")
        for roll in self.rolls:
            Dice(*roll)  # checks both dice
        if any(white != black for white, black in self.rolls[:-1]):
            raise GameError("only ties are rolled again in the opening")
        if self.rolls[-1][0] == self.rolls[-1][1]:
            raise GameError("the opening ends with a roll that is not a tie")

    @property
    def starter(self) -> Side:
        white, black = self.rolls[-1]
        return Side.WHITE if white > black else Side.BLACK

    @property
    def dice(self) -> Dice:
        """The deciding roll, the starter's die first."""
        own = self.rolls[-1][self.starter]
        return Dice(own, self.rolls[-1][self.starter.opponent])


def opening_roll(rng: RandomSource) -> Opening:
    """Each side rolls one die until they differ."""
    rolls = []
    while True:
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        rolls.append(roll)
        if roll[0] != roll[1]:
            return Opening(tuple(rolls))


@dataclass(frozen=True, slots=True)
class Event:
    """One recorded action: a roll (``dice``), a confirmed turn (``steps``),
    a cube action, a resignation offer (``kind``) and its answer, or a
    timeout claim."""

    side: Side
    action: Action
    dice: Dice | None = None
    steps: tuple[Step, ...] = ()
    kind: ResultKind | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.side, Side) or not isinstance(self.action, Action):
            raise GameError(f"bad event {self.side!r} {self.action!r}")
        if self.dice is not None:
            check_type(self.dice, Dice, "an event's dice", GameError)
        if not isinstance(self.steps, tuple):
            raise GameError(f"an event's steps are a tuple, got {self.steps!r}")
        for step in self.steps:
            check_type(step, Step, "an event's step", GameError)
        if self.kind is not None:
            check_type(self.kind, ResultKind, "an event's kind", GameError)
        if (self.dice is not None) != (self.action is Action.ROLL):
            raise GameError("dice belong to roll events only")
        if self.steps and self.action is not Action.MOVE:
            raise GameError("steps belong to move events only")
        if (self.kind is not None) != (self.action is Action.RESIGN):
            raise GameError("a kind belongs to resignation offers only")


@dataclass(frozen=True)
class Game:
    """A game in progress or finished.  Make one with :meth:`new` (or
    :meth:`from_dict`); the fields are the state, the methods the moves."""

    options: GameOptions
    turn_start: Position
    """The position before the turn being played (its ``turn`` is on roll)."""
    crawford: bool = False
    starter: Side | None = None
    """Set when the game starts without an opening roll (match rules)."""
    opening: Opening | None = None
    events: tuple[Event, ...] = ()
    turn: TurnInProgress | None = None
    cube: Cube | None = None
    resign_offer: ResignOffer | None = None
    result: GameResult | None = None
    last_start: Position | None = None
    """The position the last confirmed turn (the last MOVE event) started
    from, to show or write that turn (hits need it); None before the first."""

    @classmethod
    def new(
        cls, options: GameOptions, *, crawford: bool = False, starter: Side | None = None
    ) -> Game:
        """A game before its opening roll, or, given ``starter``, with that
        side to roll."""
        check_type(options, GameOptions, "the options", GameError)
        _flag(crawford, "crawford")
        if crawford and (options.variant is not Variant.BACKGAMMON or not options.match_length):
            raise GameError("only a backgammon match has a Crawford game")
        if starter is not None and not isinstance(starter, Side):
            raise GameError(f"bad starter {starter!r}")
        cube = None
        if options.cube:
            cube = Cube(max_value=options.max_cube, crawford=crawford, beavers=options.beavers)
        start = Position.initial(options.variant, Side.WHITE if starter is None else starter)
        return cls(options, start, crawford, starter, cube=cube)

    # -- state --------------------------------------------------------------

    @property
    def variant(self) -> Variant:
        return self.options.variant

    @property
    def phase(self) -> Phase:
        if self.result is not None:
            return Phase.OVER
        if self.resign_offer is not None:
            return Phase.RESIGNATION
        if self.cube is not None and self.cube.pending:
            return Phase.DOUBLE
        if self.turn is not None:
            return Phase.MOVE
        if self.opening is None and self.starter is None:
            return Phase.OPENING
        return Phase.ROLL

    @property
    def to_act(self) -> Side | None:
        """Who the game waits for (``None`` before the opening and at the end)."""
        phase = self.phase
        if phase is Phase.RESIGNATION:
            assert self.resign_offer is not None
            return self.resign_offer.side.opponent
        if phase is Phase.DOUBLE:
            assert self.cube is not None and self.cube.offered_by is not None
            return self.cube.offered_by.opponent
        if phase in {Phase.ROLL, Phase.MOVE}:
            return self.turn_start.turn
        return None

    @property
    def position(self) -> Position:
        """The checkers now, including the steps of the turn being played."""
        return self.turn.position if self.turn is not None else self.turn_start

    @property
    def dice(self) -> Dice | None:
        return self.turn.dice if self.turn is not None else None

    @property
    def legal_steps(self) -> frozenset[Step]:
        if self.phase is not Phase.MOVE:
            return frozenset()
        assert self.turn is not None
        return self.turn.legal_steps

    @property
    def cube_value(self) -> int:
        return self.cube.value if self.cube is not None else 1

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def can_double(self, side: Side) -> bool:
        """Whether ``side`` may offer a double now: on roll, before rolling,
        with a cube it may turn (not in the Crawford game, not when the
        opponent owns it, not past the cube's limit; never in long nardy)."""
        _side(side)
        return (
            self.phase is Phase.ROLL
            and self.to_act == side
            and self.cube is not None
            and self.cube.may_double(side)
        )

    @property
    def only_action(self) -> Action | None:
        """The one thing the game can do next when there is no choice, for
        an interface that does it by itself; ``None`` when someone chooses.

        :attr:`Action.ROLL`: the opening roll, or the side on roll cannot
        double (always in long nardy).  :attr:`Action.MOVE`: a turn not yet
        begun has exactly one distinct result (:meth:`play_forced` plays
        and confirms it); a roll that cannot be played at all has already
        passed the dice.  Offering to resign, always possible while the game
        runs, does not count as a choice here.

        >>> import random
        >>> game = Game.new(GameOptions.long(), starter=Side.WHITE)
        >>> game.only_action
        <Action.ROLL: 'roll'>
        >>> game = game.roll(random.Random(6))  # a first turn: one checker leaves the head
        >>> game.dice, game.only_action
        (Dice(first=5, second=1), <Action.MOVE: 'move'>)
        >>> game.play_forced().events[-1].steps
        (Step(source=24, target=19, die=5), Step(source=19, target=18, die=1))
        """
        phase = self.phase
        if phase is Phase.OPENING:
            return Action.ROLL
        if phase is Phase.ROLL:
            assert self.to_act is not None
            return None if self.can_double(self.to_act) else Action.ROLL
        if phase is Phase.MOVE:
            assert self.turn is not None
            if not self.turn.played and self.turn.forced_steps is not None:
                return Action.MOVE
        return None

    def _expect(self, *phases: Phase, side: Side | None = None) -> None:
        phase = self.phase
        if phase not in phases:
            wanted = " or ".join(p.value for p in phases)
            raise GameError(f"the game waits for {phase.value}, not {wanted}")
        if side is not None and _side(side) != self.to_act:
            raise GameError(f"it is not {side.name.title()}'s turn to act")

    def _record(self, event: Event, **changes: Any) -> Game:
        return replace(self, events=(*self.events, event), **changes)

    # -- rolling and moving ---------------------------------------------------

    def roll(self, rng: RandomSource) -> Game:
        """The opening roll, or the side to act rolls both dice.  A roll that
        cannot be played at all is recorded and passes the dice at once."""
        self._expect(Phase.OPENING, Phase.ROLL)
        if not callable(getattr(rng, "randint", None)):
            raise GameError(f"a random source has randint(a, b), got {rng!r}")
        if self.phase is Phase.OPENING:
            return self._open(opening_roll(rng))
        return self._roll(Dice.roll(rng))

    def _open(self, opening: Opening) -> Game:
        self._expect(Phase.OPENING)
        start = Position.initial(self.variant, opening.starter)
        game = replace(self, opening=opening, turn_start=start)
        if self.variant is Variant.BACKGAMMON and not self.options.opening_reroll:
            return game._roll(opening.dice)
        return game

    def _roll(self, dice: Dice) -> Game:
        self._expect(Phase.ROLL)
        side = self.turn_start.turn
        turn = TurnInProgress(self.turn_start, dice)
        game = self._record(Event(side, Action.ROLL, dice=dice), turn=turn)
        if not turn.legal_steps:
            return game.confirm()
        return game

    def play_step(self, step: Step) -> Game:
        """Play one step of the turn (one of :attr:`legal_steps`)."""
        check_type(step, Step, "a step", GameError)
        self._expect(Phase.MOVE)
        assert self.turn is not None
        return replace(self, turn=self.turn.play(step))

    def play_forced(self) -> Game:
        """Play and confirm a turn that has only one distinct result left
        (see :attr:`only_action`), through the same steps a player taps."""
        self._expect(Phase.MOVE)
        assert self.turn is not None
        steps = self.turn.forced_steps
        if steps is None:
            raise GameError("the turn has more than one possible result: the player chooses")
        game = self
        for step in steps:
            game = game.play_step(step)
        return game.confirm()

    def undo_step(self) -> Game:
        """Take back the last step of the turn being played."""
        self._expect(Phase.MOVE)
        assert self.turn is not None
        if not self.turn.played:
            raise GameError("no step to undo")
        return replace(self, turn=self.turn.undo())

    def confirm(self) -> Game:
        """Hand the dice over after a complete turn (or end the game)."""
        self._expect(Phase.MOVE)
        turn = self.turn
        assert turn is not None
        if not turn.is_complete:
            raise GameError("the turn is not complete")
        event = Event(self.turn_start.turn, Action.MOVE, steps=turn.played)
        reached = turn.position
        if reached.winner is None:
            return self._record(event, turn=None, turn_start=turn.finish(),
                                last_start=self.turn_start)
        result = GameResult.borne_off(
            reached, cube=self.cube_value, koks=self.options.koks, jacoby=self.options.jacoby
        )
        return self._record(event, turn=None, turn_start=reached, result=result,
                            last_start=self.turn_start)

    def take_back_turn(self) -> Game:
        """Take back the last confirmed turn while its dice are still the
        mover's: the next side has not acted (the game waits for its roll and
        the turn is the last event).  The game is back at that turn's start,
        its roll kept and nothing played, so the mover chooses again; the
        next roll was not made, so nobody has seen it."""
        self._expect(Phase.ROLL)
        if not self.events or self.events[-1].action is not Action.MOVE \
                or self.last_start is None:
            raise GameError("no confirmed turn to take back")
        data = self.to_dict()
        data.update(events=data["events"][:-1], played=[],
                    position=_position_text(self.last_start))
        return Game.from_dict(data)

    # -- the cube --------------------------------------------------------------

    def _cube(self) -> Cube:
        if self.cube is None:
            raise GameError("this game is played without the cube")
        return self.cube

    def double(self, side: Side) -> Game:
        """``side``, on roll and before rolling, offers a double."""
        cube = self._cube()
        self._expect(Phase.ROLL, side=side)
        return self._record(Event(side, Action.DOUBLE), cube=cube.double(side))

    def take(self, side: Side) -> Game:
        self._expect(Phase.DOUBLE, side=side)
        return self._record(Event(side, Action.TAKE), cube=self._cube().take(side))

    def beaver(self, side: Side) -> Game:
        """Take and redouble at once, keeping the cube: the doubler then
        takes or passes."""
        self._expect(Phase.DOUBLE, side=side)
        return self._record(Event(side, Action.BEAVER), cube=self._cube().beaver(side))

    def pass_(self, side: Side) -> Game:
        """Refuse the double: the game ends at the current cube value (after
        a beaver the doubler passes the beaverer's redouble: he loses the
        doubled value)."""
        self._expect(Phase.DOUBLE, side=side)
        result = self._cube().pass_(side)
        return self._record(Event(side, Action.PASS), result=result)

    # -- resignation and timeouts ---------------------------------------------

    def offer_resignation(self, side: Side, kind: ResultKind) -> Game:
        """``side`` offers to lose by ``kind`` (either player, any time the
        game is under way and no other offer waits)."""
        self._expect(Phase.ROLL, Phase.MOVE)
        _side(side)
        check_type(kind, ResultKind, "a kind of win", GameError)
        offer = ResignOffer(self.variant, side, kind, koks=self.options.koks)
        return self._record(Event(side, Action.RESIGN, kind=kind), resign_offer=offer)

    def accept_resignation(self, side: Side) -> Game:
        self._expect(Phase.RESIGNATION, side=side)
        assert self.resign_offer is not None
        result = self.resign_offer.accept(side, cube=self.cube_value, jacoby=self.options.jacoby)
        return self._record(Event(side, Action.ACCEPT), resign_offer=None, result=result)

    def decline_resignation(self, side: Side) -> Game:
        self._expect(Phase.RESIGNATION, side=side)
        assert self.resign_offer is not None
        self.resign_offer.decline(side)
        return self._record(Event(side, Action.DECLINE), resign_offer=None)

    def claim_timeout(self, side: Side) -> Game:
        """``side`` wins a single game (times the cube) because the player
        the game waits for ran out of time; the clock is the caller's.

        A player whose own resignation offer waits cannot claim: he has
        offered to lose, and the answer is his opponent's to give (a doubler
        can claim: that scores what a pass would).
        """
        self._expect(Phase.ROLL, Phase.MOVE, Phase.DOUBLE, Phase.RESIGNATION)
        if _side(side) == self.to_act:
            raise GameError("only the player who is waiting can claim a timeout")
        if self.resign_offer is not None and self.resign_offer.side == side:
            raise GameError("a player whose resignation offer waits cannot claim a timeout")
        result = GameResult.timeout(self.variant, side, cube=self.cube_value)
        return self._record(Event(side, Action.TIMEOUT), result=result)

    # -- storage --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe record: the rules, the rolls and the actions, plus the
        position and result as checks."""
        return {
            "version": FORMAT_VERSION,
            "options": self.options.to_dict(),
            "crawford": self.crawford,
            "starter": _side_name(self.starter),
            "opening": None if self.opening is None else [list(r) for r in self.opening.rolls],
            "events": [_event_to_dict(event) for event in self.events],
            "played": [] if self.turn is None else [_step_to_list(s) for s in self.turn.played],
            "position": _position_text(self.position),
            "result": None if self.result is None else _result_to_dict(self.result),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, after: Game | None = None) -> Game:
        """Replay a record made by :meth:`to_dict`; raises
        :class:`GameDataError` for anything malformed or inconsistent.

        ``after``: an earlier state of the same game, replayed or played
        before (a record saved one or two taps ago): when its events begin
        the record's, the replay goes on from it (the steps of its turn in
        progress taken back first) instead of from the first roll, and
        checks what follows and the end as a whole replay would; the game
        is the same.  A long game's whole replay takes ~13 ms, and a worker
        that did not save the record's last change (several workers behind
        one webhook) replays it for every tap."""
        try:
            return cls._checked_replay(data, after)
        except GameDataError as error:
            legacy = _with_beavers_taken(data)
            if legacy is None:
                raise
            try:
                return cls._checked_replay(legacy)
            except GameDataError:
                raise error from None

    @classmethod
    def _checked_replay(cls, data: Mapping[str, Any], after: Game | None = None) -> Game:
        try:
            return cls._replay(data, after)
        except GameDataError:
            raise
        except (EngineError, KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameDataError(f"corrupt game record: {error}") from error

    @classmethod
    def _replay(cls, data: Mapping[str, Any], after: Game | None = None) -> Game:
        if not isinstance(data, Mapping):
            raise GameDataError("a game record is a JSON object")
        if data.get("version") != FORMAT_VERSION:
            raise GameDataError(f"unknown game record version {data.get('version')!r}")
        game = cls.new(
            GameOptions.from_dict(data["options"]),
            crawford=data["crawford"],
            starter=None if data["starter"] is None else _side_from_name(data["starter"]),
        )
        if data["opening"] is not None:
            game = game._open(Opening(tuple(_pair(roll) for roll in _list(data["opening"]))))
        events = [_event_from_dict(item) for item in _list(data["events"])]
        if after is not None:
            game = _resumed(game, after, events)
        played = [_step_from_list(item) for item in _list(data["played"])]
        # the steps of the turn in progress follow its roll, before any
        # resignation offer made during the turn
        rolls = [i for i, event in enumerate(events) if event.action is Action.ROLL]
        last_roll = rolls[-1] + 1 if rolls else -1
        while True:
            if len(game.events) == last_roll and game.phase is Phase.MOVE:
                for step in played:
                    game = game.play_step(step)
                played = []
            if len(game.events) >= len(events):
                break
            if tuple(events[: len(game.events)]) != game.events:
                raise GameDataError(f"event {len(game.events) + 1} does not follow")
            game = game._apply(events[len(game.events)])
        if game.events != tuple(events):
            raise GameDataError("the events do not match their replay")
        if played:
            raise GameDataError("steps are stored but no turn is being played")
        if data["position"] != _position_text(game.position):
            raise GameDataError("the stored position does not match the moves")
        stored = data["result"]
        if stored != (None if game.result is None else _result_to_dict(game.result)):
            raise GameDataError("the stored result does not match the moves")
        return game

    def _apply(self, event: Event) -> Game:
        side, action = event.side, event.action
        if action is Action.ROLL:
            assert event.dice is not None
            if side != self.to_act:
                raise GameDataError(f"{side.name.title()} rolled out of turn")
            return self._roll(event.dice)
        if action is Action.MOVE:
            if side != self.to_act:
                raise GameDataError(f"{side.name.title()} moved out of turn")
            game = self
            for step in event.steps:
                game = game.play_step(step)
            return game.confirm()
        if action is Action.RESIGN:
            assert event.kind is not None
            return self.offer_resignation(side, event.kind)
        handlers = {
            Action.DOUBLE: Game.double,
            Action.TAKE: Game.take,
            Action.PASS: Game.pass_,
            Action.BEAVER: Game.beaver,
            Action.ACCEPT: Game.accept_resignation,
            Action.DECLINE: Game.decline_resignation,
            Action.TIMEOUT: Game.claim_timeout,
        }
        return handlers[action](self, side)


def _resumed(start: Game, after: Game, events: list[Event]) -> Game:
    """Where a replay of ``events`` from ``start`` (a new game, opened) may begin:
    ``after`` with the steps of its turn in progress taken back, if it is a
    state of the same game whose events begin ``events``; else ``start``.

    A turn in progress whose roll is not the last event (a resignation was
    offered during it: waiting, declined, accepted, or a timeout ended it)
    is no such state: the replay plays a turn's stored steps right after its
    roll, so with them taken back it would never play them again."""
    if (after.options, after.crawford, after.starter, after.opening) != (
            start.options, start.crawford, start.starter, start.opening):
        return start
    if after.turn is not None and after.events[-1].action is not Action.ROLL:
        return start
    while after.turn is not None and after.turn.played:
        after = after.undo_step()
    count = len(after.events)
    if count < len(start.events) or count > len(events) or tuple(events[:count]) != after.events:
        return start
    return after


# -- JSON helpers ---------------------------------------------------------------


def _with_beavers_taken(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """A record stored before a beaver could be refused, brought up to
    date: then the doubler took every beaver without a word, so a take is
    added after each beaver the doubler did not answer.  ``None`` when the
    record has no such beaver (or is too malformed to tell)."""
    events = data.get("events") if isinstance(data, Mapping) else None
    if not isinstance(events, list):
        return None
    fixed: list[Any] = []
    for index, event in enumerate(events):
        fixed.append(event)
        if not isinstance(event, dict) or event.get("action") != Action.BEAVER.value:
            continue
        doubler = {"white": "black", "black": "white"}.get(str(event.get("side")))
        after = events[index + 1] if index + 1 < len(events) else None
        answered = isinstance(after, dict) and after.get("side") == doubler and after.get(
            "action"
        ) in (Action.TAKE.value, Action.PASS.value)
        if doubler is not None and not answered:
            fixed.append({"side": doubler, "action": Action.TAKE.value})
    if len(fixed) == len(events):
        return None
    return {**data, "events": fixed}


def _side_name(side: Side | None) -> str | None:
    return None if side is None else side.name.lower()


def _side_from_name(name: object) -> Side:
    if name not in ("white", "black"):
        raise GameDataError(f"a side is 'white' or 'black', not {name!r}")
    return Side.WHITE if name == "white" else Side.BLACK


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise GameDataError(f"expected a list, got {value!r}")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise GameDataError(f"expected a whole number, got {value!r}")
    return value


def _pair(value: object) -> tuple[int, int]:
    items = _list(value)
    if len(items) != 2:
        raise GameDataError(f"expected two numbers, got {value!r}")
    return _int(items[0]), _int(items[1])


def _step_to_list(step: Step) -> list[int]:
    return [step.source, step.target, step.die]


def _step_from_list(value: object) -> Step:
    items = _list(value)
    if len(items) != 3:
        raise GameDataError(f"a step is [source, target, die], not {value!r}")
    return Step(*(_int(item) for item in items))


def _event_to_dict(event: Event) -> dict[str, Any]:
    item: dict[str, Any] = {"side": _side_name(event.side), "action": event.action.value}
    if event.dice is not None:
        item["dice"] = [event.dice.first, event.dice.second]
    if event.action is Action.MOVE:
        item["steps"] = [_step_to_list(step) for step in event.steps]
    if event.kind is not None:
        item["kind"] = event.kind.value
    return item


def _event_from_dict(value: object) -> Event:
    if not isinstance(value, dict):
        raise GameDataError(f"an event is an object, not {value!r}")
    known = {"side", "action", "dice", "steps", "kind"}
    if set(value) - known:
        raise GameDataError(f"unknown event fields {sorted(set(value) - known)}")
    dice = value.get("dice")
    kind = value.get("kind")
    return Event(
        _side_from_name(value["side"]),
        Action(value["action"]),
        dice=None if dice is None else Dice(*_pair(dice)),
        steps=tuple(_step_from_list(item) for item in _list(value.get("steps", []))),
        kind=None if kind is None else ResultKind(kind),
    )


def _result_to_dict(result: GameResult) -> dict[str, Any]:
    return {
        "winner": _side_name(result.winner),
        "kind": result.kind.value,
        "reason": result.reason.value,
        "cube": result.cube,
        "points": result.points,
    }


def _position_text(position: Position) -> str:
    if position.variant is Variant.LONG:
        return long_id(position)
    return f"{position_id(position)}:{_side_name(position.turn)}"
