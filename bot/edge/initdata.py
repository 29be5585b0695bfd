"""Telegram Mini App ``initData``: checked as Telegram documents it, nothing else trusted.

The Mini App sends the ``initData`` string Telegram gave it with every request.  It is
a query string (``user`` as JSON, ``auth_date``, ``start_param``, ``hash``, ...); the
data-check string is every field but ``hash`` as ``key=value`` sorted by key and
joined with ``\\n``; the secret is HMAC-SHA256 of the bot token keyed with
``"WebAppData"``; the hex HMAC-SHA256 of the data-check string under that secret must
equal ``hash``.  ``auth_date`` older than :data:`MAX_AGE` seconds (or in the future
beyond :data:`CLOCK_SKEW`) is refused: a leaked string stops working.  The clock is
the caller's (``now``), so tests inject it.

>>> token = "123:abc"
>>> data = sign(token, {"user": '{"id": 7, "first_name": "Ann"}', "auth_date": "1000"})
>>> checked(token, data, now=1010).user_id
7
>>> checked(token, data.replace("Ann", "Bob"), now=1010)
Traceback (most recent call last):
...
bot.edge.initdata.InitDataError: the initData signature does not match
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

MAX_AGE = 24 * 3600
"""Seconds an ``initData`` stays good (Telegram re-signs it each time the app opens)."""
CLOCK_SKEW = 300
"""Seconds ``auth_date`` may lie ahead of our clock."""
MAX_LENGTH = 4096
"""Characters an ``initData`` may have (Telegram's are well under 1 kB)."""


class InitDataError(ValueError):
    """The ``initData`` is missing, malformed, forged or stale."""


@dataclass(frozen=True)
class InitData:
    """What a checked ``initData`` says."""

    user_id: int
    name: str
    language: str | None
    auth_date: int
    start_param: str | None


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def _check_string(fields: Mapping[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def sign(token: str, fields: Mapping[str, str]) -> str:
    """An ``initData`` string as Telegram would make it (tests and benchmarks)."""
    digest = hmac.new(secret_key(token), _check_string(fields).encode(), hashlib.sha256)
    return urlencode({**fields, "hash": digest.hexdigest()})


def checked(token: str, raw: str, *, now: float, max_age: float = MAX_AGE) -> InitData:
    """The user of a genuine, fresh ``raw`` initData, else :class:`InitDataError`."""
    if not raw or len(raw) > MAX_LENGTH:
        raise InitDataError("no initData, or too long")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("malformed initData") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field appears twice")
    given = fields.get("hash", "")
    digest = hmac.new(secret_key(token), _check_string(fields).encode(), hashlib.sha256)
    if not hmac.compare_digest(digest.hexdigest(), given):
        raise InitDataError("the initData signature does not match")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError):
        raise InitDataError("initData without auth_date or user") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise InitDataError("initData with a malformed user id")
    if not -CLOCK_SKEW <= now - auth_date <= max_age:
        raise InitDataError("the initData is stale")
    name = " ".join(str(user.get(k) or "") for k in ("first_name", "last_name")).strip()
    language = user.get("language_code")
    return InitData(user_id=user_id, name=name or str(user_id),
                    language=language if isinstance(language, str) else None,
                    auth_date=auth_date, start_param=fields.get("start_param"))
