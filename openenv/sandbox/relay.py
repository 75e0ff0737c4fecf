"""A bounded socket relay: how a sandbox without a network reaches one port of the host.

Both ends of a forwarded port (:meth:`openenv.sandbox.sandbox.Sandbox.forward`) are a
:class:`Relay`:

* in the server, a thread relays a Unix socket in the sandbox's private ``/tmp`` to the host's
  loopback TCP port (the capture proxy, say): the one way out of the sandbox's network
  namespace, and it leads to that port alone;
* in the sandbox, a process (this file's source, run as ``python -I -c <source> <options>``
  with ``{"port": n, "unix": path}``) listens on ``127.0.0.1:<port>`` of the sandbox's own
  loopback and relays to that Unix socket, so a client uses the same URL on both sides. It
  prints ``ready`` once it listens.

One thread and one selector serve every connection of a relay: at most ``max_connections`` at
once (more wait in the listen backlog until one ends), each holding at most ``buffer_bytes``
in each direction, so the bytes in flight stay bounded; a half-close is passed on.
:meth:`Relay.stop` ends every connection and closes every socket, the listener included.
Standard library only, so any Python 3.8+ interpreter can run it.
"""

from __future__ import annotations

import json
import selectors
import socket
import sys
import threading

MAX_CONNECTIONS = 32
BUFFER_BYTES = 64 * 1024
CONNECT_TIMEOUT_S = 5.0
READ, WRITE = selectors.EVENT_READ, selectors.EVENT_WRITE


class _Pipe:
    """One direction of a connection: bytes read from ``src``, waiting to be written to
    ``dst``."""

    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.buf = bytearray()
        self.eof = False  # src said end of file
        self.shut = False  # dst was told so (shutdown for writing)


class _Connection:
    def __init__(self, client, upstream):
        self.socks = (client, upstream)
        self.pipes = (_Pipe(client, upstream), _Pipe(upstream, client))
        self.events = {client: 0, upstream: 0}  # what the selector watches on each


class Relay:
    """Relay each connection accepted on ``listener`` to a socket from ``connect()``.

    :meth:`start` serves in a thread of its own (:meth:`serve` serves in the caller's);
    :meth:`stop` ends it and closes every socket (idempotent, thread-safe)."""

    def __init__(
        self, listener, connect, max_connections=MAX_CONNECTIONS, buffer_bytes=BUFFER_BYTES
    ):
        self.listener, self.connect = listener, connect
        self.max_connections, self.buffer_bytes = max_connections, buffer_bytes
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._connections = set()
        self._accepting = False
        self._stopping = False
        self._thread = None

    @property
    def connections(self):
        """How many connections are being relayed now."""
        return len(self._connections)

    def start(self, name):
        """Serve in a daemon thread called ``name``."""
        self._thread = threading.Thread(target=self.serve, name=name, daemon=True)
        self._thread.start()

    def stop(self):
        """End every connection, close every socket, and wait for the thread to end."""
        self._stopping = True
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass  # already closed: serve() ended
        thread = self._thread
        if thread is None:
            self._close_all()
        elif thread is not threading.current_thread():
            thread.join(timeout=10)

    def serve(self):
        """Relay until :meth:`stop`."""
        self.listener.setblocking(False)
        self._wake_r.setblocking(False)
        self._selector.register(self._wake_r, READ, None)
        self._accept_more(True)
        try:
            while not self._stopping:
                for key, events in self._selector.select():
                    if key.fileobj is self._wake_r:
                        self._drain_wake()
                    elif key.fileobj is self.listener:
                        self._accept()
                    else:
                        self._service(key.data, key.fileobj, events)
        finally:
            self._close_all()

    # -- connections ------------------------------------------------------------------------

    def _accept(self):
        try:
            client, _ = self.listener.accept()
        except OSError:  # nothing waiting after all, or out of file descriptors
            return
        try:
            upstream = self.connect()
        except OSError:
            client.close()
            return
        client.setblocking(False)
        upstream.setblocking(False)
        connection = _Connection(client, upstream)
        self._connections.add(connection)
        self._watch(connection)
        if len(self._connections) >= self.max_connections:
            self._accept_more(False)

    def _service(self, connection, sock, events):
        try:
            for pipe in connection.pipes:
                if events & READ and pipe.src is sock:
                    self._read(pipe)
                if events & WRITE and pipe.dst is sock and pipe.buf:
                    del pipe.buf[: sock.send(pipe.buf)]
                if pipe.eof and not pipe.buf and not pipe.shut:
                    pipe.dst.shutdown(socket.SHUT_WR)
                    pipe.shut = True
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:  # reset, broken pipe: the connection is over
            self._drop(connection)
            return
        if all(pipe.shut for pipe in connection.pipes):
            self._drop(connection)
        else:
            self._watch(connection)

    def _read(self, pipe):
        room = self.buffer_bytes - len(pipe.buf)
        if room > 0:
            data = pipe.src.recv(room)
            if data:
                pipe.buf += data
            else:
                pipe.eof = True

    def _watch(self, connection):
        """Watch each socket for what its pipes can do now: read while there is room in the
        buffer it fills, write while the buffer it drains holds bytes."""
        for sock in connection.socks:
            events = 0
            for pipe in connection.pipes:
                if pipe.src is sock and not pipe.eof and len(pipe.buf) < self.buffer_bytes:
                    events |= READ
                if pipe.dst is sock and pipe.buf:
                    events |= WRITE
            before = connection.events[sock]
            if events == before:
                continue
            if not before:
                self._selector.register(sock, events, connection)
            elif not events:
                self._selector.unregister(sock)
            else:
                self._selector.modify(sock, events, connection)
            connection.events[sock] = events

    def _drop(self, connection):
        for sock in connection.socks:
            if connection.events[sock]:
                self._selector.unregister(sock)
            sock.close()
        self._connections.discard(connection)
        if not self._stopping and len(self._connections) < self.max_connections:
            self._accept_more(True)

    def _accept_more(self, accepting):
        if accepting and not self._accepting:
            self._selector.register(self.listener, READ, None)
        elif not accepting and self._accepting:
            self._selector.unregister(self.listener)
        self._accepting = accepting

    def _drain_wake(self):
        try:
            self._wake_r.recv(64)
        except OSError:
            pass

    def _close_all(self):
        for connection in list(self._connections):
            self._drop(connection)
        self._selector.close()
        for sock in (self.listener, self._wake_r, self._wake_w):
            sock.close()


def unix_connector(path):
    """``connect`` for a relay to the Unix socket at ``path``."""

    def connect():
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        return sock

    return connect


def tcp_connector(host, port):
    """``connect`` for a relay to TCP ``host:port``."""

    def connect():
        return socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)

    return connect


def main():
    """In the sandbox: ``127.0.0.1:<port>`` of its own loopback, relayed to the Unix socket."""
    options = json.loads(sys.argv[1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(options["port"])))
    listener.listen(64)
    relay = Relay(listener, unix_connector(options["unix"]), int(options["max_connections"]))
    print("ready", flush=True)
    relay.serve()


if __name__ == "__main__":
    main()
