"""Prometheus metrics of the bot, served at ``/metrics`` (see :mod:`bot.edge.web`).

Per process: each worker exposes its own counters; Prometheus sums them over
the workers it scrapes.  ``nardy_open_games`` is read from Redis at scrape
time, so every worker reports the same, cluster-wide figure.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

REGISTRY = CollectorRegistry(auto_describe=True)

_LATENCY = (0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0)

UPDATES = Counter(
    "nardy_updates", "Updates by kind and outcome (done, duplicate, in_flight, failed, "
    "given_up)", ["kind", "outcome"], registry=REGISTRY)
ERRORS = Counter("nardy_errors", "Exceptions raised while handling updates, by type",
                 ["error"], registry=REGISTRY)
UPDATE_SECONDS = Histogram("nardy_update_seconds", "Time to handle an update, by kind",
                           ["kind"], buckets=_LATENCY, registry=REGISTRY)
TAP_SECONDS = Histogram("nardy_tap_answer_seconds",
                        "From a button tap's update arriving to its answerCallbackQuery "
                        "being answered by the Bot API", buckets=_LATENCY, registry=REGISTRY)
THROTTLED_SECONDS = Counter("nardy_throttled_seconds",
                            "Seconds requests waited for the shared flood limiter",
                            registry=REGISTRY)
FLOOD_WAITS = Counter("nardy_flood_waits", "429 answers from the Bot API (retried)",
                      registry=REGISTRY)
IN_FLIGHT = Gauge("nardy_updates_in_flight", "Updates being handled now",
                  registry=REGISTRY)
HINTS = Counter("nardy_hints", "💡 Hint taps answered, by how: computed (in the computer's "
                "worker pool), shared (waited for the same roll's computation), cached (the "
                "same roll asked before), failed", ["answer"], registry=REGISTRY)
OPEN_GAMES = Gauge("nardy_open_games", "Lobbies and games being played (all workers)",
                   registry=REGISTRY)
PARKED = Counter("nardy_updates_parked", "Updates whose handler gave its update slot back to "
                 "wait for a chat's flood bucket (bot/edge/outbox.py)", registry=REGISTRY)
INPUT_LIMITED = Counter("nardy_input_limited", "Commands and taps ignored by the per-user "
                        "input limit (bot/edge/handlers/pace.py), by kind", ["kind"],
                        registry=REGISTRY)


def exposition() -> tuple[bytes, str]:
    """The metrics page and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
