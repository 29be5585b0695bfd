"""One headless chromium for all the browser tests of a run (tests/e2e/miniapp.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.miniapp import browser, have_browser


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not have_browser():
        pytest.skip("needs chromium and chromedriver (bin/test installs them as root)")
    with browser() as opened:
        yield opened
