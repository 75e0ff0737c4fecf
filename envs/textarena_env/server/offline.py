"""Keep TextArena offline and its sessions apart.

TextArena's word games call ``nltk.download`` when their module is imported and when a game is
built. Here ``nltk.download`` is replaced by a stand-in that only reports whether the data is
already on disk, and NLTK looks first in this package's ``nltk_data`` folder (the ``words``
corpus ships there). Nothing is ever fetched; a game whose data is missing is refused at reset
(:func:`missing_data`).

TextArena draws every random choice from the global ``random`` module. :class:`SessionRandom`
gives each session its own copy of that state and swaps it in, under one process-wide lock,
for the duration of each game call: a seeded episode replays exactly however many sessions
play at once.
"""

from __future__ import annotations

import functools
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

NLTK_DATA = Path(__file__).resolve().parent.parent / "nltk_data"
# NLTK resource name -> path nltk.data.find looks up.
RESOURCES = {"words": "corpora/words/en-basic"}
_LOCK = threading.RLock()


def _present(resource: str) -> bool:
    import nltk

    try:
        nltk.data.find(RESOURCES.get(resource, resource))
    except LookupError:
        return False
    return True


def offline_download(info_or_id: Any = None, *args: Any, **kwargs: Any) -> bool:
    """Stand-in for ``nltk.download``: True when every named resource is on disk. No network."""
    names = info_or_id if isinstance(info_or_id, list | tuple) else [info_or_id]
    return all(isinstance(name, str) and _present(name) for name in names)


@functools.cache
def textarena() -> ModuleType:
    """Import ``textarena`` with NLTK pointed at the shipped data and downloads disabled."""
    import nltk

    if str(NLTK_DATA) not in nltk.data.path:
        nltk.data.path.insert(0, str(NLTK_DATA))
    nltk.download = offline_download
    import textarena

    return textarena


def missing_data(resources: tuple[str, ...]) -> str | None:
    """Why a game needing ``resources`` cannot start (None when all are on disk)."""
    textarena()
    missing = [name for name in resources if not _present(name)]
    if not missing:
        return None
    return (
        f"NLTK data {', '.join(missing)!s} is not installed (looked in {NLTK_DATA} and "
        "NLTK's own folders); this server never downloads it. Reinstall textarena_env with "
        "its nltk_data folder, or pick another game"
    )


class SessionRandom:
    """One session's state of the global ``random`` module, active only inside :meth:`active`."""

    def __init__(self, seed: int | None) -> None:
        self._state = random.Random(seed).getstate()

    @contextmanager
    def active(self) -> Iterator[None]:
        with _LOCK:
            outer = random.getstate()
            random.setstate(self._state)
            try:
                yield
            finally:
                self._state = random.getstate()
                random.setstate(outer)
