"""What the Mini App is sent: a game as JSON, drawn as the board picture draws it.

Pure: :func:`game_state` turns a record (and who asks) into the JSON the app
renders.  The board is given by screen cell, the viewer's point labels 1..24
laid out as the picture lays them (:func:`bot.present.render.view.cell_of`:
13..24 along the top, 12..1 along the bottom), from the same fixed side as the
chat's picture (:func:`bot.present.board.viewer_of`).  The client decides
nothing: for the mover, :func:`turn_tree` lists every position the roll can
reach step by step and the legal steps out of each, computed by the engine; the
app only walks it, and the server checks the turn it sends again.

>>> from engine.game import Game, GameOptions
>>> import random
>>> game = Game.new(GameOptions.backgammon()).roll(random.Random(1))
>>> tree = turn_tree(game, Side.WHITE)
>>> tree[0]["complete"], all(s["next"] > 0 for s in tree[0]["steps"])
(False, True)
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import re
from typing import Any

from bot.present.board import board_view, last_turn, result_line, viewer_of
from bot.present.dice import verify_message
from bot.present.ledger import booked_line, pays_line
from bot.present.names import KIND_NAMES, board_labels, side_name
from bot.present.render.view import BoardView, occupant, viewer_point
from bot.present.webapp import payload
from bot.rules import hints
from bot.rules.dice import entropy_tap, revealed
from bot.rules.ledger import outcome
from bot.rules.matchstate import MatchState, table_of
from bot.rules.play import may_beaver, may_double, resign_cost, resign_options
from bot.rules.seats import player_on, seat_of
from bot.vocab import clock
from bot.vocab.callbacks import ButtonAction
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import ACCEPT_IN_CHAT, Refusal
from bot.vocab.tournament import is_tournament_game
from bot.vocab.usertext import clean
from engine.game import Game, Phase
from engine.notation import format_turn, hits
from engine.position import BAR, OFF, POINTS, Position, Side, Step, Variant
from engine.scoring import EndReason

MAX_NODES = 6000
"""Positions a turn tree may list (a double's tree has a few hundred at most)."""

_TAG = re.compile(r"<[^>]+>")

TEXTS = {
    "undo": N_("Undo"), "confirm": N_("Confirm"), "roll": N_("Roll"),
    "accept": N_("Accept"), "decline": N_("Decline"), "hint": N_("Hint"),
    "watching": N_("You are watching: only the players move."),
    "your_move": N_("Tap a checker, then the point it goes to, or drag it there."),
    "bar": N_("bar"), "off": N_("off"), "pips": N_("pips"), "menu": N_("More"),
    "close": N_("Close"), "cancel": N_("Cancel"), "your_turn": N_("Your turn"),
    "no_move": N_("no legal move"), "you": N_("you"),
    "blocked": N_("That point is blocked."),
    "bar_first": N_("Move the checker on the bar first."),
    "home_first": N_("Bearing off needs all your checkers in your home."),
    "not_yours": N_("That is not your checker."),
    "no_die": N_("No die takes that checker there."),
    "cannot_move": N_("That checker cannot move with these dice."),
    "head": N_("Only one checker may leave the head in a turn."),
    "rules": N_("The rules do not allow that move now: both dice must be played if they can be, "
                "the larger one if only one can."),
    "more_steps": N_("Play all your dice first."),
    "rematch": N_("Rematch"), "new_game": N_("New game"), "analysis": N_("Analysis"),
    "verify": N_("Verify the dice"), "to_board": N_("Open the board in the chat"),
    "next_game": N_("Play the next game"), "withdraw": N_("Withdraw the offer"),
    "accept_in_chat": N_("Accept in the chat"), "analysing": N_("📊 Analysing the game…"),
    "start_in_chat": N_("The next game starts with {start} on its board in the chat."),
    "resign_title": N_("Resign?"), "resign_yes": N_("Resign"),
    # the clock in a player's bar (the app fills in the numbers)
    "clock_days": N_("{d}d {h}h"), "clock_hours": N_("{h}h {m}m"),
}
"""The app's own words, sent translated with every state."""

def plain(text: str) -> str:
    """An HTML message text as plain text (the app shows it with ``textContent``).

    >>> plain("<b>Long nardy</b> · A &amp; B")
    'Long nardy · A & B'
    """
    return html.unescape(_TAG.sub("", text))


def cells(position: Position, viewer: Side) -> list[list[int]]:
    """Each of the viewer's points 1..24 as ``[side, count]`` (side -1: empty)."""
    view = BoardView(position, viewer)
    out = []
    for label in range(1, POINTS + 1):
        side, count = occupant(view, label)
        out.append([-1 if side is None else int(side), count])
    return out


def _place(variant: Variant, mover: Side, viewer: Side, point: int) -> int | str:
    """A mover's own point as the app's cell: the viewer's label, "bar" or "off"."""
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return viewer_point(variant, mover, viewer, point)


def _board(position: Position, viewer: Side) -> dict[str, Any]:
    return {"cells": cells(position, viewer),
            "bar": [position.checkers(side, BAR) for side in Side],
            "off": [position.borne_off(side) for side in Side]}


def turn_tree(game: Game, viewer: Side) -> list[dict[str, Any]]:
    """Every position the roll reaches from the turn as played so far (node 0),
    each with its legal steps and the node each leads to; ``complete``: the
    turn may be confirmed there.  Positions reached by the same dice in another
    order are one node."""
    turn = game.turn
    assert turn is not None
    mover, variant = game.position.turn, game.variant
    nodes: list[dict[str, Any]] = []
    index: dict[tuple[Position, tuple[int, ...]], int] = {}

    def visit(g: Game) -> int:
        here = g.turn
        assert here is not None
        key = (here.position, tuple(sorted(s.die for s in here.played)))
        if key in index:
            return index[key]
        if len(nodes) >= MAX_NODES:
            raise ValueError("turn tree too large")
        number = index[key] = len(nodes)
        node: dict[str, Any] = {**_board(here.position, viewer), "complete": here.is_complete,
                                "steps": []}
        nodes.append(node)
        for step in sorted(here.legal_steps, key=lambda s: (-s.source, s.die)):
            node["steps"].append({
                "step": [step.source, step.target, step.die],
                "from": _place(variant, mover, viewer, step.source),
                "to": _place(variant, mover, viewer, step.target),
                "next": visit(g.play_step(step))})
        return number

    visit(game)
    return nodes


PLACES = {"bar": 25, "off": 26}
"""A step's app cell on the wire of a packed tree: the viewer's label 1..24, or these."""


def _flat(node: dict[str, Any]) -> list[int]:
    """A node's board as 28 numbers: the 24 cells (White's checkers counted up,
    Black's down), then the bar and the borne off of each side."""
    cells = [0 if side < 0 else count if side == 0 else -count for side, count in node["cells"]]
    return cells + list(node["bar"]) + list(node["off"])


def pack_tree(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """:func:`turn_tree` as sent to the app (issue 34: a double's tree was up to
    300 kB of JSON): the root's board once (:func:`_flat`), then each node as
    ``[complete 0/1, [cell, value, ...] where its board differs from the root's,
    [source, target, die, from, to, next, ...] for its steps]`` (``from``/``to``
    :data:`PLACES` for the bar and off).  bot/webapp/static/tree.js ``unpackTree``
    (and :func:`unpack_tree`) give back :func:`turn_tree`'s nodes exactly.

    >>> from engine.game import Game, GameOptions
    >>> import random
    >>> game = Game.new(GameOptions.backgammon()).roll(random.Random(1))
    >>> tree = turn_tree(game, Side.WHITE)
    >>> unpack_tree(pack_tree(tree)) == tree
    True
    """
    root = _flat(nodes[0])
    packed = []
    for node in nodes:
        board = _flat(node)
        changes = [n for i, (was, now) in enumerate(zip(root, board, strict=True)) if was != now
                   for n in (i, now)]
        steps = [n for step in node["steps"]
                 for n in (*step["step"], PLACES.get(step["from"], step["from"]),
                           PLACES.get(step["to"], step["to"]), step["next"])]
        packed.append([int(node["complete"]), changes, steps])
    return {"root": root, "nodes": packed}


def unpack_tree(packed: dict[str, Any]) -> list[dict[str, Any]]:
    """:func:`pack_tree` undone (what tree.js does in the app; for tests and tools)."""
    names = {code: name for name, code in PLACES.items()}
    nodes = []
    for complete, changes, steps in packed["nodes"]:
        board = list(packed["root"])
        for i in range(0, len(changes), 2):
            board[changes[i]] = changes[i + 1]
        nodes.append({
            "cells": [[-1, 0] if v == 0 else [0, v] if v > 0 else [1, -v] for v in board[:24]],
            "bar": board[24:26], "off": board[26:28], "complete": bool(complete),
            "steps": [{"step": steps[i:i + 3], "from": names.get(steps[i + 3], steps[i + 3]),
                       "to": names.get(steps[i + 4], steps[i + 4]), "next": steps[i + 5]}
                      for i in range(0, len(steps), 6)]})
    return nodes


def play_key(record: GameRecord) -> str:
    """What the app's unsent steps stand on: the game as played (its engine state and
    status).  A save that moves only the board (``/board`` typed by anyone, a
    reminder, a ping) keeps it, so the app keeps the mover's steps and a turn sent
    on the version before such a save is still taken (bot/edge/webapp.py)."""
    data = json.dumps([record.status.value, record.engine], sort_keys=True,
                      separators=(",", ":"))
    return hashlib.blake2b(data.encode(), digest_size=8).hexdigest()


def _actions(record: GameRecord, game: Game, you: Side | None, user_id: int) -> list[str]:
    """What the app offers ``you`` now (the server checks each again)."""
    if record.status is not Status.ACTIVE or you is None or game.to_act is not you:
        return []
    table = table_of(record)
    found = []
    if game.phase is Phase.ROLL:
        found += ["roll"] + (["double"] if may_double(record, table) else [])
    elif game.phase is Phase.DOUBLE:
        found += ["take", "pass"] + (["beaver"] if may_beaver(game) else [])
    elif game.phase is Phase.RESIGNATION:
        found += ["accept", "decline"]
    if game.phase is Phase.MOVE:
        try:
            hints.ask(record, user_id)
            found.append("hint")
        except Refusal:
            pass
    if game.phase in (Phase.ROLL, Phase.MOVE):
        found.append("resign")
    return found


def _viewer(game: Game, you: Side | None, orientation: str) -> Side:
    """The side drawn at the bottom: a player's own, always (their checkers at the
    bottom, their numbers); a spectator's, the chat's view."""
    return you if you is not None else viewer_of(game, orientation)


def _last(tr: Translator, record: GameRecord, game: Game, viewer: Side,
          you: Side | None) -> dict[str, Any] | None:
    """The last confirmed turn, in the viewer's cells: each step's origin and target,
    the cells where it hit, its dice, and its text in the viewer's numbers (the app
    prints the viewer's numbers only, so no "(Bob's numbers)" note is needed); a
    player's own turn is "You played", as the bars say "you"."""
    last = last_turn(game)
    if last is None or last.start is None:
        return None
    roll = last.dice
    dice = [roll.first, roll.second] if roll is not None else []
    name = side_name(record, last.side)
    shown = f"{roll.first}-{roll.second}" if roll is not None else ""
    own = last.side is you
    if not last.steps:
        text = (tr.gettext("You rolled {dice} and could not move.", dice=shown) if own else
                tr.gettext("{name} rolled {dice} and cannot move.", name=name, dice=shown))
    else:
        labels = board_labels(tr)
        steps = format_turn(last.start, last.steps, numbering=viewer, bar=labels.bar,
                            off=labels.off)
        text = (tr.gettext("You played {dice}: {steps}", dice=shown, steps=steps) if own else
                tr.gettext("{name} played {dice}: {steps}", name=name, dice=shown, steps=steps))
    place = functools.partial(_place, game.variant, last.side, viewer)
    return {"side": int(last.side), "dice": dice, "text": plain(text),
            "moves": [[place(s.source), place(s.target)] for s in last.steps],
            "hits": [place(s.target) for s, hit in zip(last.steps, hits(last.start, last.steps),
                                                        strict=True) if hit]}


def _players(record: GameRecord, table: MatchState) -> list[dict[str, Any]]:
    """Each side's bar: name, pips, borne off, match score."""
    game = table.game
    return [{"name": clean(player_on(record, side).name), "pips": game.position.pips(side),
             "off": game.position.borne_off(side),
             "score": table.score[side] if table.match_length else None} for side in Side]


def _clock(record: GameRecord) -> dict[str, Any] | None:
    """The clock of whoever must act: seconds left (counted down by the app), or paused."""
    if record.status is not Status.ACTIVE or record.deadline is None:
        return None
    return {"left": max(0.0, record.deadline - clock.now()),
            "paused": record.paused_at is not None}


def _points(tr: Translator, n: int) -> str:
    return tr.ngettext("{n} point", "{n} points", n, n=n)


def _resigns(tr: Translator, record: GameRecord, you: Side) -> list[dict[str, Any]]:
    """The resignations ``you`` may offer, worded by what they cost (the chat's
    "Resign: mars" is a term a newcomer does not know): its button and the
    confirmation's text, with what a staked game books."""
    table = table_of(record)
    found = []
    for level, _kind in enumerate(resign_options(table), start=1):
        ended, kind = resign_cost(record, you, level)
        done = outcome(ended)
        assert done.result is not None
        points = _points(tr, done.result.points)
        ask = tr.gettext("You give up this game ({kind}); {name} gets {points}.",
                         kind=tr.gettext(KIND_NAMES[kind]), points=points,
                         name=clean(player_on(record, you.opponent).name))
        if done.amount:
            ask += " " + pays_line(tr, clean(player_on(record, you).name),
                                   clean(player_on(record, you.opponent).name), done.amount) + "."
        found.append({"level": level, "label": tr.gettext("Resign, losing {points}",
                                                           points=points), "ask": ask})
    return found


def _labels(tr: Translator, game: Game, actions: list[str]) -> dict[str, str]:
    """The actions' buttons in plain words: "Double to 4", "Pass (lose 2 points)"."""
    cube = game.cube
    value = cube.value if cube is not None else 1
    words = {"roll": tr.gettext("Roll"), "hint": "💡 " + tr.gettext("Hint"),
             "accept": tr.gettext("Accept"), "decline": tr.gettext("Decline"),
             "double": tr.gettext("Double to {value}", value=value * 2),
             "take": tr.gettext("Accept: play for {value}", value=value * 2),
             "pass": tr.gettext("Pass (lose {points})", points=_points(tr, value)),
             "beaver": tr.gettext("Beaver: redouble to {value}", value=value * 4)}
    return {name: words[name] for name in actions if name in words}


def _prompt(tr: Translator, record: GameRecord, game: Game, you: Side | None) -> str:
    """What the viewer is waiting for, or what they must do, in one line."""
    actor = game.to_act
    if record.status is not Status.ACTIVE or actor is None:
        return ""
    other = clean(player_on(record, actor).name)
    if you is None:
        return tr.gettext("Waiting for {name}.", name=other)
    phase = game.phase
    if actor is you:
        if phase is Phase.ROLL:
            return tr.gettext("Your turn: roll the dice.")
        if phase is Phase.MOVE:
            return tr.gettext("Your turn: move.")
        if phase is Phase.DOUBLE:
            assert game.cube is not None
            return tr.gettext("{name} doubles to {value}: accept or pass?",
                              name=clean(player_on(record, you.opponent).name),
                              value=game.cube.value * 2)
        offer = game.resign_offer
        assert offer is not None
        return tr.gettext("{name} offers to resign ({kind}): accept or decline?",
                          name=clean(player_on(record, you.opponent).name),
                          kind=tr.gettext(KIND_NAMES[offer.kind]))
    if phase is Phase.DOUBLE:
        return tr.gettext("{name} is deciding on your double.", name=other)
    if phase is Phase.RESIGNATION:
        return tr.gettext("{name} is deciding on your offer to resign.", name=other)
    if phase is Phase.ROLL:
        return tr.gettext("Waiting for {name} to roll.", name=other)
    return tr.gettext("Waiting for {name} to move.", name=other)


def _notes(tr: Translator, record: GameRecord) -> list[str]:
    """Proposals waiting on the board's buttons (cancel the game, pause or resume the
    clock, the next game after the end): the chat's own lines, so the app's player
    knows why the board in the chat asks them something."""
    lines = []
    named = {p.user_id: clean(p.name) for p in record.players}
    if record.status is Status.ACTIVE and record.cancel_by in named:
        lines.append(tr.gettext("{name} proposes to cancel the game.",
                                name=named[record.cancel_by]))
    if record.status is Status.ACTIVE and record.pause_by in named:
        lines.append(tr.gettext("{name} proposes to resume the clock.", name=named[record.pause_by])
                     if record.paused_at is not None else
                     tr.gettext("{name} proposes to pause the clock.", name=named[record.pause_by]))
    if record.status is Status.FINISHED and record.rematch_by in named:
        lines.append(tr.gettext("{name} offers a rematch. {other}: accept or decline?",
                                name=named[record.rematch_by],
                                other=next(n for u, n in named.items() if u != record.rematch_by)))
    return lines


HOW = {EndReason.BORNE_OFF: N_("{kind}, {points}."),
       EndReason.RESIGNED: N_("By resignation: {kind}, {points}."),
       EndReason.DOUBLE_PASSED: N_("The double was passed: {points}."),
       EndReason.TIMEOUT: N_("On time: {points}.")}
"""How a game was won, naming nobody: the result screen's headline says who."""


def _headline(tr: Translator, record: GameRecord, winner: Side, you: Side | None) -> str:
    """The result screen's headline: who won as the viewer sees it (a player: "You
    won!" or "You lost"; a spectator: the winner's name).  The line under it says how
    and names nobody: "Bob wins: …" under Bob's own "You won!" read as a contradiction
    (issue 34), the sheet covering his bar, so nothing on it said he was Bob."""
    if you is None:
        return "🏆 " + tr.gettext("{name} wins", name=side_name(record, winner))
    return "🏆 " + tr.gettext("You won!") if winner is you else tr.gettext("You lost")


OFFERS = {True: (N_("Waiting for {name} to accept the rematch."), N_("{name} offers a rematch.")),
          False: (N_("Waiting for {name} to accept the next game."),
                  N_("{name} offers the next game."))}
"""The offer of the next game after a game, by whether the match is over (a rematch)
or goes on: as its offerer waits for it, and as the other player is asked."""


def _offer(tr: Translator, record: GameRecord, table: MatchState,
           you: Side | None) -> dict[str, Any] | None:
    """The offer of the next game (a rematch, the match's next game) as a player sees
    it: ``mine`` (its offerer may withdraw it), its line, and where the other player
    accepts it: ``app``, or ``chat`` where that tap is the new match's dice entropy
    (:func:`bot.rules.dice.entropy_tap`: a request from the app carries none)."""
    if (you is None or record.status is not Status.FINISHED or record.next_game is not None
            or record.rematch_by is None):
        return None
    offerer = seat_of(record, record.rematch_by)
    if offerer is None:
        return None
    waiting, offered = OFFERS[table.match_over]
    if offerer is you:
        return {"mine": True, "accept": None, "line": tr.gettext(
            waiting, name=clean(player_on(record, you.opponent).name))}
    chat = entropy_tap(record, ButtonAction.ACCEPT) is not None
    return {"mine": False, "accept": "chat" if chat else "app",
            "line": tr.gettext(offered, name=clean(player_on(record, offerer).name))
            + (" " + tr.gettext(ACCEPT_IN_CHAT) if chat else "")}


def _result(tr: Translator, record: GameRecord, table: MatchState,
            you: Side | None, next_waits: bool = False) -> dict[str, Any] | None:
    """The result screen: who won (``title``, for the viewer) and how (``how``), the
    points, the match, what was booked, and the dice's verification (the seed, once
    revealed); ``line``: the chat's sentence."""
    game = table.game
    if record.status is Status.ACTIVE:
        return None
    result = game.result
    found: dict[str, Any] = {"winner": None if result is None else int(result.winner),
                             "line": "", "points": None, "match": None, "booked": None,
                             "dice": plain(verify_message(tr, record))
                             if record.dice is not None and revealed(record) else None,
                             # Rematch (or the match's next game) may be offered
                             # (a tournament's finished match: its next round instead)
                             "rematch": bool(you is not None and record.status is Status.FINISHED
                                             and record.next_game is None
                                             and record.rematch_by is None
                                             and not (table.match_over and is_tournament_game(
                                                 record.game_id))),
                             "rematch_label": tr.gettext("Rematch") if table.match_over
                             else tr.label("next_game"),
                             "offered": record.rematch_by,
                             "offer": _offer(tr, record, table, you),
                             # the game that continued this one (a rematch accepted, the
                             # match's next game): the app opens it
                             "next": None if record.next_game is None or next_waits
                             else payload(record.chat_id, record.next_game),
                             "waits_start": next_waits}
    if result is None:
        found["line"] = found["title"] = tr.gettext("The game was cancelled.")
        return found
    found["line"] = plain(result_line(tr, record, game))
    found["title"] = plain(_headline(tr, record, result.winner, you))
    how = tr.gettext(HOW[result.reason], kind=tr.gettext(KIND_NAMES[result.kind]),
                     points=_points(tr, result.points))
    found["how"] = how[:1].upper() + how[1:]
    found["points"] = _points(tr, result.points)
    if table.match_length:
        white, black = table.score
        found["match"] = plain(tr.gettext(
            "Match to {n}: {white} {w} – {black} {b}.", n=table.match_length,
            white=side_name(record, Side.WHITE), w=white, black=side_name(record, Side.BLACK),
            b=black))
    booked = booked_line(tr, record)
    found["booked"] = plain(booked) if booked else None
    return found


def game_state(tr: Translator, record: GameRecord, user_id: int, *,
               orientation: str = "follow", packed: bool = False,
               next_waits: bool = False) -> dict[str, Any]:
    """The JSON the app draws for ``user_id`` (a seated player, or a spectator);
    ``packed``: its turn tree as :func:`pack_tree` sends it (the app asks for it);
    ``next_waits``: the game that continued this one waits for ▶ Start in the chat
    (a rematch against the computer), so the app cannot open it yet."""
    table = table_of(record)
    game = table.game
    you = seat_of(record, user_id)
    viewer = _viewer(game, you, orientation)
    # a player's own numbers always; a spectator's, the chat's board's
    view = board_view(tr, record, table, viewer, own=you is not None)
    cube = game.cube
    actions = _actions(record, game, you, user_id)
    state: dict[str, Any] = {
        "game": record.game_id, "version": record.version, "play": play_key(record),
        "status": record.status.value,
        "variant": game.variant.value, "viewer": int(viewer),
        "you": None if you is None else int(you),
        # whoever must act (nobody once the game ended, however: the board's one end state)
        "to_act": None if view.ended or game.to_act is None else int(game.to_act),
        "phase": game.phase.value, "names": list(view.names),
        "numbers": [view.number_at(label) for label in range(1, POINTS + 1)],
        "dice": [[value, used] for value, used in view.dice_faces()],
        "cube": None if cube is None else {"value": cube.value, "owner": None if cube.owner is
                                           None else int(cube.owner)},
        "score": list(table.score) if table.match_length else None,
        "match_length": table.match_length or None,
        "players": _players(record, table), "clock": _clock(record),
        "last": _last(tr, record, game, viewer, you), "prompt": _prompt(tr, record, game, you),
        "notes": _notes(tr, record),
        "result": _result(tr, record, table, you, next_waits),
        "actions": actions, "labels": _labels(tr, game, actions),
        "resign": (_resigns(tr, record, you) if you is not None and "resign" in actions
                   else []),
        **_board(game.position, viewer),
        "tree": None,
        # a text that names a button names it as it reads (here: in the viewer's language)
        "texts": {key: tr.naming(msgid, tr) for key, msgid in TEXTS.items()},
        "lang": tr.lang, "board_link": board_link(record),
    }
    if (record.status is Status.ACTIVE and you is not None and game.to_act is you
            and game.phase is Phase.MOVE):
        tree = turn_tree(game, viewer)
        state["tree"] = pack_tree(tree) if packed else tree
        state["played"] = [[s.source, s.target, s.die]
                           for s in (game.turn.played if game.turn else ())]
    return state


SUPERGROUP = 10**12
"""A supergroup's chat id is -(10**12 + its id in t.me/c/ links)."""


def board_link(record: GameRecord) -> str | None:
    """A link to the game's board message in a supergroup (Rematch, New game and
    📊 Analysis are its buttons), for the app to open; None where Telegram has no
    message links (a private chat: closing the app shows its board)."""
    if record.board_message_id is None or record.chat_id > -SUPERGROUP:
        return None
    topic = f"{record.thread_id}/" if record.thread_id else ""
    return f"https://t.me/c/{-record.chat_id - SUPERGROUP}/{topic}{record.board_message_id}"


def step_of(value: Any) -> Step:
    """A step the client sent, as three whole numbers, else ValueError."""
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError("a step is [source, target, die]")
    return Step(*value)
