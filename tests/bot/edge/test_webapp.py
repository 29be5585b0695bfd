"""The Mini App's pure pieces: initData checking, the game payload, the app's button,
the state and turn tree it is sent, and the whole-turn rule (bot/rules/play.py
apply_turn).  The browser and the real bot: tests/e2e/test_miniapp.py."""

from __future__ import annotations

import json
import random

import pytest

from bot.edge.config import ConfigError, load_settings
from bot.edge.initdata import MAX_AGE, InitDataError, checked, sign
from bot.edge.webapp import RateLimit
from bot.present.webapp import PayloadError, WebappLinks, game_of, payload, with_app_button
from bot.present.webstate import game_state, turn_tree
from bot.rules.dice import Dealer
from bot.rules.lobby import start_game
from bot.rules.matchstate import table_of
from bot.rules.play import apply_game, apply_turn
from bot.vocab.callbacks import ButtonAction, Callback
from bot.vocab.i18n import translator
from bot.vocab.records import GameRecord, Player, Status, TableOptions
from bot.vocab.refusals import NOT_PLAYING, NOT_YOUR_TURN, STALE, Refusal
from engine.game import Phase
from engine.position import Side, Step, Variant
from tests.bot.trees import random_turn

TOKEN = "123456:secret-token"
ANN, BOB, EVE = 101, 202, 303
PLAYERS = (Player(user_id=ANN, name="Ann", side=Side.WHITE),
           Player(user_id=BOB, name="Bob", side=Side.BLACK))
EN = translator("en")
NOW = 1_700_000_000


def _data(user_id: int = ANN, auth_date: int = NOW, token: str = TOKEN, **extra: str) -> str:
    return sign(token, {"user": json.dumps({"id": user_id, "first_name": "Ann"}),
                        "auth_date": str(auth_date), "query_id": "AAE1", **extra})


def test_genuine_init_data_names_its_user() -> None:
    user = checked(TOKEN, _data(start_param="n5_abc"), now=NOW + 60)
    assert (user.user_id, user.name, user.start_param) == (ANN, "Ann", "n5_abc")


@pytest.mark.parametrize("forge", [
    lambda d: d.replace("hash=", "hash=1"),              # a wrong hash
    lambda d: d.replace("%22id%22%3A+101", "%22id%22%3A+303"),  # another user, same hash
    lambda d: d + "&start_param=n1_x",                    # a field added after signing
    lambda d: "&".join(p for p in d.split("&") if not p.startswith("hash=")),  # no hash
    lambda d: _data(token="654321:other"),                # another bot's token
    lambda d: "",
    lambda d: "x" * 5000,
])
def test_forged_init_data_is_refused(forge) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InitDataError):
        checked(TOKEN, forge(_data()), now=NOW)


def test_the_user_swap_really_changed_the_data() -> None:
    # guards the forge above: the replaced text is in the signed data
    assert "%22id%22%3A+101" in _data()


@pytest.mark.parametrize("age", [MAX_AGE + 1, -400, 10 * MAX_AGE])
def test_stale_or_future_init_data_is_refused(age: int) -> None:
    with pytest.raises(InitDataError, match="stale"):
        checked(TOKEN, _data(auth_date=NOW - age), now=NOW)


def test_fresh_enough_init_data_passes_at_the_edge() -> None:
    assert checked(TOKEN, _data(auth_date=NOW - MAX_AGE), now=NOW).user_id == ANN


def test_payload_round_trip_and_refusals() -> None:
    for chat, game in ((-1001234567890, "k3Xa9_zQ"), (42, "a-b_c")):
        assert game_of(payload(chat, game)) == (chat, game)
    for bad in ("", "n", "12", "x1_abc", "1_" + "a" * 40, "1_a b"):
        with pytest.raises(PayloadError):
            game_of(bad)


LINKS = WebappLinks("https://example.org/app", "board", "nardy_bot")


def test_group_boards_link_the_direct_link_and_private_ones_open_the_app() -> None:
    group = with_app_button(EN, None, -100, "g1", private=False, links=LINKS)
    private = with_app_button(EN, None, 7, "g1", private=True, links=LINKS)
    assert group is not None and private is not None
    (button,), = group.inline_keyboard
    assert button.url == "https://t.me/nardy_bot/board?startapp=n100_g1"
    assert button.web_app is None
    (button,), = private.inline_keyboard
    assert button.web_app is not None and button.web_app.url == "https://example.org/app/?game=7_g1"
    assert with_app_button(EN, None, -100, "g1", private=False) is None  # no WEBAPP_URL


