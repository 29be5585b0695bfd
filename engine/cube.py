"""The doubling cube and resignation offers: the negotiations beside the moves.

:class:`Cube` is an immutable state machine.  It knows its own limits (the
Crawford game, the highest value, whether beavers are allowed); *when* a
player may double (on turn, before rolling) is the game's business.

>>> cube = Cube().double(Side.WHITE)
>>> cube.offered_by, cube.value
(<Side.WHITE: 0>, 1)
>>> cube = cube.take(Side.BLACK)
>>> cube.value, cube.owner
(2, <Side.BLACK: 1>)
>>> cube.may_double(Side.WHITE)
False
>>> Cube(value=2, owner=Side.BLACK).double(Side.BLACK).pass_(Side.WHITE).points
2
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.position import EngineError, Side, Variant, check_type
from engine.scoring import GameResult, ResultKind, ScoringError, is_cube_value, resign_kinds

DEFAULT_MAX_CUBE = 64


class CubeError(EngineError):
    """A cube action the rules do not allow now."""


class ResignError(EngineError):
    """A resignation offer the rules do not allow."""


def _check_value(value: object, what: str) -> None:
    if not is_cube_value(value):
        raise CubeError(f"{what} must be a power of two, got {value!r}")


@dataclass(frozen=True, slots=True)
class Cube:
    """Value, owner (``None``: centred) and a pending offer.

    ``max_value`` of ``None`` means unlimited; ``crawford`` forbids doubling
    for the whole game; ``beavers`` allows the beaver (money play).

    A beaver is a take and at once a redouble by the taker, which the
    original doubler then takes or passes as any double (GNU Backgammon's
    rule): while it waits, ``value`` is the doubled value, owned and offered
    by the beaverer, and ``beavered`` is set.  Taken, the cube goes up
    twice more and stays with the beaverer; passed, the doubler loses the
    doubled value (twice the cube before his double).

    >>> beavered = Cube(beavers=True).double(Side.WHITE).beaver(Side.BLACK)
    >>> beavered.value, beavered.offered_by, beavered.beavered
    (2, <Side.BLACK: 1>, True)
    >>> taken = beavered.take(Side.WHITE)
    >>> taken.value, taken.owner
    (4, <Side.BLACK: 1>)
    >>> beavered.pass_(Side.WHITE).points
    2
    """

    value: int = 1
    owner: Side | None = None
    offered_by: Side | None = None
    max_value: int | None = DEFAULT_MAX_CUBE
    crawford: bool = False
    beavers: bool = False
    beavered: bool = False

    def __post_init__(self) -> None:
        for name in ("crawford", "beavers", "beavered"):
            check_type(getattr(self, name), bool, name, CubeError)
        _check_value(self.value, "the cube value")
        if self.max_value is not None:
            _check_value(self.max_value, "the cube limit")
            if self.value > self.max_value:
                raise CubeError(f"cube value {self.value} is above the limit {self.max_value}")
        for side in (self.owner, self.offered_by):
            if side is not None and not isinstance(side, Side):
                raise CubeError(f"bad side {side!r}")
        if self.value == 1 and self.owner is not None:
            raise CubeError("a cube at 1 is centred")
        if self.value > 1 and self.owner is None:
            raise CubeError("a turned cube has an owner")
        if self.offered_by is not None and self.owner not in {None, self.offered_by}:
            raise CubeError("only the cube's owner may double")
        if self.crawford and (self.value > 1 or self.offered_by is not None):
            raise CubeError("no doubling in the Crawford game")
        if self.beavered and (not self.beavers or self.offered_by is None):
            raise CubeError("a beaver is a pending redouble in a game with beavers")

    @property
    def pending(self) -> bool:
        """A double has been offered and not yet answered."""
        return self.offered_by is not None

    def why_not_double(self, side: Side) -> str | None:
        """Why ``side`` may not double now, or ``None`` if it may."""
        if self.crawford:
            return "no doubling in the Crawford game"
        if self.pending:
            return "a double is already offered"
        if self.owner is not None and self.owner != side:
            return "the opponent owns the cube"
        if self.max_value is not None and self.value * 2 > self.max_value:
            return f"the cube cannot go above {self.max_value}"
        return None

    def may_double(self, side: Side) -> bool:
        return self.why_not_double(side) is None

    def double(self, side: Side) -> Cube:
        """``side`` offers to double; the value changes once it is taken."""
        check_type(side, Side, "a side", CubeError)
        reason = self.why_not_double(side)
        if reason is not None:
            raise CubeError(reason)
        return replace(self, offered_by=side)

    def _answerer(self, side: Side) -> Side:
        check_type(side, Side, "a side", CubeError)
        if self.offered_by is None:
            raise CubeError("no double has been offered")
        if side != self.offered_by.opponent:
            raise CubeError("only the doubled player answers a double")
        return side

    def take(self, side: Side) -> Cube:
        """The doubled player takes: the value doubles and the taker owns it
        (after a beaver the beaverer keeps it)."""
        self._answerer(side)
        owner = self.offered_by if self.beavered else side
        return replace(self, value=self.value * 2, owner=owner, offered_by=None, beavered=False)

    def pass_(self, side: Side) -> GameResult:
        """The doubled player passes and loses the current value."""
        self._answerer(side)
        return GameResult.double_passed(side.opponent, self.value)

    def why_not_beaver(self, side: Side) -> str | None:
        """Why ``side`` may not beaver now, or ``None`` if it may."""
        if self.offered_by is None or side != self.offered_by.opponent:
            return "only the doubled player answers a double"
        if not self.beavers:
            return "beavers are not allowed"
        if self.beavered:
            return "a beaver cannot be beavered again"
        if self.max_value is not None and self.value * 4 > self.max_value:
            return f"the cube cannot go above {self.max_value}"
        return None

    def beaver(self, side: Side) -> Cube:
        """The doubled player takes and at once redoubles, keeping the cube:
        the doubler now takes (the value goes up fourfold in all) or passes."""
        self._answerer(side)
        reason = self.why_not_beaver(side)
        if reason is not None:
            raise CubeError(reason)
        return replace(self, value=self.value * 2, owner=side, offered_by=side, beavered=True)


@dataclass(frozen=True, slots=True)
class ResignOffer:
    """``side`` offers to lose the game by ``kind``; the opponent accepts or
    declines.

    >>> offer = ResignOffer(Variant.LONG, Side.WHITE, ResultKind.MARS)
    >>> offer.accept(Side.BLACK).points
    2
    """

    variant: Variant
    side: Side
    kind: ResultKind
    koks: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.side, Side):
            raise ResignError(f"bad side {self.side!r}")
        check_type(self.koks, bool, "koks", ResignError)
        if self.kind not in resign_kinds(self.variant, koks=self.koks):
            allowed = ", ".join(kind.value for kind in resign_kinds(self.variant, koks=self.koks))
            raise ResignError(f"a resignation in {self.variant.value} offers one of: {allowed}")

    def _check_answerer(self, side: Side) -> None:
        check_type(side, Side, "a side", ResignError)
        if side != self.side.opponent:
            raise ResignError("only the opponent answers a resignation offer")

    def accept(self, side: Side, *, cube: int = 1, jacoby: bool = False) -> GameResult:
        self._check_answerer(side)
        try:
            return GameResult.resigned(
                self.variant, self.side, self.kind, cube=cube, koks=self.koks, jacoby=jacoby
            )
        except ScoringError as error:
            raise ResignError(str(error)) from error

    def decline(self, side: Side) -> None:
        """Check that ``side`` may decline (the offer then simply lapses)."""
        self._check_answerer(side)
