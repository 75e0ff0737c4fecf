"""Only the server's own pages drive it: the Host and Origin checks in front of every request.

A page in the operator's browser can reach a server on loopback or on the lab's network: by
a cross-site request (a form, a ``fetch`` in ``no-cors`` mode, a WebSocket, which browsers
send with the page's ``Origin``), or by DNS rebinding (a name of the attacker's that resolves to
the server's address, so the page's requests are "same-origin" and carry that name in
``Host``). :class:`Gate` refuses both before any route runs:

- **Host**, for requests a browser sends (they carry ``Origin`` or ``Sec-Fetch-*`` headers, or
  a browser's ``User-Agent``): an IP address, a localhost name (``localhost``,
  ``*.localhost``), this machine's host name, the Space's host (``$SPACE_HOST``) or a name
  listed in ``$OPENENV_ALLOWED_HOSTS`` (comma- or space-separated; ``.example.org`` admits
  its subdomains too, ``*`` any name). Behind ``$OPENENV_TRUSTED_PROXIES`` proxies, the host
  they forward (``X-Forwarded-Host``) is checked instead, when they send one. Programs (our
  client, the reference client, curl) are not browsers: they may reach the server under any
  name (a container's, a cluster's service name), because no page can send their requests.
- **Origin**, on any request that carries one: the server's own origin (the host checked
  above, any scheme: a proxy may end TLS), or one listed in ``$OPENENV_ALLOWED_ORIGINS``
  (``*``: any). ``Origin: null`` (a sandboxed frame, a file) is refused.
- **Cross-site writes** without an ``Origin``: a POST (PUT, PATCH, DELETE) whose
  ``Sec-Fetch-Site`` says ``cross-site`` or ``same-site`` is refused, and so is a form or
  plain-text body from a browser that sends neither header (its site cannot be told).

A refused HTTP request gets 403 and the reason (which setting admits it); a refused
WebSocket is closed before it is accepted (the client sees 403). Navigations from other sites
(a shared link opened from a chat) are GETs without an ``Origin`` and pass.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

HOSTS_VAR = "OPENENV_ALLOWED_HOSTS"
ORIGINS_VAR = "OPENENV_ALLOWED_ORIGINS"
SPACE_HOST_VAR = "SPACE_HOST"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CROSS_SITE = frozenset({"cross-site", "same-site"})
# The bodies a page may POST to any site without a preflight.
SIMPLE_BODIES = frozenset(
    {"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"}
)
GATED = "openenv.gated"  # set on a scope that passed, so a mounted app does not check again

Headers = Iterable[tuple[bytes, bytes]]


def _words(raw: str) -> list[str]:
    return [w.strip().lower() for w in raw.replace(",", " ").split() if w.strip()]


def _hostname(netloc: str) -> str:
    """``netloc`` without its port, lowercased (``[::1]:8000`` -> ``::1``)."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1 : netloc.find("]")] if "]" in netloc else netloc
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def _netloc(value: str) -> str:
    """A host[:port] with the default ports dropped, lowercased, for comparing origins."""
    value = value.strip().lower()
    for default in (":80", ":443"):
        if value.endswith(default):
            return value[: -len(default)]
    return value


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Gate:
    """The Host and Origin checks of one server (see the module docstring)."""

    hosts: frozenset[str] = frozenset()  # exact names, and ".suffix" for subdomains
    origins: frozenset[str] = frozenset()  # extra origins, as "host[:port]"
    any_host: bool = False
    any_origin: bool = False
    proxies: int = 0

    @classmethod
    def from_env(cls, proxies: int = 0) -> Gate:
        """The gate the environment variables describe (read once per app)."""
        hosts = set(_words(os.environ.get(HOSTS_VAR, "")))
        space = os.environ.get(SPACE_HOST_VAR, "").strip()
        if space:
            hosts.add(_hostname(space))
        with contextlib.suppress(OSError):
            hosts.add(socket.gethostname().lower())
        origins = _words(os.environ.get(ORIGINS_VAR, ""))
        return cls(
            hosts=frozenset(h.removeprefix("*") for h in hosts if h != "*"),
            origins=frozenset(_netloc(urlsplit(o).netloc or o) for o in origins if o != "*"),
            any_host="*" in hosts,
            any_origin="*" in origins,
            proxies=proxies,
        )

    def host_allowed(self, host: str) -> bool:
        """True for an IP, a localhost name, or a name the operator listed."""
        name = _hostname(host)
        if self.any_host or _is_ip(name) or name == "localhost" or name.endswith(".localhost"):
            return True
        return name in self.hosts or any(
            h.startswith(".") and (name.endswith(h) or name == h[1:]) for h in self.hosts
        )

    def refusal(self, scope: dict[str, Any]) -> str | None:
        """Why this request is refused, or ``None`` when it may go on."""
        headers = _headers(scope.get("headers") or ())
        host = self._host(headers)
        origin = headers.get("origin")
        if _from_browser(headers) and not self.host_allowed(host):
            return (
                f"this server does not answer pages that call it {_hostname(host)!r} (DNS "
                f"rebinding is refused): add the name to ${HOSTS_VAR} if it is yours"
            )
        if origin is not None:
            return self._origin_refusal(origin, host, headers.get("host", ""))
        method = "GET" if scope["type"] == "websocket" else scope.get("method", "GET")
        if method not in UNSAFE_METHODS:
            return None
        if headers.get("sec-fetch-site") in CROSS_SITE or _legacy_form(headers):
            return "a page of another site cannot send this request to the server"
        return None

    def _origin_refusal(self, origin: str, host: str, raw_host: str) -> str | None:
        parts = urlsplit(origin.strip())
        netloc = _netloc(parts.netloc) if parts.scheme in ("http", "https") else ""
        if self.any_origin or (netloc and netloc in (_netloc(host), _netloc(raw_host))):
            return None
        if netloc and netloc in self.origins:
            return None
        shown = origin[:100]
        return (
            f"pages of {shown!r} cannot drive this server (only its own pages can): add the "
            f"origin to ${ORIGINS_VAR} if it is yours"
        )

    def _host(self, headers: dict[str, str]) -> str:
        """The host the client asked for: the one the trusted proxies forward, else Host."""
        if self.proxies > 0 and "x-forwarded-host" in headers:
            forwarded = [p.strip() for p in headers["x-forwarded-host"].split(",") if p.strip()]
            if forwarded:
                return forwarded[-min(self.proxies, len(forwarded))]
        return headers.get("host", "")


def _headers(raw: Headers) -> dict[str, str]:
    """The request's headers by lowercase name (repeated ones joined with commas)."""
    out: dict[str, str] = {}
    for key, value in raw:
        name, text = key.decode("latin-1").lower(), value.decode("latin-1")
        out[name] = f"{out[name]},{text}" if name in out else text
    return out


def _legacy_form(headers: dict[str, str]) -> bool:
    """A browser too old to send ``Origin`` or fetch metadata posting a form or plain text (a
    request any page can make without asking): refused, as its site cannot be told."""
    if "sec-fetch-site" in headers or not _from_browser(headers):
        return False
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    return kind in SIMPLE_BODIES


def _from_browser(headers: dict[str, str]) -> bool:
    """True when a browser sent the request: only browsers send Origin with fetch metadata,
    and every browser's User-Agent starts with ``Mozilla/``; programs send neither."""
    if "origin" in headers or any(k.startswith("sec-fetch-") for k in headers):
        return True
    return headers.get("user-agent", "").startswith("Mozilla/")


def refusal_body(reason: str) -> bytes:
    """The JSON body of a refused HTTP request."""
    return json.dumps({"detail": reason, "code": "FORBIDDEN_ORIGIN"}).encode()