def test_webapp_url_must_be_https() -> None:
    env = {"BOT_TOKEN": "1:a"}
    assert load_settings(environ={**env, "WEBAPP_URL": "https://x.org/app/"},
                         env_file=None).webapp_url == "https://x.org/app"
    with pytest.raises(ConfigError, match="WEBAPP_URL"):
        load_settings(environ={**env, "WEBAPP_URL": "http://x.org/app"}, env_file=None)


def _started(variant: Variant, seed: int) -> GameRecord:
    record = GameRecord(chat_id=-5, variant=variant, players=PLAYERS,
                        options=TableOptions(koks=False))
    return start_game(record, Dealer.for_tests(seed))


def _mover(record: GameRecord) -> int:
    return ANN if table_of(record).game.to_act is Side.WHITE else BOB


@pytest.mark.parametrize("variant", [Variant.LONG, Variant.BACKGAMMON])
def test_a_whole_game_of_whole_turns_from_the_tree(variant: Variant) -> None:
    """Every turn is a random walk of the tree the app is sent; the rule accepts each,
    and refuses the others' and the incomplete ones, to the end of the game."""
    rng = random.Random(7)
    record = _started(variant, 3)
    turns = 0
    while record.status is Status.ACTIVE:
        game, user = table_of(record).game, _mover(record)
        if game.phase is Phase.ROLL:  # Roll beside Double (backgammon's cube)
            record = apply_game(record, user, Callback.game(record.game_id, record.version,
                                                            ButtonAction.ROLL))
            continue
        tree = turn_tree(game, Side.WHITE)
        steps = random_turn(tree, rng)
        other = BOB if user == ANN else ANN
        with pytest.raises(Refusal) as refused:
            apply_turn(record, other, steps)
        assert refused.value.message == NOT_YOUR_TURN
        with pytest.raises(Refusal) as refused:
            apply_turn(record, EVE, steps)
        assert refused.value.message == NOT_PLAYING
        if len(steps) > 1:
            with pytest.raises(Refusal):
                apply_turn(record, user, steps[:-1])
        state = game_state(EN, record, user)
        json.dumps(state)  # the API sends it as it is
        assert state["tree"] is not None and len(state["tree"]) == len(tree)
        record = apply_turn(record, user, steps)
        turns += 1
    assert record.status is Status.FINISHED and turns > 20


def test_a_forged_step_is_refused() -> None:
    record = _started(Variant.BACKGAMMON, 1)
    game = table_of(record).game
    legal = game.legal_steps
    forged = next(Step(s, s - d, d) for s in range(24, 6, -1) for d in range(1, 7)
                  if Step(s, s - d, d) not in legal)
    with pytest.raises(Refusal) as refused:
        apply_turn(record, _mover(record), [forged])
    assert refused.value.message == STALE


def test_a_spectator_sees_the_board_without_moves() -> None:
    record = _started(Variant.LONG, 2)
    state = game_state(EN, record, EVE)
    assert state["you"] is None and state["tree"] is None and state["actions"] == []
    assert sum(count for _, count in state["cells"]) == 30


def test_rate_limit_per_user() -> None:
    now = [0.0]
    limit = RateLimit(rate=3, window=10, clock=lambda: now[0])
    assert [limit.allow(1) for _ in range(4)] == [True, True, True, False]
    assert limit.allow(2)
    now[0] = 11
    assert limit.allow(1)


def _after_black_moved(variant: Variant, **options: object) -> GameRecord:
    """White to move, right after a turn of Black's with steps."""
    rng = random.Random(5)
    record = start_game(GameRecord(chat_id=-1001234567890, variant=variant, players=PLAYERS,
                                   options=TableOptions(koks=False, **options)),  # type: ignore[arg-type]
                        Dealer.for_tests(3))
    # the game's board is a message of its own, posted when it starts (its lobby stays)
    record = record.model_copy(update={"board_message_id": 9})
    for _ in range(400):
        game = table_of(record).game
        moves = [e for e in game.events if e.action.name == "MOVE"]
        if (game.phase is Phase.MOVE and game.to_act is Side.WHITE and len(moves) > 3
                and moves[-1].steps):
            return record
        user = _mover(record)
        if game.phase is Phase.MOVE:
            tree = turn_tree(game, Side.WHITE)
            steps = random_turn(tree, rng)
            record = apply_turn(record, user, steps)
        else:
            record = apply_game(record, user, Callback.game(record.game_id, record.version,
                                                            ButtonAction.ROLL))
    raise AssertionError("no such moment")


