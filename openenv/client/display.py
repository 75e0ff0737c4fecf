"""What a notebook shows of a client: the environment's picture (:meth:`EnvClient.show`) and
the live playground watching the client's own session (:meth:`EnvClient.playground`).

Pictures are drawn by :mod:`openenv.web.drawing.notebook` (the one drawing path), imported when
a notebook displays one: the client itself never needs the web layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from openenv.core.views import View

PLAYGROUND_HEIGHT = 720


@dataclass(frozen=True)
class Shown:
    """A view a notebook displays as a picture (``view`` is ``None`` when the env draws
    nothing: the notebook then shows that sentence)."""

    view: View | None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        if self.view is None:
            return {"text/plain": "this environment draws nothing now"}
        from openenv.web.drawing.notebook import view_bundle

        return view_bundle(self.view)

    def __repr__(self) -> str:
        return f"Shown({type(self.view).__name__ if self.view is not None else None})"


def watch_url(base_url: str, watch_ref: str) -> str:
    """The playground's live page of one session, by its read-only watch reference."""
    return f"{base_url.rstrip('/')}/web/watch/{quote(watch_ref, safe='.')}"


def iframe(url: str, height: int = PLAYGROUND_HEIGHT) -> Any:
    """An IPython IFrame of ``url`` (the notebook shows it inline)."""
    try:
        from IPython.display import IFrame
    except ImportError as exc:  # outside Jupyter: the page to open
        raise RuntimeError(f"IPython is not installed; open {url} in a browser") from exc
    return IFrame(url, width="100%", height=height)
