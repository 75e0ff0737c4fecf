"""The helper process that runs reasoning-core: ``python -m reasoning_core_env.server.worker R W``.

reasoning-core generates with the global ``random`` and ``numpy.random`` state, some generators
reseed it from the OS (``random.seed(None)``), and its time limits are ``signal.alarm`` ones that
work only in a main thread. So tasks are generated and scored here, one request at a time, in the
main thread of a process of their own, started with a fixed ``PYTHONHASHSEED``: before each
generation the global generators are seeded from the request's seed, and a reseed "from the
OS" draws from a stream of that same seed instead, so one seed gives one question.

Requests and replies are pickled over two pipes (file descriptors ``R`` and ``W``); anything the
tasks print goes to stderr, never into the replies.
"""

from __future__ import annotations

import os
import random
import resource
import sys
import warnings
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

MEMORY_BYTES = 3 * 2**30  # address space of the helper (generators that explode end in MemoryError)

_random_seed = random.seed
_numpy_seed = np.random.seed


def pin_seed(seed: int) -> None:
    """Seed ``random`` and ``numpy.random``; later reseeds without a value draw from ``seed``."""
    stream = random.Random(seed)

    def seed_random(a: Any = None, version: int = 2) -> None:
        _random_seed(stream.getrandbits(64) if a is None else a, version)

    def seed_numpy(s: Any = None) -> None:
        _numpy_seed(stream.getrandbits(32) if s is None else s)

    random.seed = seed_random  # type: ignore[assignment]
    np.random.seed = seed_numpy  # type: ignore[assignment]
    seed_random(seed)
    seed_numpy(seed % 2**32)


def generate(task: str, level: int, seed: int) -> dict[str, Any]:
    """One question of ``task`` at ``level`` from ``seed``."""
    import reasoning_core

    pin_seed(seed)
    example = reasoning_core.get_task(task).generate_example(level=level)
    return {"prompt": example.prompt, "answer": str(example.answer), "entry": example}


def score(answer: str, entry: Any) -> float:
    """The task's own score of ``answer`` to ``entry``, 0..1."""
    import reasoning_core

    return float(reasoning_core.score_answer(answer, entry))


def handle(request: tuple[str, tuple]) -> Any:
    kind, args = request
    if kind == "generate":
        return generate(*args)
    if kind == "score":
        return score(*args)
    if kind == "tasks":
        import reasoning_core

        return list(reasoning_core.list_tasks())
    raise ValueError(f"unknown request {kind!r}")


def main(read_fd: int, write_fd: int) -> None:
    requests, replies = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    os.dup2(2, 1)  # a task's print() must not reach the parent as a reply
    warnings.simplefilter("ignore")
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    while True:
        try:
            request = requests.recv()
        except EOFError:
            return
        try:
            replies.send(("ok", handle(request)))
        except BaseException as exc:  # the task's failure, reported to the caller as text
            replies.send(("error", f"{type(exc).__name__}: {exc}"[:500]))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