@pytest.mark.parametrize("variant", [Variant.LONG, Variant.BACKGAMMON])
@pytest.mark.parametrize("orientation", ["follow", "white", "black"])
def test_each_player_is_drawn_from_their_own_side(variant: Variant, orientation: str) -> None:
    """A player's own checkers at the bottom, their own numbers, whoever must act and
    whatever the chat's view (no "(Bob's numbers)" relabelling); a spectator: the chat's."""
    record = _after_black_moved(variant)
    for user, side in ((ANN, 0), (BOB, 1)):
        state = game_state(EN, record, user, orientation=orientation)
        assert state["viewer"] == side
        assert state["numbers"] == list(range(1, 25))
        assert "numbers, as on the board" not in state["last"]["text"]
    spectator = game_state(EN, record, EVE, orientation=orientation)
    assert spectator["viewer"] == {"white": 0, "black": 1}.get(orientation, spectator["viewer"])


@pytest.mark.parametrize("variant", [Variant.LONG, Variant.BACKGAMMON])
def test_the_last_turn_is_sent_in_the_viewers_cells(variant: Variant) -> None:
    record = _after_black_moved(variant)
    state = game_state(EN, record, ANN)
    last = state["last"]
    assert last["side"] == 1 and len(last["dice"]) == 2 and last["moves"]
    assert last["text"].startswith("Bob played ")
    # the mover reads their own turn as theirs, a spectator by name
    assert game_state(EN, record, BOB)["last"]["text"].startswith("You played ")
    assert game_state(EN, record, EVE)["last"]["text"].startswith("Bob played ")
    for _, target in last["moves"][-1:]:  # the last step's checker stands where it went
        if target not in ("bar", "off"):
            assert state["cells"][target - 1][0] == 1
    assert set(last["hits"]) <= {target for _, target in last["moves"]}


def test_resignations_are_worded_by_their_cost() -> None:
    record = _after_black_moved(Variant.BACKGAMMON, stake_per_point=10)
    state = game_state(EN, record, ANN)
    labels = [r["label"] for r in state["resign"]]
    assert labels == ["Resign, losing 1 point", "Resign, losing 2 points",
                      "Resign, losing 3 points"]
    assert "Ann pays Bob 10" in state["resign"][0]["ask"]
    assert "resign" in state["actions"]


def test_the_board_link_is_a_supergroups_message_link() -> None:
    record = _after_black_moved(Variant.LONG)
    assert game_state(EN, record, ANN)["board_link"] == "https://t.me/c/1234567890/9"
    private = record.model_copy(update={"chat_id": 42})
    assert game_state(EN, private, ANN)["board_link"] is None


def test_proposals_on_the_chats_board_are_told_in_the_app() -> None:
    record = _after_black_moved(Variant.LONG)
    assert game_state(EN, record, ANN)["notes"] == []
    asked = record.model_copy(update={"cancel_by": BOB, "pause_by": BOB})
    assert game_state(EN, asked, ANN)["notes"] == ["Bob proposes to cancel the game.",
                                                   "Bob proposes to pause the clock."]


def _ended(**options: object) -> GameRecord:
    """A game of backgammon played at random to its end."""
    rng = random.Random(5)
    record = GameRecord(chat_id=-1001234567890, variant=Variant.BACKGAMMON, players=PLAYERS,
                        options=TableOptions(koks=False, **options), board_message_id=9)
    record = start_game(record, Dealer.for_tests(3))
    while record.status is Status.ACTIVE:
        game = table_of(record).game
        user = _mover(record)
        if game.phase is Phase.MOVE:
            tree, node, steps = turn_tree(game, Side.WHITE), 0, []
            while not tree[node]["complete"]:
                step = rng.choice(tree[node]["steps"])
                steps.append(Step(*step["step"]))
                node = step["next"]
            record = apply_turn(record, user, steps)
        else:
            record = apply_game(record, user, Callback.game(record.game_id, record.version,
                                                            ButtonAction.ROLL))
    return record


