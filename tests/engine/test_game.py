"""The game record: opening rolls, turns, cube and resignation actions, and the
JSON round trip with its refusal of corrupt data."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest

from engine.cube import CubeError, ResignError
from engine.game import (
    Action,
    Event,
    Game,
    GameDataError,
    GameError,
    GameOptions,
    Opening,
    Phase,
    opening_roll,
)
from engine.position import Dice, IllegalStepError, Side, Step, Variant
from engine.scoring import EndReason, ResultKind
from engine.turns import apply_step, end_turn
from tests.engine.gameplay import Scripted, play_every_action, play_random

W, B = Side.WHITE, Side.BLACK
LONG = GameOptions.long()
BG = GameOptions.backgammon()
MONEY = GameOptions.backgammon(jacoby=True, beavers=True)


def round_trip(game: Game) -> Game:
    return Game.from_dict(json.loads(json.dumps(game.to_dict())))


# -- the opening ------------------------------------------------------------


def test_opening_ties_roll_again() -> None:
    game = Game.new(BG).roll(Scripted(3, 3, 2, 2, 1, 5))
    assert game.opening == Opening(((3, 3), (2, 2), (1, 5)))
    assert game.opening.starter is B
    assert (game.phase, game.to_act, game.dice) == (Phase.MOVE, B, Dice(5, 1))
    assert game.events == (Event(B, Action.ROLL, dice=Dice(5, 1)),)


def test_opening_roll_with_a_seeded_rng() -> None:
    openings = [opening_roll(random.Random(seed)) for seed in range(200)]
    assert any(len(opening.rolls) > 1 for opening in openings)
    for opening in openings:
        assert all(w == b for w, b in opening.rolls[:-1])
        assert opening.rolls[-1][0] != opening.rolls[-1][1]
    assert opening_roll(random.Random(2)) == opening_roll(random.Random(2))


def test_long_nardy_starter_rolls_both_dice() -> None:
    game = Game.new(LONG).roll(Scripted(6, 6, 2, 4))
    assert (game.opening.starter, game.phase, game.to_act) == (B, Phase.ROLL, B)
    assert game.position.turn is B and game.position.first_turn
    game = game.roll(Scripted(3, 5))
    assert (game.phase, game.dice) == (Phase.MOVE, Dice(3, 5))


def test_backgammon_opening_reroll_option() -> None:
    game = Game.new(GameOptions.backgammon(opening_reroll=True)).roll(Scripted(6, 1))
    assert (game.phase, game.to_act, game.events) == (Phase.ROLL, W, ())
    assert game.roll(Scripted(2, 2)).dice == Dice(2, 2)


def test_a_given_starter_skips_the_opening() -> None:
    game = Game.new(LONG, starter=B)
    assert (game.phase, game.to_act, game.opening) == (Phase.ROLL, B, None)


@pytest.mark.parametrize(
    "rolls", [(), ((3, 3),), ((2, 5), (3, 3)), ((1, 2), (3, 4)), ((0, 3),), ((3, 7),)]
)
def test_impossible_openings(rolls: tuple[tuple[int, int], ...]) -> None:
    with pytest.raises(Exception, match=r"opening|die|roll"):
        Opening(rolls)


# -- turns ------------------------------------------------------------------


def test_play_undo_confirm() -> None:
    game = Game.new(BG).roll(Scripted(3, 1))
    with pytest.raises(GameError, match="not complete"):
        game.confirm()
    with pytest.raises(GameError, match="no step to undo"):
        game.undo_step()
    with pytest.raises(IllegalStepError):
        game.play_step(Step(24, 21, 3)).play_step(Step(24, 21, 3))
    half = game.play_step(Step(8, 5, 3))
    assert half.position.checkers(W, 5) == 1 and half.turn_start == game.turn_start
    assert half.undo_step() == game
    done = half.play_step(Step(6, 5, 1)).confirm()
    assert done.events[-1] == Event(W, Action.MOVE, steps=(Step(8, 5, 3), Step(6, 5, 1)))
    assert (done.phase, done.to_act, done.position.turn) == (Phase.ROLL, B, B)


def test_a_confirmed_turn_is_taken_back_until_the_next_roll() -> None:
    game = Game.new(BG).roll(Scripted(3, 1))
    done = game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()
    back = done.take_back_turn()
    assert back == game  # its roll kept, nothing played: the mover chooses again
    with pytest.raises(GameError, match="not roll"):
        back.take_back_turn()  # not confirmed: Undo takes steps back
    with pytest.raises(GameError, match="not roll"):
        done.roll(Scripted(2, 1)).take_back_turn()  # the next side rolled: the turn stands
    with pytest.raises(GameError, match="no confirmed turn"):
        Game.new(BG, starter=W).take_back_turn()


def test_actions_out_of_phase_are_refused() -> None:
    fresh = Game.new(BG)
    with pytest.raises(GameError, match="waits for opening"):
        fresh.play_step(Step(13, 8, 5))
    with pytest.raises(GameError, match="waits for opening"):
        fresh.offer_resignation(W, ResultKind.SINGLE)
    moving = fresh.roll(Scripted(3, 1))
    with pytest.raises(GameError, match="waits for move"):
        moving.roll(Scripted(1, 2))
    with pytest.raises(GameError, match="waits for move"):
        moving.double(W)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", [LONG, BG, GameOptions.long(koks=True)])
def test_random_games_end_with_a_borne_off_result(options: GameOptions, seed: int) -> None:
    games = play_random(Game.new(options), random.Random(seed))
    final = games[-1]
    assert final.phase is Phase.OVER and final.to_act is None
    assert final.result is not None and final.result.reason is EndReason.BORNE_OFF
    assert final.position.winner is final.result.winner
    moves = [event for event in final.events if event.action is Action.MOVE]
    rolls = [event for event in final.events if event.action is Action.ROLL]
    assert len(moves) == len(rolls)
    with pytest.raises(GameError, match="waits for over"):
        final.roll(random.Random(0))
    for game in [*games[:: max(1, len(games) // 15)], final]:
        assert round_trip(game) == game


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", [LONG, BG, MONEY])
def test_a_replay_after_an_earlier_state_is_the_whole_replay(options: GameOptions,
                                                             seed: int) -> None:
    """``from_dict(data, after=...)`` goes on from an earlier state of the game,
    mid-turn ones included, and ignores a state that is not one (a later one,
    another game's): whatever it is given, the game is the one a replay from
    the first roll makes."""
    games = play_random(Game.new(options), random.Random(seed))
    other = play_random(Game.new(options), random.Random(seed + 100))
    rng = random.Random(seed)
    for later in [*rng.sample(games, 12), games[-1]]:
        data = json.loads(json.dumps(later.to_dict()))
        whole = Game.from_dict(data)
        assert whole == later
        for after in [*rng.sample(games, 8), rng.choice(other), games[0], games[-1]]:
            assert Game.from_dict(data, after=after) == whole


@pytest.mark.parametrize("options", [LONG, BG, MONEY])
def test_a_replay_after_any_earlier_state_is_the_whole_replay(options: GameOptions) -> None:
    """The same with every kind of action mixed in: an earlier state whose
    turn in progress has steps and a resignation offer after them (waiting,
    declined, accepted) or ended by a timeout is a state the whole replay
    never passes through; the replay after it is the whole replay too."""
    offered_mid_turn = 0
    for seed in range(8):
        games = play_every_action(Game.new(options), random.Random(seed))
        offered_mid_turn += sum(g.turn is not None and bool(g.turn.played)
                                and g.events[-1].action is not Action.ROLL for g in games)
        for index, later in enumerate(games):
            data = json.loads(json.dumps(later.to_dict()))
            whole = Game.from_dict(data)
            assert whole == later
            for after in games[max(0, index - 6): index + 2]:
                assert Game.from_dict(data, after=after) == whole
    assert offered_mid_turn >= 5  # the states this test is about were played


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", [LONG, BG])
def test_last_start_is_where_the_last_confirmed_turn_began(options: GameOptions,
                                                          seed: int) -> None:
    games = play_random(Game.new(options), random.Random(seed))
    assert games[0].last_start is None
    for before, after in itertools.pairwise(games):
        moved = len(after.events) > len(before.events) and \
            after.events[-1].action is Action.MOVE
        if moved:  # a confirm, or a roll that could not be played
            assert after.last_start == before.turn_start
            assert after.last_start.turn is after.events[-1].side
            position = after.last_start
            for step in after.events[-1].steps:
                position = apply_step(position, step)
            # the turn's steps from there reach where the game stands now
            assert (position if after.is_over else end_turn(position)) == after.turn_start
        else:
            assert after.last_start == before.last_start
    assert round_trip(games[-1]).last_start == games[-1].last_start


def test_a_roll_that_cannot_be_played_passes_at_once() -> None:
    for seed in range(40):
        final = play_random(Game.new(BG), random.Random(seed))[-1]
        events = final.events
        for roll, move in itertools.pairwise(events):
            if roll.action is Action.ROLL and move.action is Action.MOVE and not move.steps:
                assert move.side == roll.side
                return
    pytest.fail("no dance in 40 random games")


# -- the cube -----------------------------------------------------------------


def on_roll(options: GameOptions = BG) -> Game:
    """White has played its opening 3-1; Black is on roll."""
    game = Game.new(options).roll(Scripted(3, 1))
    return game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()


def test_double_take_and_redouble() -> None:
    game = on_roll().double(B)
    assert (game.phase, game.to_act) == (Phase.DOUBLE, W)
    game = game.take(W)
    assert (game.cube_value, game.cube.owner, game.phase, game.to_act) == (2, W, Phase.ROLL, B)
    with pytest.raises(CubeError, match="opponent owns"):
        game.double(B)
    game = game.roll(Scripted(6, 5))
    assert game.phase is Phase.MOVE


def test_double_pass_ends_the_game() -> None:
    game = on_roll().double(B).pass_(W)
    assert game.result is not None
    assert (game.result.winner, game.result.points, game.result.reason) == (
        B,
        1,
        EndReason.DOUBLE_PASSED,
    )
    assert round_trip(game) == game


def test_beaver_then_the_doubler_takes() -> None:
    beavered = on_roll(MONEY).double(B).beaver(W)
    # the report: the doubler could not answer ("waits for roll")
    assert (beavered.phase, beavered.to_act) == (Phase.DOUBLE, B)
    with pytest.raises(GameError, match="waits for double, not opening or roll"):
        beavered.roll(Scripted(1, 2))
    with pytest.raises(GameError, match="not White's turn"):
        beavered.take(W)
    game = beavered.take(B)
    assert (game.cube_value, game.cube.owner, game.to_act, game.phase) == (4, W, B, Phase.ROLL)  # type: ignore[union-attr]
    with pytest.raises(CubeError, match="not allowed"):
        on_roll().double(B).beaver(W)
    assert round_trip(game) == game and round_trip(beavered) == beavered
    # the beaverer owns the cube at 4: a later resigned gammon is 8 (no Jacoby now)
    resigned = game.offer_resignation(B, ResultKind.GAMMON).accept_resignation(W).result
    assert resigned is not None and (resigned.winner, resigned.points) == (W, 8)


def test_beaver_refused_loses_twice_the_cube_before_the_double() -> None:
    passed = on_roll(MONEY).double(B).beaver(W).pass_(B)
    result = passed.result
    assert result is not None
    assert (result.winner, result.points, result.reason) == (W, 2, EndReason.DOUBLE_PASSED)
    assert [event.action for event in passed.events[-3:]] == [
        Action.DOUBLE, Action.BEAVER, Action.PASS]
    assert round_trip(passed) == passed
    redoubled = on_roll(MONEY).double(B).take(W).roll(Scripted(6, 5))
    redoubled = redoubled.play_step(Step(24, 18, 6)).play_step(Step(18, 13, 5)).confirm()
    after = redoubled.double(W).beaver(B).pass_(W).result
    assert after is not None and (after.winner, after.points) == (B, 4)  # 2 x the cube of 2


def test_a_timeout_during_a_beaver_scores_the_beaver_refused() -> None:
    beavered = on_roll(MONEY).double(B).beaver(W)
    result = beavered.claim_timeout(W).result
    assert result is not None and (result.winner, result.points) == (W, 2)


def _legacy(game: Game) -> dict[str, Any]:
    """``game``'s record as stored before a beaver could be refused: the
    doubler's take after each beaver was not recorded."""
    data = game.to_dict()
    events = data["events"]
    data["events"] = [
        event for i, event in enumerate(events)
        if not (i and events[i - 1]["action"] == "beaver" and event["action"] == "take")
    ]
    return data


def test_records_stored_before_beavers_could_be_refused_still_load() -> None:
    taken = on_roll(MONEY).double(B).beaver(W).take(B).roll(Scripted(6, 5))
    taken = taken.play_step(Step(24, 18, 6)).play_step(Step(18, 13, 5)).confirm()
    timed_out = on_roll(MONEY).double(B).beaver(W).take(B).claim_timeout(W)
    for game in (taken, timed_out):
        old = _legacy(game)
        assert len(old["events"]) == len(game.to_dict()["events"]) - 1
        assert Game.from_dict(old) == game
    assert timed_out.result is not None and timed_out.result.points == 4
    # corrupt records are still refused, with the error of the record as it is
    broken = _legacy(taken)
    broken["position"] = "nonsense"
    with pytest.raises(GameDataError, match="waits for double, not roll"):
        Game.from_dict(broken)


@pytest.mark.parametrize(
    ("game", "side", "error", "message"),
    [
        (on_roll(), W, GameError, "not White's turn"),
        (on_roll().roll(Scripted(2, 1)), B, GameError, "waits for move"),
        (on_roll().double(B), B, GameError, "waits for double, not roll"),
        (Game.new(LONG, starter=W), W, GameError, "without the cube"),
        (on_roll(GameOptions.backgammon(cube=False)), B, GameError, "without the cube"),
    ],
)
def test_double_refusals(game: Game, side: Side, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        game.double(side)


def test_crawford_game_has_no_doubling() -> None:
    options = GameOptions.backgammon(match_length=5)
    game = Game.new(options, crawford=True).roll(Scripted(3, 1))
    game = game.play_step(Step(8, 5, 3)).play_step(Step(6, 5, 1)).confirm()
    with pytest.raises(CubeError, match="Crawford"):
        game.double(B)
    with pytest.raises(GameError, match="Crawford"):
        Game.new(BG, crawford=True)


@pytest.mark.parametrize("answer", [Game.take, Game.pass_, Game.beaver])
def test_only_the_doubled_player_answers(answer: Any) -> None:
    with pytest.raises(GameError, match="not Black's turn"):
        answer(on_roll(MONEY).double(B), B)
    with pytest.raises(GameError, match="waits for roll"):
        answer(on_roll(MONEY), W)


# -- resignations and timeouts ----------------------------------------------------


def test_resignation_accepted_with_jacoby_and_cube() -> None:
    offered = on_roll(MONEY).offer_resignation(W, ResultKind.GAMMON)
    assert (offered.phase, offered.to_act) == (Phase.RESIGNATION, B)
    with pytest.raises(GameError, match="waits for resignation"):
        offered.roll(Scripted(1, 2))
    result = offered.accept_resignation(B).result
    assert result is not None and (result.winner, result.points) == (B, 1)  # Jacoby
    turned = on_roll(MONEY).double(B).take(W).offer_resignation(W, ResultKind.GAMMON)
    assert turned.accept_resignation(B).result.points == 4  # type: ignore[union-attr]


def test_resignation_declined_play_goes_on() -> None:
    game = on_roll().roll(Scripted(6, 5)).play_step(Step(24, 18, 6))
    offered = game.offer_resignation(W, ResultKind.SINGLE)
    with pytest.raises(GameError, match="not White's turn"):
        offered.accept_resignation(W)
    declined = offered.decline_resignation(B)
    assert declined.phase is Phase.MOVE and declined.turn == game.turn
    assert round_trip(declined) == declined
    assert round_trip(offered) == offered


def test_long_nardy_resignations() -> None:
    game = Game.new(LONG, starter=W)
    mars = game.offer_resignation(B, ResultKind.MARS).accept_resignation(W).result
    assert mars is not None and (mars.winner, mars.kind, mars.points) == (W, ResultKind.MARS, 2)
    with pytest.raises(ResignError, match="offers one of"):
        game.offer_resignation(B, ResultKind.KOKS)
    with pytest.raises(ResignError, match="offers one of"):
        game.offer_resignation(B, ResultKind.GAMMON)
    koks = Game.new(GameOptions.long(koks=True), starter=W)
    assert koks.offer_resignation(B, ResultKind.KOKS).accept_resignation(W).result.points == 3  # type: ignore[union-attr]


def test_no_resignation_while_a_double_waits() -> None:
    with pytest.raises(GameError, match="waits for double"):
        on_roll().double(B).offer_resignation(W, ResultKind.SINGLE)


def test_a_pending_resignation_offer_does_not_let_its_offerer_claim() -> None:
    # the report: White offered to lose a gammon, then won on time
    offered = Game.new(BG).roll(Scripted(3, 1)).offer_resignation(W, ResultKind.GAMMON)
    with pytest.raises(GameError, match="resignation offer waits"):
        offered.claim_timeout(W)
    with pytest.raises(GameError, match="only the player who is waiting"):
        offered.claim_timeout(B)  # the answerer cannot claim either: the game waits for him
    # nothing else lets the offerer act while his offer waits
    for action in (lambda g: g.roll(Scripted(1, 2)), lambda g: g.double(W),
                   lambda g: g.play_step(Step(8, 5, 3)), lambda g: g.undo_step(),
                   lambda g: g.confirm(), lambda g: g.accept_resignation(W),
                   lambda g: g.decline_resignation(W),
                   lambda g: g.offer_resignation(W, ResultKind.SINGLE)):
        with pytest.raises(GameError):
            action(offered)
    # once declined the offer is gone and play (and the clock's claims) go on
    declined = offered.decline_resignation(B)
    with pytest.raises(GameError, match="only the player who is waiting"):
        declined.claim_timeout(W)  # White is on move again
    assert declined.claim_timeout(B).result.winner is B  # type: ignore[union-attr]
    # the other offers: a doubler may claim (it scores what a pass scores)
    doubled = on_roll().double(B)
    assert doubled.claim_timeout(B).result.points == doubled.pass_(W).result.points  # type: ignore[union-attr]
    # the same when the offerer is the player on roll
    other = on_roll().offer_resignation(B, ResultKind.SINGLE)
    with pytest.raises(GameError, match="resignation offer waits"):
        other.claim_timeout(B)


def test_timeout_claims() -> None:
    game = on_roll().double(B).take(W)
    with pytest.raises(GameError, match="only the player who is waiting"):
        game.claim_timeout(B)
    result = game.claim_timeout(W).result
    assert result is not None
    assert (result.winner, result.points, result.reason) == (W, 2, EndReason.TIMEOUT)
    doubled = on_roll().double(B)
    assert doubled.claim_timeout(B).result.winner is B  # type: ignore[union-attr]
    with pytest.raises(GameError, match="waits for opening"):
        Game.new(BG).claim_timeout(W)
    long_result = Game.new(LONG, starter=W).claim_timeout(B).result
    assert long_result is not None and long_result.kind is ResultKind.OIN
    assert round_trip(game.claim_timeout(W)) == game.claim_timeout(W)


# -- options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"variant": "long"}, "unknown variant"),
        ({"variant": Variant.LONG, "cube": True}, "no cube"),
        ({"variant": Variant.LONG, "opening_reroll": True}, "no cube"),
        ({"variant": Variant.BACKGAMMON, "koks": True}, "koks"),
        ({"variant": Variant.BACKGAMMON, "jacoby": True}, "need the cube"),
        (
            {"variant": Variant.BACKGAMMON, "cube": True, "beavers": True, "match_length": 7},
            "money play",
        ),
        ({"variant": Variant.LONG, "match_length": -1}, "match length"),
        ({"variant": Variant.LONG, "match_length": True}, "match length"),
        ({"variant": Variant.LONG, "koks": 1}, "true or false"),
        ({"variant": Variant.BACKGAMMON, "cube": True, "max_cube": 48}, "power of two"),
    ],
)
def test_bad_options(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(Exception, match=message):
        GameOptions(**fields)


# -- corrupt records ------------------------------------------------------------


def sample_record() -> dict[str, Any]:
    game = on_roll(MONEY).double(B).take(W).roll(Scripted(6, 5)).play_step(Step(24, 18, 6))
    return game.to_dict()


def corrupt(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(sample_record())
    change(data)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        (corrupt(lambda d: d.update(version=2)), "version"),
        (corrupt(lambda d: d.pop("events")), "corrupt game record"),
        (corrupt(lambda d: d["options"].pop("koks")), "options need"),
        (corrupt(lambda d: d["options"].update(variant="chess")), "bad options"),
        (corrupt(lambda d: d.update(opening=[[3, 3]])), "not a tie"),
        (corrupt(lambda d: d.update(opening=None)), "White rolled out of turn"),
        (corrupt(lambda d: d["events"][0].update(dice=[4, 1])), "does not follow"),
        (corrupt(lambda d: d["events"][1]["steps"][0].__setitem__(0, 13)), "corrupt"),
        (corrupt(lambda d: d["events"][1].update(side="black")), "moved out of turn"),
        (corrupt(lambda d: d["events"][2].update(action="take")), "corrupt"),
        (corrupt(lambda d: d["events"][2].update(action="jump")), "corrupt"),
        (corrupt(lambda d: d["events"][2].update(extra=1)), "unknown event fields"),
        (corrupt(lambda d: d["events"][4].update(dice=[6, "5"])), "whole number"),
        (corrupt(lambda d: d["events"][4].update(dice=[6, 7])), "corrupt"),
        (corrupt(lambda d: d["events"].pop(3)), "Black rolled out of turn"),
        (corrupt(lambda d: d["events"].append({"side": "white", "action": "pass"})), "corrupt"),
        (corrupt(lambda d: d.update(played=[[24, 18, 5]])), "corrupt"),
        (corrupt(lambda d: d.update(played=[[6, 1, 5]])), "corrupt"),
        (corrupt(lambda d: d.update(played=[])), "stored position"),
        (corrupt(lambda d: d["events"].pop()), "corrupt"),
        (corrupt(lambda d: d.update(position="4HPwATDgc/ABMA:black")), "stored position"),
        (corrupt(lambda d: d.update(result={"winner": "white"})), "stored result"),
        (corrupt(lambda d: d.update(starter="red")), "'white' or 'black'"),
        (corrupt(lambda d: d.update(crawford=True)), "Crawford"),
    ],
)
def test_corrupt_records_are_refused(data: Any, message: str) -> None:
    with pytest.raises(GameDataError, match=message):
        Game.from_dict(data)
    # so are they when the replay goes on from the sound record's game
    with pytest.raises(GameDataError, match=message):
        Game.from_dict(data, after=Game.from_dict(sample_record()))


def test_steps_without_a_turn_in_progress_are_refused() -> None:
    finished_turn = on_roll().to_dict()
    finished_turn["played"] = [[13, 10, 3]]
    with pytest.raises(GameDataError):
        Game.from_dict(finished_turn)
    before_opening = Game.new(LONG).to_dict()
    before_opening["played"] = [[24, 18, 6]]
    with pytest.raises(GameDataError, match="no turn is being played"):
        Game.from_dict(before_opening)


def test_the_sample_record_itself_is_fine() -> None:
    record = sample_record()
    game = Game.from_dict(record)
    assert game.to_dict() == record
    assert json.loads(json.dumps(record)) == record
    assert [event["action"] for event in record["events"]] == [
        "roll",
        "move",
        "double",
        "take",
        "roll",
    ]
