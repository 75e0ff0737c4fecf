"""A port of the host forwarded into a sandbox that has no network (:meth:`Sandbox.forward`).

The server's end of the way: a Unix socket in the sandbox's private ``/tmp`` (a tmpfs no other
sandbox and no other user sees, reached from the server through ``/proc/<pid>/root``), owned by
the sandbox's user, relayed by a thread (:class:`~openenv.sandbox.relay.Relay`) to one loopback
TCP port of the host. Nothing else of the host's network is reachable through it. The
sandbox's end, :data:`RELAY_SOURCE` run in the sandbox, listens on ``127.0.0.1:<port>`` of the
sandbox's own loopback (see :func:`relay_command`), so a client's URL is the same on both sides.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import threading
from pathlib import Path

from openenv.sandbox.relay import Relay, tcp_connector

RELAY_SOURCE = Path(__file__).with_name("relay.py").read_text(encoding="utf-8")
_SUN_PATH_MAX = 107  # a Unix socket's path, in bytes, without the final NUL


class ForwardedPort:
    """The host's loopback TCP ``port``, reachable in the sandbox at the Unix socket
    :attr:`path` (as the sandbox sees it) until :meth:`close` (idempotent, thread-safe).

    ``root``: where the server reaches the sandbox's root directory (``/proc/<pid>/root``);
    ``uid``: the sandbox's own user, given the socket (None: the sandbox runs as the server's
    user, who owns it already)."""

    def __init__(self, root: str, port: int, uid: int | None, max_connections: int) -> None:
        if not 0 < port < 65536:
            raise ValueError(f"a TCP port is 1 to 65535, got {port}")
        self.port = port
        self.max_connections = max_connections
        self.path = f"/tmp/openenv-port-{port}-{secrets.token_hex(8)}.sock"
        self._host_path = f"{root}{self.path}"
        if len(self._host_path.encode()) > _SUN_PATH_MAX:
            raise ValueError(f"the socket's path is too long for a Unix socket: {self._host_path}")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self._host_path)  # fails if anything is there already
            if uid is not None:  # never follows a link: only the socket itself changes owner
                os.chown(self._host_path, uid, uid, follow_symlinks=False)
            listener.listen(max_connections)
        except OSError:
            listener.close()
            raise
        self._relay = Relay(listener, tcp_connector("127.0.0.1", port), max_connections)
        self._relay.start(f"sandbox-port:{port}")
        self._lock = threading.Lock()
        self._closed = False

    @property
    def connections(self) -> int:
        """How many connections are relayed now."""
        return int(self._relay.connections)

    def relay_command(self, python: str) -> list[str]:
        """The argv that, started in the sandbox, listens on ``127.0.0.1:<port>`` there and
        relays to this socket; it prints ``ready`` once it listens."""
        options = {"port": self.port, "unix": self.path, "max_connections": self.max_connections}
        return [python, "-I", "-c", RELAY_SOURCE, json.dumps(options)]

    def close(self) -> None:
        """End every relayed connection, stop the thread, remove the socket."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._relay.stop()
        with contextlib.suppress(OSError):  # gone with the sandbox's /tmp already
            os.unlink(self._host_path)