@pytest.mark.parametrize("lang", ["en", "ru", "lt"])
def test_the_result_headline_is_who_won_for_the_viewer(lang: str) -> None:
    """A player reads "You won!" or "You lost", a spectator the winner's name; the line
    under it says how and names nobody (issue 34: Bob's "You won!" sat above "Bob wins:
    oin, 1 point.", which read as a contradiction)."""
    tr = translator(lang)
    record = _ended()
    result = table_of(record).game.result
    assert result is not None
    winner, loser = (ANN, BOB) if result.winner is Side.WHITE else (BOB, ANN)
    name = "Ann" if winner == ANN else "Bob"
    seen = {user: game_state(tr, record, user)["result"] for user in (ANN, BOB, EVE)}
    assert seen[winner]["title"] == "🏆 " + tr.gettext("You won!")
    assert seen[loser]["title"] == tr.gettext("You lost")
    assert seen[EVE]["title"] == "🏆 " + tr.gettext("{name} wins", name=name)
    for shown in seen.values():
        assert shown["how"] and "Ann" not in shown["how"] and "Bob" not in shown["how"]
        assert shown["how"] == seen[EVE]["how"]
        assert name in shown["line"]  # the chat's sentence stays as it was


def _after(record: GameRecord, user: int, action: str) -> GameRecord:
    from bot.edge.initdata import InitData
    from bot.edge.webapp import acted

    asker = InitData(user_id=user, name="x", language=None, auth_date=NOW, start_param=None)
    return acted(EN, record, asker, {"action": action}, Dealer.for_tests(8)).model_copy(
        update={"version": record.version + 1})


def test_a_rematch_offer_as_each_player_sees_it() -> None:
    """Offered from the app: the offerer waits (and may withdraw), the other is sent to
    the chat's board to accept, where the tap is the new match's dice entropy; an Accept
    from the app is refused and changes nothing."""
    record = _after(_ended(), ANN, "rematch")
    assert record.rematch_by == ANN and record.next_dice is not None
    mine, theirs = (game_state(EN, record, user)["result"] for user in (ANN, BOB))
    assert mine["offer"] == {"mine": True, "accept": None,
                             "line": "Waiting for Bob to accept the rematch."}
    assert theirs["offer"]["accept"] == "chat" and theirs["offer"]["line"].startswith(
        "Ann offers a rematch. Accept it on the game's board in the chat")
    assert not mine["rematch"] and not theirs["rematch"]
    assert game_state(EN, record, EVE)["result"]["offer"] is None
    with pytest.raises(Refusal) as refused:
        _after(record, BOB, "accept")
    assert "board in the chat" in refused.value.message
    with pytest.raises(Refusal):
        _after(record, BOB, "withdraw")  # only the offerer
    assert _after(record, ANN, "withdraw").rematch_by is None
    assert _after(record, BOB, "decline").rematch_by is None


def test_the_matchs_next_game_is_accepted_in_the_app() -> None:
    """Between two games of a match the dice are the match's: nothing to mix in, so the
    next game is offered and accepted in the app; the continued game's state names it,
    or, where it waits for ▶ Start in the chat, says so."""
    record = _ended(match_length=5)
    assert not table_of(record).match_over
    offered = _after(record, BOB, "rematch")
    assert game_state(EN, offered, BOB)["result"]["offer"]["line"] == \
        "Waiting for Ann to accept the next game."
    asked = game_state(EN, offered, ANN)["result"]["offer"]
    assert asked == {"mine": False, "accept": "app", "line": "Bob offers the next game."}
    following = _after(offered, ANN, "accept")
    assert following.game_id != record.game_id and following.status is Status.ACTIVE
    assert following.dice == record.dice  # the match's seed
    done = offered.model_copy(update={"next_game": following.game_id, "rematch_by": None})
    assert game_state(EN, done, ANN)["result"]["next"] == payload(done.chat_id,
                                                                   following.game_id)
    waiting = game_state(EN, done, ANN, next_waits=True)["result"]
    assert waiting["next"] is None and waiting["waits_start"]
