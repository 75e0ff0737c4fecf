"""reasoning-core behind a helper process (:mod:`worker`): questions and scores, bounded in time.

:class:`Generator` starts the helper on first use (one per server, shared by its sessions, one
request at a time) and waits at most ``timeout_s`` for each reply: a helper that takes longer is
killed, the next request starts a new one, and the caller gets :class:`GenerationError` saying
what happened. The helper dies with the server (its pipe closes, and it is killed at exit).
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

GENERATE_TIMEOUT_S = 120.0
SCORE_TIMEOUT_S = 20.0


class GenerationError(RuntimeError):
    """reasoning-core failed, or took too long; the message says which and why."""


class Generator:
    """The helper process and its two pipes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._send: Connection | None = None
        self._recv: Connection | None = None

    def call(self, kind: str, *args: Any, timeout_s: float = GENERATE_TIMEOUT_S) -> Any:
        """The helper's answer to ``(kind, args)``; GenerationError when it fails or is late."""
        with self._lock:
            try:
                send, recv = self._pipes()
                send.send((kind, args))
                if not recv.poll(timeout_s):
                    self.stop()
                    raise GenerationError(f"reasoning-core gave no answer in {timeout_s:g} s")
                status, value = recv.recv()
            except (OSError, EOFError) as exc:
                self.stop()
                raise GenerationError(f"reasoning-core's helper process stopped ({exc!r})") from exc
        if status != "ok":
            raise GenerationError(f"reasoning-core failed: {value}")
        return value

    def _pipes(self) -> tuple[Connection, Connection]:
        if self._proc is None or self._proc.poll() is not None:
            self.stop()
            to_child_r, to_child_w = os.pipe()
            from_child_r, from_child_w = os.pipe()
            env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.pathsep.join(sys.path)}
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "reasoning_core_env.server.worker",
                 str(to_child_r), str(from_child_w)],
                pass_fds=(to_child_r, from_child_w), env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            os.close(to_child_r)
            os.close(from_child_w)
            self._send = Connection(to_child_w, readable=False)
            self._recv = Connection(from_child_r, writable=False)
        assert self._send is not None and self._recv is not None
        return self._send, self._recv

    def stop(self) -> None:
        """Kill the helper (a new one starts on the next call)."""
        proc, self._proc = self._proc, None
        for conn in (self._send, self._recv):
            if conn is not None:
                conn.close()
        self._send = self._recv = None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)


_GENERATOR: Generator | None = None
_GENERATOR_LOCK = threading.Lock()


def generator() -> Generator:
    """The server's one helper (started on first use, killed at exit)."""
    global _GENERATOR
    with _GENERATOR_LOCK:
        if _GENERATOR is None:
            _GENERATOR = Generator()
            atexit.register(_GENERATOR.stop)
        return _GENERATOR
