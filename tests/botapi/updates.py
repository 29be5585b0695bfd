"""Updates to the bot: long polling, or a webhook the server posts to.

One getUpdates at a time (a second ends the first with 409), none while a
webhook is set; ``offset`` confirms; ``redeliver`` hands an update out again.
``setWebhook`` takes loopback URLs only and posts from ``max_connections``
threads, retrying what is not answered 2xx, spread over ``webhook_targets``
when set (a load balancer in front of several workers).
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from tests.botapi.core import ServerCore, _Pending
from tests.botapi.model import JSON, ApiError, StoredFile, bad_request


@dataclass(frozen=True)
class WebhookDelivery:
    """One POST of an update to the bot's webhook."""

    update_id: int
    status: int  # HTTP status, 0 when the connection failed
    seconds: float
    error: str | None = None


class UpdatesMixin(ServerCore):
    """getUpdates, set/delete/getWebhookInfo, the webhook's delivery threads, redelivery."""

    def _init_updates(self) -> None:
        self.delivered_at: dict[int, float] = {}
        """Update id -> server clock time getUpdates first handed it to the bot."""
        self._poll_generation = 0
        self._webhook: JSON | None = None
        self._webhook_generation = 0
        self._webhook_error: tuple[int, str] | None = None
        self.webhook_deliveries: list[WebhookDelivery] = []
        self.webhook_targets: list[str] = []
        """Roots (``http://127.0.0.1:PORT``) to spread webhook deliveries over in turn,
        like a load balancer in front of several workers; empty: the webhook URL's own."""
        self._webhook_turn = 0

    def redeliver(self, update_id: int) -> None:
        """Queue an already sent update again, same update_id, even if it was confirmed."""
        with self._cond:
            payload = next((u for u in self._updates if u["update_id"] == update_id), None)
            if payload is None:
                raise ValueError(f"no update {update_id}")
            self._pending.append(_Pending(update_id, payload, forced=True))
            self._bump()

    @property
    def webhook(self) -> JSON | None:
        """The setWebhook parameters in force, or None in polling mode."""
        with self._cond:
            return dict(self._webhook) if self._webhook else None

    def _m_get_updates(self, params: JSON, files: dict[str, StoredFile]) -> list[JSON]:
        offset = params.get("offset")
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        with self._cond:
            if self._webhook:
                raise ApiError(409, "Conflict: can't use getUpdates method while webhook is "
                                    "active; use deleteWebhook to delete the webhook first")
            if "allowed_updates" in params:
                self._allowed_updates = list(params["allowed_updates"] or [])
            self._poll_generation += 1
            generation = self._poll_generation
            self._cond.notify_all()
            if offset:
                self._confirm(int(offset))
            deadline = time.monotonic() + timeout
            while True:
                if generation != self._poll_generation:
                    raise ApiError(409, "Conflict: terminated by other getUpdates request; make "
                                        "sure that only one bot instance is running")
                batch = self._pending[:limit]
                remaining = deadline - time.monotonic()
                if batch or remaining <= 0 or self._closing:
                    break
                self._cond.wait(remaining)
            now = self.clock()
            for p in batch:
                p.delivered = True
                self.delivered_at.setdefault(p.update_id, now)
            return [p.payload for p in batch]

    def _confirm(self, offset: int) -> None:
        if offset < 0:
            self._pending = self._pending[offset:]
            return
        self._pending = [p for p in self._pending
                         if p.update_id >= offset or (p.forced and not p.delivered)]

    def _m_set_webhook(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        url = params.get("url") or ""
        if not url:
            return self._m_delete_webhook(params, files)
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if parts.scheme not in ("http", "https") or not loopback:
            raise bad_request("bad webhook: the local Bot API server only calls loopback URLs")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad_request("bad webhook: secret token contains unallowed characters")
        with self._cond:
            if params.get("drop_pending_updates"):
                self._pending.clear()
            if "allowed_updates" in params:
                self._allowed_updates = list(params["allowed_updates"] or [])
            self._webhook = {"url": url, "secret_token": secret,
                             "max_connections": int(params.get("max_connections") or 40)}
            self._webhook_generation += 1
            generation = self._webhook_generation
            for p in self._pending:
                p.claimed = False
            workers = max(1, min(self._webhook["max_connections"], 100))
            self._cond.notify_all()
        for n in range(workers):
            threading.Thread(target=self._webhook_worker, args=(generation,),
                             name=f"botapi-webhook-{n}", daemon=True).start()
        return True

    def _m_delete_webhook(self, params: JSON, files: dict[str, StoredFile]) -> bool:
        with self._cond:
            self._webhook = None
            self._webhook_generation += 1
            if params.get("drop_pending_updates"):
                self._pending.clear()
            for p in self._pending:
                p.claimed = False
            self._cond.notify_all()
        return True

    def _m_get_webhook_info(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            info: JSON = {"url": self._webhook["url"] if self._webhook else "",
                          "has_custom_certificate": False,
                          "pending_update_count": len(self._pending)}
            if self._webhook:
                info["max_connections"] = self._webhook["max_connections"]
            if self._allowed_updates:
                info["allowed_updates"] = self._allowed_updates
            if self._webhook_error:
                info["last_error_date"], info["last_error_message"] = self._webhook_error
            return info

    def _webhook_worker(self, generation: int) -> None:
        conns: dict[tuple[str, int], http.client.HTTPConnection] = {}
        while True:
            with self._cond:
                item = None
                while generation == self._webhook_generation and not self._closing:
                    item = next((p for p in self._pending if not p.claimed), None)
                    if item is not None:
                        break
                    self._cond.wait(0.5)
                if item is None or self._webhook is None:
                    break
                item.claimed = True
                hook = dict(self._webhook)
                target = hook["url"]
                if self.webhook_targets:
                    root = self.webhook_targets[self._webhook_turn % len(self.webhook_targets)]
                    self._webhook_turn += 1
                    target = root.rstrip("/") + (urlsplit(target).path or "/")
            parts = urlsplit(target)
            headers = {"Content-Type": "application/json"}
            if hook["secret_token"]:
                headers["X-Telegram-Bot-Api-Secret-Token"] = hook["secret_token"]
            started = time.monotonic()
            status, error = 0, None
            address = (parts.hostname or "127.0.0.1", parts.port or 80)
            conn = conns.get(address)
            try:
                if conn is None:
                    conn = conns[address] = http.client.HTTPConnection(*address, timeout=30)
                conn.request("POST", parts.path or "/", json.dumps(item.payload).encode(), headers)
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as err:
                error = f"{type(err).__name__}: {err}"
                if conn is not None:
                    conn.close()
                conns.pop(address, None)
            with self._cond:
                self.webhook_deliveries.append(WebhookDelivery(
                    item.update_id, status, time.monotonic() - started, error))
                if 200 <= status < 300:
                    if item in self._pending:
                        self._pending.remove(item)
                else:
                    item.claimed = False
                    self._webhook_error = (int(self.clock()),
                                           error or f"Wrong response from the webhook: {status}")
                self._bump()
            if not 200 <= status < 300:
                time.sleep(0.1)  # Telegram retries failed deliveries, not in a tight loop
        for conn in conns.values():
            conn.close()
