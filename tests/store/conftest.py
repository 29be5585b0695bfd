"""Run every store test on fakeredis and, when REDIS_URL is set, on the real server too."""

import pytest

from tests.conftest import REDIS_URL


@pytest.fixture(params=["fake", "real"] if REDIS_URL else ["fake"])
def redis_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
