"""Which Redis the benchmarks use, kept apart from the bot's and the tests'.

Benchmarks that write games flush their database first, so they never read
``REDIS_URL`` (which may hold real games): they use ``BENCH_REDIS_URL``,
by default database 14 of the local server, while the test suite uses
``REDIS_URL`` (database 15 in CI).  Running both at once then cannot make one
wipe the other's keys mid-run.
"""

from __future__ import annotations

import os

DEFAULT_URL = "redis://127.0.0.1:6379/14"


def bench_redis_url() -> str:
    return os.environ.get("BENCH_REDIS_URL") or DEFAULT_URL
