"""Final answers: the last ``\\boxed{...}`` of a solution, checked by math-verify.

math-verify bounds its own work with ``signal.alarm``, which works only in a main thread; a
server steps environments in worker threads. So the check runs in one helper process per
server (started on first use, a daemon that dies with the server), in whose main thread those
alarms work, and the caller waits at most ``CHECK_TIMEOUT_S``: a check that takes longer ends
the helper (the next check starts a new one) and counts as not verified, with the reason.
"""

from __future__ import annotations

import multiprocessing
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

MAX_ANSWER_CHARS = 400  # a boxed answer longer than this is not parsed
CHECK_TIMEOUT_S = 30.0  # the helper's own alarms stop parsing / comparing after 5 s each
BOXED = "\\boxed{"


def last_boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` in ``text`` (braces matched), or None."""
    start = text.rfind(BOXED)
    if start < 0:
        return None
    depth, i = 1, start + len(BOXED)
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i:j].strip()
    return None


@dataclass(frozen=True)
class Verdict:
    correct: bool
    note: str


def _serve(conn: Connection) -> None:  # the helper process's main loop
    from math_verify import parse, verify

    while True:
        try:
            gold, answer = conn.recv()
        except EOFError:
            return
        try:
            ok = bool(verify(parse(f"${gold}$"), parse(f"${answer}$")))
            conn.send((ok, ""))
        except Exception as exc:  # a parse or timeout error: not verified, and why
            conn.send((False, f"{type(exc).__name__}: {exc}"[:200]))


class AnswerChecker:
    """math-verify in a helper process; :meth:`check` is safe from any thread."""

    def __init__(self, timeout_s: float = CHECK_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Connection | None = None

    def check(self, gold: str, answer: str) -> Verdict:
        """Whether ``answer`` (LaTeX) equals ``gold`` for math-verify."""
        if len(answer) > MAX_ANSWER_CHARS:
            return Verdict(False, f"the boxed answer is longer than {MAX_ANSWER_CHARS} characters")
        with self._lock:
            try:
                conn = self._connection()
                conn.send((gold, answer))
                if not conn.poll(self.timeout_s):
                    self.close_helper()
                    return Verdict(False, f"math-verify gave no verdict in {self.timeout_s:g} s")
                ok, error = conn.recv()
            except (OSError, EOFError) as exc:  # the helper died: the next check starts another
                self.close_helper()
                return Verdict(False, f"math-verify's helper process stopped ({exc!r})")
        if error:
            return Verdict(False, f"math-verify could not read it ({error})")
        return Verdict(ok, "equal to the reference answer" if ok else "not the reference answer")

    def _connection(self) -> Connection:
        if self._conn is None or self._proc is None or not self._proc.is_alive():
            ctx = multiprocessing.get_context("spawn")
            parent, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child,), daemon=True)
            self._proc.start()
            child.close()
            self._conn = parent
        return self._conn

    def close_helper(self) -> None:
        """End the helper process (a new one starts on the next check)."""
        proc, self._proc = self._proc, None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if proc is not None:
            proc.kill()
            proc.join(5)


_CHECKER: AnswerChecker | None = None
_CHECKER_LOCK = threading.Lock()


def checker() -> AnswerChecker:
    """The server's one answer checker (one helper process for every session)."""
    global _CHECKER
    with _CHECKER_LOCK:
        if _CHECKER is None:
            _CHECKER = AnswerChecker()
        return _CHECKER
