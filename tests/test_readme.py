"""The documentation stays true: its Python examples run as written and print
what they printed when they were checked.

Every ```` ```python ```` block of README.md and docs/*.md runs with its
output captured.  The output must equal the ```` ```text ```` block that
directly follows the example, if the page shows one; else the output saved
under tests/doc_examples/, named after the example's code (so the example
may move to another page unchanged).  ``UPDATE_GOLDEN=1`` writes the saved
outputs afresh: read the diff before committing.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
SAVED = Path(__file__).parent / "doc_examples"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
_EXAMPLE = re.compile(r"```python\n(.*?)```\n(?:\s*\n)?(?:```text\n(.*?)```)?", re.S)


def _examples() -> list[tuple[str, str, str | None]]:
    """(page and number, code, the output the page shows or None) of every example."""
    found = []
    for page in PAGES:
        if not page.exists():
            continue
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

