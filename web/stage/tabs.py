"""One session per browser tab: what the playground remembers about each visitor's tab.

A :class:`WebTab` is created when a page loads and removed when Gradio reports the tab closed.
Its ``key`` is a random capability the page sends with fast-path calls; it grants nothing until
the tab is authorized (servers with an API token ask for it first). The environment itself
lives in a :class:`~openenv.server.sessions.Session` of the server's one session manager.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import Any

from openenv.core.views import ActionChoice, ActionSliders, View
from openenv.server.sessions import Session
from openenv.web.drawing import Picture

MAX_RECORDED_FRAMES = 3000


@dataclass
class Episode:
    """The steps of the current episode, as exported (action, observation, reward, done, and
    the pressed button's ``label`` when there was one)."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Picture] = field(default_factory=list)  # what was drawn, reset first
    reset_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def rewards(self) -> list[float]:
        return [float(s["reward"] or 0.0) for s in self.steps]

    @property
    def total(self) -> float:
        return sum(self.rewards)

    @property
    def done(self) -> bool:
        return bool(self.steps and self.steps[-1]["done"])

    def record_frame(self, frame: Picture | None) -> None:
        if frame is not None and len(self.frames) < MAX_RECORDED_FRAMES:
            self.frames.append(frame)


@dataclass(eq=False)
class WebTab:
    """A visitor's browser tab and its session."""

    key: str
    session_hash: str | None
    authorized: bool
    session: Session | None = None
    ended: str | None = None
    episode: Episode = field(default_factory=Episode)
    view: View | None = None
    view_html: str = ""
    legal: list[ActionChoice] = field(default_factory=list)
    sliders: ActionSliders | None = None
    slider_values: list[float] = field(default_factory=list)  # where the visitor left them
    observation: dict[str, Any] = field(default_factory=dict)
    done: bool = False
    last_response: dict[str, Any] | None = None
    last_action: dict[str, Any] | None = None
    message: str = ""
    message_kind: str = "info"
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def say(self, message: str, kind: str = "info") -> None:
        self.message, self.message_kind = message, kind


class TabRegistry:
    """Live tabs by key (fast-path calls) and by Gradio session hash (events, unload)."""

    def __init__(self) -> None:
        self._by_key: dict[str, WebTab] = {}
        self._by_hash: dict[str, WebTab] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def create(self, session_hash: str | None, authorized: bool) -> WebTab:
        tab = WebTab(
            key=secrets.token_urlsafe(18), session_hash=session_hash, authorized=authorized
        )
        self._by_key[tab.key] = tab
        if session_hash:
            self._by_hash[session_hash] = tab
        return tab

    def by_key(self, key: Any) -> WebTab | None:
        return self._by_key.get(key) if isinstance(key, str) else None

    def by_hash(self, session_hash: str | None) -> WebTab | None:
        return self._by_hash.get(session_hash) if session_hash else None

    def attach(self, tab: WebTab, session_hash: str) -> None:
        """Hand a tab opened before Gradio loaded (web/shell.py) to Gradio's ``session_hash``."""
        tab.session_hash = session_hash
        self._by_hash[session_hash] = tab

    def remove(self, tab: WebTab) -> None:
        self._by_key.pop(tab.key, None)
        if tab.session_hash and self._by_hash.get(tab.session_hash) is tab:
            del self._by_hash[tab.session_hash]
