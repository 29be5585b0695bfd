"""Run every store test on fakeredis, on a local 3-master Redis Cluster, and, when
REDIS_URL is set, on the real server too.

The cluster (tests/bot/store/cluster.py) starts once per session, the first time a
test asks for it, and is flushed for each test; without redis-server and
redis-cli installed its tests are skipped.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.store.cluster import LocalCluster, available
from tests.conftest import REDIS_URL


@pytest.fixture(params=["fake", "cluster", "real"] if REDIS_URL else ["fake", "cluster"])
def redis_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    if not available():
        pytest.skip("redis-server and redis-cli are not installed: no local Redis Cluster")
    directory: Path = tmp_path_factory.mktemp("redis-cluster")
    cluster = LocalCluster.start(directory)
    try:
        yield cluster
    finally:
        cluster.stop()
