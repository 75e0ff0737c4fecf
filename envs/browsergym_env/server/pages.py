"""Where the MiniWoB++ pages come from: the ``html`` folder of the ``miniwob`` package.

Nothing listens for them: the pages live at a made-up origin, :data:`ORIGIN`
(``.invalid`` is reserved and never resolves), and every request a browser context makes is
answered by its route handler from this folder (see ``browser.guard``). BrowserGym's
``MINIWOB_URL`` is set to ``ORIGIN + "miniwob/"``. A URL outside the folder (``..``, a symlink
out, another origin, ``file://``) gets no file and its request is aborted.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

ORIGIN = "http://miniwob.invalid/"
MINIWOB_URL = ORIGIN + "miniwob/"


@functools.cache
def html_root() -> Path:
    """The ``miniwob`` package's ``html`` folder, found without importing the package (its
    ``__init__`` pulls in selenium, which the pages do not need)."""
    spec = importlib.util.find_spec("miniwob")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        root = Path(location) / "html"
        if (root / "miniwob").is_dir():
            return root.resolve()
    raise RuntimeError(
        "the MiniWoB++ pages are missing: install the `miniwob` package (pip install miniwob)"
    )


class MiniwobPages:
    """Maps a URL to the shipped file it names, or ``None`` when it names none."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or html_root()

    def file_for(self, url: str) -> Path | None:
        if not url.startswith(ORIGIN):
            return None
        path = unquote(urlsplit(url).path).lstrip("/")
        candidate = (self.root / path).resolve()
        if not candidate.is_relative_to(self.root) or not candidate.is_file():
            return None
        return candidate

    def is_task_url(self, url: str) -> bool:
        """Whether ``url`` is one of the task pages (what ``goto`` may open)."""
        return url.startswith(MINIWOB_URL) and self.file_for(url) is not None


def task_names() -> tuple[str, ...]:
    """The MiniWoB tasks BrowserGym registers whose page ships in the ``miniwob`` package."""
    from browsergym.miniwob import ALL_MINIWOB_TASKS

    pages = html_root() / "miniwob"
    names = (task.subdomain for task in ALL_MINIWOB_TASKS)
    return tuple(sorted(n for n in names if os.path.isfile(pages / f"{n}.html")))
