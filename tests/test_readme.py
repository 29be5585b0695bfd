"""README.md and docs/*.md stay true: their Python examples run as written,
their links resolve, and the files, names and modules they point at exist."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
PYTHON_PAGES = [page for page in PAGES if "```python\n" in page.read_text(encoding="utf-8")]

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
REPO_PATH = re.compile(r"(?<![\w./<-])((?:bot|engine|tests|benchmarks|bin|docs)/[\w./-]*[\w/])")
FILE_NAME = re.compile(r"`((?:bot|engine|tests|benchmarks)/[\w/]+\.py):([\w.]+)`")
MODULE = re.compile(r"python -m ([\w.]+)")


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+\s+(.*?)\s*$", FENCE.sub("", _text(page)), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_some_page_has_a_python_example() -> None:
    assert PYTHON_PAGES, "neither README.md nor docs/*.md has a Python example"


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=_id)
def test_readme_python_examples_run(page: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert blocks, f"{_id(page)} has no Python example"
    for block in blocks:
        exec(compile(block, str(page), "exec"), {"__name__": "readme_example"})


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_relative_links_resolve(page: Path) -> None:
    """Every link or picture that is not a URL names a file of the repo (and
    a heading of it, when it has an ``#anchor``)."""
    broken = []
    for target in LINK.findall(FENCE.sub("", _text(page))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        exists = file.exists() and ROOT in file.parents
        if not exists or (anchor and file.suffix == ".md" and anchor not in _anchors(file)):
            broken.append(target)
    assert not broken, f"{_id(page)} links to what does not exist: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_named_paths_exist(page: Path) -> None:
    """Paths such as `bot/store.py` or `benchmarks/bot_bench.py`, in the text
    and in its commands, exist (relative to the repository's root)."""
    missing = sorted({path for path in REPO_PATH.findall(_text(page))
                      if not (ROOT / path).exists()})
    assert not missing, f"{_id(page)} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_named_functions_exist(page: Path) -> None:
    """`file.py:name` (or `file.py:Class.method`) names something defined in that file."""
    missing = []
    for path, dotted in FILE_NAME.findall(_text(page)):
        file = ROOT / path
        source = file.read_text(encoding="utf-8") if file.exists() else ""
        for name in dotted.split("."):
            defined = rf"^\s*(?:(?:async\s+)?def|class)\s+{name}\b|^\s*{name}\s*[:=]"
            if not re.search(defined, source, re.M):
                missing.append(f"{path}:{dotted}")
                break
    assert not missing, f"{_id(page)} names what is not defined: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_named_modules_exist(page: Path) -> None:
    """Every `python -m <module>` in a page can be run."""
    missing = sorted({module for module in MODULE.findall(_text(page))
                      if importlib.util.find_spec(module) is None})
    assert not missing, f"{_id(page)} runs modules that do not exist: {missing}"


def test_every_picture_in_docs_is_shown() -> None:
    shown = {(page.parent / target).resolve()
             for page in PAGES for target in LINK.findall(_text(page))}
    unshown = sorted(p.name for p in DOCS.glob("*.png") if p.resolve() not in shown)
    assert not unshown, f"docs/ pictures no page shows: {unshown}"
