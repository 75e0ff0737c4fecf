"""Entry point of a server started by :class:`LocalProcessProvider` (runs in the child).

``python -m openenv.runtime._child APP --listen-fd N --watch-fd M [--log-level L]``

* ``--listen-fd``: a TCP socket the parent already bound and listens on, so the port is known
  before the child starts and no other process can take it in between.
* ``--watch-fd``: the read end of a pipe whose write end only the parent holds. The read
  returns when the parent closes it or dies for any reason (SIGKILL included); this process
  group is then terminated, so a server never outlives the program that started it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import threading
import time

GRACE_S = 5.0


def _watch_parent(fd: int) -> None:
    while os.read(fd, 1):  # only EOF (all write ends closed) ends the loop
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(os.getpgrp(), signal.SIGTERM)
    time.sleep(GRACE_S)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(os.getpgrp(), signal.SIGKILL)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="openenv.runtime._child")
    parser.add_argument("app", help="module:attribute of the ASGI app")
    parser.add_argument("--listen-fd", type=int, required=True)
    parser.add_argument("--watch-fd", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    threading.Thread(
        target=_watch_parent, args=(args.watch_fd,), daemon=True, name="parent-watch"
    ).start()

    import uvicorn

    sock = socket.socket(fileno=args.listen_fd)
    config = uvicorn.Config(args.app, log_level=args.log_level, timeout_graceful_shutdown=3)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
