"""The doubling cube: every transition and every refusal; resignation offers."""

from __future__ import annotations

import pytest

from engine.cube import Cube, CubeError, ResignError, ResignOffer
from engine.position import Side, Variant
from engine.scoring import EndReason, ResultKind

W, B = Side.WHITE, Side.BLACK


def test_centred_cube_either_side_may_double() -> None:
    cube = Cube()
    assert cube.may_double(W) and cube.may_double(B)
    offered = cube.double(B)
    assert offered.pending and offered.offered_by is B and offered.value == 1


def test_take_doubles_and_hands_the_cube_over() -> None:
    cube = Cube().double(W).take(B)
    assert (cube.value, cube.owner, cube.pending) == (2, B, False)
    assert not cube.may_double(W)
    redoubled = cube.double(B).take(W)
    assert (redoubled.value, redoubled.owner) == (4, W)


def test_pass_loses_the_value_before_the_double() -> None:
    result = Cube(value=4, owner=W).double(W).pass_(B)
    assert (result.winner, result.points, result.reason) == (W, 4, EndReason.DOUBLE_PASSED)
    assert result.kind is ResultKind.SINGLE


def test_beaver_taken_quadruples_and_the_beaverer_keeps_the_cube() -> None:
    beavered = Cube(beavers=True).double(W).beaver(B)
    # the beaver is a redouble the doubler answers: nobody may double meanwhile
    assert (beavered.value, beavered.owner, beavered.offered_by) == (2, B, B)
    assert beavered.pending and beavered.beavered
    assert not beavered.may_double(W) and not beavered.may_double(B)
    cube = beavered.take(W)
    assert (cube.value, cube.owner, cube.pending, cube.beavered) == (4, B, False, False)
    assert cube.may_double(B) and not cube.may_double(W)


@pytest.mark.parametrize(("value", "points"), [(1, 2), (2, 4), (8, 16)])
def test_beaver_passed_loses_twice_the_cube_before_the_double(value: int, points: int) -> None:
    owner = None if value == 1 else W
    result = Cube(value=value, owner=owner, beavers=True).double(W).beaver(B).pass_(W)
    assert (result.winner, result.points, result.reason) == (B, points, EndReason.DOUBLE_PASSED)
    assert result.kind is ResultKind.SINGLE


def test_only_the_doubler_answers_a_beaver_and_no_second_beaver() -> None:
    beavered = Cube(beavers=True).double(W).beaver(B)
    for answer in (Cube.take, Cube.pass_):
        with pytest.raises(CubeError, match="doubled player"):
            answer(beavered, B)
    assert beavered.why_not_beaver(W) == "a beaver cannot be beavered again"
    with pytest.raises(CubeError, match="beavered again"):
        beavered.beaver(W)


@pytest.mark.parametrize(
    ("cube", "side", "message"),
    [
        (Cube(crawford=True), W, "Crawford"),
        (Cube().double(W), W, "already offered"),
        (Cube().double(W), B, "already offered"),
        (Cube(value=2, owner=B), W, "opponent owns"),
        (Cube(value=64, owner=W), W, "above 64"),
        (Cube(value=4, owner=W, max_value=4), W, "above 4"),
    ],
)
def test_doubling_refusals(cube: Cube, side: Side, message: str) -> None:
    assert not cube.may_double(side)
    with pytest.raises(CubeError, match=message):
        cube.double(side)


def test_unlimited_cube() -> None:
    cube = Cube(value=1024, owner=W, max_value=None)
    assert cube.double(W).take(B).value == 2048


@pytest.mark.parametrize("action", [Cube.take, Cube.pass_, Cube.beaver])
def test_answers_need_an_offer_and_the_right_player(action: object) -> None:
    with pytest.raises(CubeError, match="no double"):
        action(Cube(beavers=True), B)  # type: ignore[operator]
    with pytest.raises(CubeError, match="doubled player"):
        action(Cube(beavers=True).double(W), W)  # type: ignore[operator]


def test_beaver_refusals() -> None:
    with pytest.raises(CubeError, match="not allowed"):
        Cube().double(W).beaver(B)
    with pytest.raises(CubeError, match="above 64"):
        Cube(value=32, owner=W, beavers=True).double(W).beaver(B)


@pytest.mark.parametrize(
    "fields",
    [
        {"value": 3},
        {"value": 0},
        {"value": True},
        {"value": 2},  # a turned cube has an owner
        {"owner": W},  # a cube at 1 is centred
        {"value": 2, "owner": B, "offered_by": W},
        {"value": 8, "owner": B, "max_value": 4},
        {"max_value": 6},
        {"crawford": True, "offered_by": W},
        {"owner": 0, "value": 2},
    ],
)
def test_impossible_cube_states_are_refused(fields: dict[str, object]) -> None:
    with pytest.raises(CubeError):
        Cube(**fields)  # type: ignore[arg-type]


def test_cube_states_are_hashable() -> None:
    assert len({Cube(), Cube().double(W), Cube().double(W).take(B), Cube()}) == 3


def test_resign_offer_accept_and_decline() -> None:
    offer = ResignOffer(Variant.BACKGAMMON, W, ResultKind.GAMMON)
    result = offer.accept(B, cube=2)
    assert (result.winner, result.points, result.reason) == (B, 4, EndReason.RESIGNED)
    assert offer.accept(B, jacoby=True).points == 1
    offer.decline(B)
    with pytest.raises(ResignError, match="opponent"):
        offer.accept(W)
    with pytest.raises(ResignError, match="opponent"):
        offer.decline(W)


@pytest.mark.parametrize(
    ("variant", "kind", "koks"),
    [
        (Variant.LONG, ResultKind.SINGLE, False),
        (Variant.LONG, ResultKind.KOKS, False),
        (Variant.BACKGAMMON, ResultKind.MARS, False),
    ],
)
def test_resign_offer_kinds(variant: Variant, kind: ResultKind, koks: bool) -> None:
    with pytest.raises(ResignError, match="offers one of"):
        ResignOffer(variant, W, kind, koks=koks)


def test_long_nardy_koks_resignation_with_the_house_rule() -> None:
    offer = ResignOffer(Variant.LONG, B, ResultKind.KOKS, koks=True)
    assert offer.accept(W).points == 3
