"""tests/ mirrors the source packages (issue 23 §8).

The tests of ``bot/vocab/clock.py`` are in ``tests/bot/rules/``, of
``engine/`` in ``tests/engine/``: a reader finds a module's tests by its path.
Every directory of tests/ that holds tests (a ``test_*.py`` or a
``conftest.py``) is a source package's (``tests/bot/edge/handlers`` for
``bot/edge/handlers``) or one of the few that test no one package
(:data:`CROSS_CUTTING`); at the top of tests/ only checks of the whole
project (:data:`TOP_LEVEL`).  A test file put anywhere else fails here."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

CROSS_CUTTING = {
    "e2e": "the real bot process against the local Bot API server",
    "ops": "several workers behind webhooks, sharing one Redis",
    "botapi": "the local Bot API server and its own tests",
    "doc_examples": "the saved outputs of the docs' examples (tests/test_readme.py)",
}
"""Top-level directories of tests/ that are not a source package's."""

TOP_LEVEL = {
    "test_readme.py": "the README and docs/ pages: their examples, links and paths",
    "test_no_wall_clock_limits.py": "every test module: no wall-clock upper bound",
    "test_layout.py": "this file: the layout of tests/",
}
"""The test files that may sit at the top of tests/: they read the whole project."""


def _holds_tests(directory: Path) -> bool:
    return (directory / "conftest.py").is_file() or any(directory.glob("test_*.py"))


def misplaced(tests: Path, root: Path) -> list[str]:
    """Why each test directory or top-level test file under `tests` mirrors
    no package under `root` (and is not declared above); empty if all do."""
    wrong = [f"{file.relative_to(root)}: a test file at the top of tests/ "
             "(put it beside the package it tests)"
             for file in sorted(tests.glob("test_*.py")) if file.name not in TOP_LEVEL]
    for directory in sorted(path for path in tests.rglob("*") if path.is_dir()):
        relative = directory.relative_to(tests)
        if relative.parts[0] in CROSS_CUTTING or "__pycache__" in relative.parts:
            continue
        if not _holds_tests(directory):
            continue  # data: golden files, saved exports
        source = root.joinpath(*relative.parts)
        if not (source / "__init__.py").is_file():
            wrong.append(f"{directory.relative_to(root)}: no package {source.relative_to(root)}/"
                         " to mirror (and not declared in tests/test_layout.py)")
    return wrong


def test_every_test_directory_mirrors_a_source_package() -> None:
    assert misplaced(TESTS, ROOT) == []


def test_the_declared_exceptions_exist() -> None:
    """A declared exception that was renamed or removed is not left behind."""
    assert [name for name in CROSS_CUTTING if not (TESTS / name).is_dir()] == []
    assert [name for name in TOP_LEVEL if not (TESTS / name).is_file()] == []


def test_a_test_file_outside_the_mirror_is_found(tmp_path: Path) -> None:
    """The check itself: what it must refuse, on a tree made for it."""
    (tmp_path / "bot" / "rules").mkdir(parents=True)
    (tmp_path / "bot" / "__init__.py").write_text("")
    (tmp_path / "bot" / "rules" / "__init__.py").write_text("")
    tests = tmp_path / "tests"
    for path in ("bot/rules/test_ok.py", "bot/rules/golden/board.png", "bot/stor/test_typo.py",
                 "e2e/test_process.py", "test_clock.py", "test_readme.py"):
        (tests / path).parent.mkdir(parents=True, exist_ok=True)
        (tests / path).write_text("")
    assert misplaced(tests, tmp_path) == [
        "tests/test_clock.py: a test file at the top of tests/"
        " (put it beside the package it tests)",
        "tests/bot/stor: no package bot/stor/ to mirror (and not declared in tests/test_layout.py)",
    ]
