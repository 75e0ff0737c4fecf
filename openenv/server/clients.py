"""Who a request comes from, for the per-client session quota.

A session counts against the address of the client that opened it (``MAX_SESSIONS_PER_CLIENT``
sessions each, and a shorter timeout while it was never used), except for clients the server
trusts: loopback (a trainer or notebook on the same machine) and holders of the server's API
token, whose sessions count against nobody.

Behind proxies the connecting address is the proxy's: set ``OPENENV_TRUSTED_PROXIES`` to the
number of proxies in front of the server that append the client's address to
``X-Forwarded-For``, and the address that many entries from the end is the client's. On a
Hugging Face Space (``$SPACE_ID`` is set) it defaults to 1, the Hub's proxy; elsewhere to 0, so
a client cannot pick its own address by sending the header.
"""

from __future__ import annotations

import ipaddress
import math
import os
import time
from collections import OrderedDict
from collections.abc import Iterable

PER_CLIENT_VAR = "MAX_SESSIONS_PER_CLIENT"
PROXIES_VAR = "OPENENV_TRUSTED_PROXIES"
DEFAULT_PER_CLIENT = 16


def per_client_limit(explicit: int | None = None) -> int | None:
    """Sessions one outside client may hold (``None``/0: no limit)."""
    if explicit is not None:
        return explicit or None
    raw = os.environ.get(PER_CLIENT_VAR, "").strip()
    return (int(raw) or None) if raw else DEFAULT_PER_CLIENT


def trusted_proxies() -> int:
    raw = os.environ.get(PROXIES_VAR, "").strip()
    if raw:
        return max(int(raw), 0)
    return 1 if os.environ.get("SPACE_ID") else 0


def client_address(host: str | None, headers: Iterable[tuple[bytes, bytes]], hops: int) -> str:
    """The client's address: the connecting one, or the forwarded one behind ``hops`` proxies."""
    if hops > 0:
        forwarded = [
            part.strip()
            for key, value in headers
            if key.lower() == b"x-forwarded-for"
            for part in value.decode("latin-1").split(",")
            if part.strip()
        ]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return host or "unknown"


def quota_owner(address: str, *, trusted: bool = False) -> str | None:
    """What a session from ``address`` counts against: ``None`` for loopback and for a client
    the server trusts (its API token), else the address."""
    if trusted:
        return None
    try:
        if ipaddress.ip_address(address).is_loopback:
            return None
    except ValueError:
        pass  # a name, or "unknown": counted like any address
    return address


class RateLimit:
    """A token bucket per client: ``burst`` events at once, refilled at ``per_minute``.

    ``allow(None)`` is always true (loopback and token holders count against nobody). At most
    ``max_clients`` buckets are kept (the least recently used go first), so the memory a
    crowd of addresses costs is bounded too.
    """

    def __init__(self, per_minute: float, burst: int, max_clients: int = 4096) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(burst, 1))
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, client: str | None, now: float | None = None) -> bool:
        """Take one event from ``client``'s bucket; False when it is empty."""
        if client is None or self.rate <= 0:
            return True
        now = time.monotonic() if now is None else now
        tokens, then = self._buckets.pop(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[client] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return allowed

    def retry_after_s(self, client: str | None) -> int:
        """Whole seconds until ``client`` may try again."""
        tokens, _ = self._buckets.get(client or "", (self.burst, 0.0))
        return max(1, math.ceil((1.0 - tokens) / self.rate)) if self.rate > 0 else 1


def env_number(name: str, default: float) -> float:
    """``$name`` as a number, or ``default`` when it is unset or empty."""
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else default
