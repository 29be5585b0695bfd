"""The documentation stays true: README.md and docs/*.md.

- Their Python examples run as written and print what they printed when they
  were checked: the output must equal the ```` ```text ```` block that
  directly follows the example, if the page shows one; else the output saved
  under tests/doc_examples/, named after the example's code (so the example
  may move to another page unchanged).  ``UPDATE_GOLDEN=1`` writes the saved
  outputs afresh: read the diff before committing.
- Their links resolve, and the files, names and modules they point at exist.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
SAVED = Path(__file__).parent / "doc_examples"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
_EXAMPLE = re.compile(r"```python\n(.*?)```\n(?:\s*\n)?(?:```text\n(.*?)```)?", re.S)

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


def _examples() -> list[tuple[str, str, str | None]]:
    """(page and number, code, the output the page shows or None) of every example."""
    found = []
    for page in PAGES:
        for number, match in enumerate(_EXAMPLE.finditer(page.read_text(encoding="utf-8")), 1):
            found.append((f"{page.relative_to(ROOT)}#{number}", match[1], match[2]))
    return found


def _key(code: str) -> str:
    """The saved output's name: the code without comments and blank lines, hashed."""
    lines = [re.sub(r"\s+#.*$|^\s*#.*$", "", line).rstrip() for line in code.splitlines()]
    body = "\n".join(line for line in lines if line)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def _run(code: str, where: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, "exec"), {"__name__": "doc_example"})
    return out.getvalue()


def test_the_readme_has_an_example() -> None:
    assert _examples(), "README.md and docs/ have no Python example"


@pytest.mark.parametrize(("where", "code", "shown"), _examples(),
                         ids=[where for where, _, _ in _examples()])
def test_doc_examples_print_what_they_promise(where: str, code: str, shown: str | None) -> None:
    output = _run(code, where)
    assert output, f"{where} prints nothing: there is nothing to compare"
    if shown is not None:
        assert output == shown, f"{where} prints something else than the page shows"
        return
    saved = SAVED / f"{_key(code)}.txt"
    if UPDATE:
        SAVED.mkdir(exist_ok=True)
        saved.write_text(output, encoding="utf-8")
    assert saved.exists(), (f"no saved output for {where} ({saved.name}): show it in a ```text "
                            "block after the example, or run with UPDATE_GOLDEN=1")
    assert output == saved.read_text(encoding="utf-8"), f"{where} prints something else now"


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
    """Paths such as `bot/store/core.py` or `benchmarks/bot_bench.py`, in the text
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
