"""No part of the bot uses what is unsafe on redis-py's async cluster client.

redis-py runs an async cluster *transaction* pipeline (``pipeline()``, whose
default is ``transaction=True``, and MULTI/EXEC/WATCH) through ``asyncio.run``
in a new thread that it joins on the caller's event loop: in a master failover
that join never returned and the worker stopped for good (issue 22).  What is
safe: a Lua script on one hash slot (the bot's compare-and-set and every other
multi-key step), or ``pipeline(transaction=False)``.  This guards the whole
class by reading every module of ``bot/`` (its syntax tree, so a comment or a
docstring naming the API does not count)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3] / "bot"
FORBIDDEN = frozenset({"multi", "watch", "transaction", "unwatch"})
"""Method names of the transaction API (any receiver: the client or a pipeline)."""


def unsafe_calls(source: str) -> list[str]:
    """What ``source`` calls of the unsafe API: ``line: text`` each.

    >>> unsafe_calls("r.pipeline()\\nr.pipeline(transaction=False)\\np.multi()")
    ['1: r.pipeline()', '3: p.multi()']
    >>> unsafe_calls("r.pipeline(transaction=True)\\nr.pipeline(transaction=flag)")
    ['1: r.pipeline(transaction=True)', '2: r.pipeline(transaction=flag)']
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        if name == "pipeline":
            flag = next((k.value for k in node.keywords if k.arg == "transaction"), None)
            safe = isinstance(flag, ast.Constant) and flag.value is False
        else:
            safe = name not in FORBIDDEN
        if not safe:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_finder_sees_a_transaction_pipeline() -> None:
    # what the store used until issue 22: must be found
    old = "pipe = store.redis.pipeline(transaction=True)\npipe.hset(k, 'a', 1)\n"
    assert unsafe_calls(old) == ["1: store.redis.pipeline(transaction=True)"]


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_uses_a_transaction_pipeline(path: Path) -> None:
    assert unsafe_calls(path.read_text()) == [], (
        f"{path}: use a Lua script on one slot (bot/store/client.py hset_expiring, "
        "zadd_capped) or pipeline(transaction=False)")
