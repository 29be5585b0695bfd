"""Which Redis the benchmarks use, kept apart from the bot's and the tests'.

Benchmarks that write games flush their database first, so they never read
``REDIS_URL`` (which may hold real games): they use ``BENCH_REDIS_URL``,
by default database 14 of the local server, while the test suite uses
``REDIS_URL`` (database 15 in CI).  Running both at once then cannot make one
wipe the other's keys mid-run.
"""

from __future__ import annotations

import os
from typing import Any

DEFAULT_URL = "redis://127.0.0.1:6379/14"


def bench_redis_url() -> str:
    return os.environ.get("BENCH_REDIS_URL") or DEFAULT_URL


STEADY_STATE = "nardy:update:legacy-until"
"""Set to 0 in a flushed database: the upgrade's first day is over (for a day
after the compact update markers first started, every update also reads and
writes the release before's marker: three more round trips, bot/store/markers.py),
so a benchmark measures what every later day costs."""


def past_upgrade_day(client: Any) -> None:
    """Mark a flushed database as past the upgrade's first day (:data:`STEADY_STATE`);
    ``client``: a synchronous Redis or RedisCluster client."""
    client.set(STEADY_STATE, 0)
