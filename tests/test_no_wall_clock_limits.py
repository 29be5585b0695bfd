"""No test puts an upper bound on how long something took by the wall clock.

On a loaded machine (CI at load 9, several test runs on one box) anything
may take longer, and such tests failed at random: start-up "under 20 s",
"two getMe tries within 1.5 s".  Tests assert order and outcome, with an
injected clock where time is part of the rule (``clock=`` parameters,
``NARDY_TEST_CLOCK``); speed is measured by benchmarks/ (docs/benchmarks.md).
A lower bound ("it waited at least the pause") stays true under load and is
allowed; so is a deadline that only ends a wait that would otherwise hang.

This test reads every test module and fails on a comparison that bounds from
above a duration measured with ``time.monotonic()``, ``time.perf_counter()``
or ``time.time()`` (or a variable named ``elapsed``/``took``/``duration``)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}
DURATIONS = {"elapsed", "took", "duration", "seconds_taken"}
UPPER = (ast.Lt, ast.LtE)
LOWER = (ast.Gt, ast.GtE)


def _reads_clock(node: ast.AST) -> bool:
    """``time.monotonic()`` and friends (not an injected ``clock()``)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in CLOCKS and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "time")


def _is_duration(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in DURATIONS
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        return any(_reads_clock(side) or _is_duration(side) for side in (node.left, node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "abs":
        return any(_is_duration(arg) for arg in node.args)
    return False


def upper_bounds(source: str) -> list[int]:
    """The lines of ``source`` that bound a measured duration from above.

    >>> upper_bounds("assert time.monotonic() - started < 20")
    [1]
    >>> upper_bounds("assert 0.2 < time.monotonic() - t < 3")
    [1]
    >>> upper_bounds("assert 5 > elapsed")
    [1]
    >>> upper_bounds("assert abs(saved - time.time()) < 2")
    [1]
    >>> upper_bounds("assert time.monotonic() - started >= 1.5\\nok = clock() - t < 1")
    []
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
            if (isinstance(op, UPPER) and _is_duration(left)) or \
                    (isinstance(op, LOWER) and _is_duration(right)):
                found.append(node.lineno)
    return sorted(set(found))


def test_no_test_bounds_a_wall_clock_duration_from_above() -> None:
    offenders = [f"{path.relative_to(TESTS.parent)}:{line}"
                 for path in sorted(TESTS.rglob("*.py"))
                 for line in upper_bounds(path.read_text(encoding="utf-8"))]
    assert offenders == [], "assert order and outcome, not speed (see this module's doc)"
