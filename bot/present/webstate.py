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

import hashlib
import html
import json
import re
from typing import Any

from bot.present.board import board_message, board_view, viewer_of
from bot.present.names import KIND_NAMES
from bot.present.render.view import BoardView, occupant, viewer_point
from bot.rules import hints
from bot.rules.matchstate import table_of
from bot.rules.play import may_beaver, may_double, resign_options
from bot.rules.seats import seat_of
from bot.vocab.i18n import N_, Translator
from bot.vocab.records import GameRecord, Status
from bot.vocab.refusals import Refusal
from engine.game import Game, Phase
from engine.position import BAR, OFF, POINTS, Position, Side, Step, Variant

MAX_NODES = 6000
"""Positions a turn tree may list (a double's tree has a few hundred at most)."""

_TAG = re.compile(r"<[^>]+>")

TEXTS = {
    "undo": N_("Undo"), "confirm": N_("Confirm"), "roll": N_("Roll"), "double": N_("Double"),
    "take": N_("Take"), "pass": N_("Pass"), "beaver": N_("Beaver"), "accept": N_("Accept"),
    "decline": N_("Decline"), "hint": N_("Hint"), "resign": N_("Resign"),
    "sure": N_("Are you sure?"), "watching": N_("You are watching: only the players move."),
    "your_move": N_("Tap a checker, then the point it goes to, or drag it there."),
    "bar": N_("bar"), "off": N_("off"),
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


def game_state(tr: Translator, record: GameRecord, user_id: int, *,
               orientation: str = "follow", packed: bool = False) -> dict[str, Any]:
    """The JSON the app draws for ``user_id`` (a seated player, or a spectator);
    ``packed``: its turn tree as :func:`pack_tree` sends it (the app asks for it)."""
    table = table_of(record)
    game = table.game
    you = seat_of(record, user_id)
    viewer = viewer_of(game, orientation)
    view = board_view(tr, record, table, viewer)
    caption = plain(board_message(tr, record, style="png", orientation=orientation,
                                  picture=False).text)
    cube = game.cube
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
        "caption": caption, "actions": _actions(record, game, you, user_id),
        "resign": [tr.gettext("Resign: {what}", what=tr.gettext(KIND_NAMES[kind]))
                   for kind in resign_options(table)],
        **_board(game.position, viewer),
        "tree": None,
        "texts": {key: tr.gettext(msgid) for key, msgid in TEXTS.items()},
    }
    if (record.status is Status.ACTIVE and you is not None and game.to_act is you
            and game.phase is Phase.MOVE):
        tree = turn_tree(game, viewer)
        state["tree"] = pack_tree(tree) if packed else tree
        state["played"] = [[s.source, s.target, s.die]
                           for s in (game.turn.played if game.turn else ())]
    return state


def step_of(value: Any) -> Step:
    """A step the client sent, as three whole numbers, else ValueError."""
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError("a step is [source, target, die]")
    return Step(*value)
