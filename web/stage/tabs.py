"""One session per browser tab: what the playground remembers about each visitor's tab.

A :class:`WebTab` is created when a page opens (the fast shell's ``stage/open`` or the Gradio
page's load event) and removed when the browser tab goes away. Its ``key`` is a random
capability the page sends with every stage call; it grants nothing until the tab is
authorized (servers with an API token ask for it first). The environment itself lives in a
:class:`~openenv.server.sessions.Session` of the server's one session manager.

What a tab holds comes in three parts, each written only by the
:class:`~openenv.web.stage.controller.Controller`: the :class:`Episode` (its record and last
answer), what the stage :class:`Shows` now, and the :class:`Notice` for the visitor.
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
    """The current episode: its steps as exported (action, observation, reward, done, and the
    pressed button's ``label`` when there was one), what was drawn after each, and its last
    answer."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Picture] = field(default_factory=list)  # what was drawn, reset first
    reset_kwargs: dict[str, Any] = field(default_factory=dict)
    observation: dict[str, Any] = field(default_factory=dict)  # the last observation's fields
    done: bool = False
    last_response: dict[str, Any] | None = None  # the last answer, as the wire carries it
    last_action: dict[str, Any] | None = None

    @property
    def rewards(self) -> list[float]:
        return [float(s["reward"] or 0.0) for s in self.steps]

    @property
    def total(self) -> float:
        return sum(self.rewards)

    def record_frame(self, frame: Picture | None) -> None:
        if frame is not None and len(self.frames) < MAX_RECORDED_FRAMES:
            self.frames.append(frame)


@dataclass
class Shows:
    """What the stage shows now: the view, the buttons and the sliders."""

    view: View | None = None
    html: str = ""
    legal: list[ActionChoice] = field(default_factory=list)
    sliders: ActionSliders | None = None
    slider_values: list[float] = field(default_factory=list)  # where the visitor left them


@dataclass
class Notice:
    """The line the stage says to the visitor (``kind``: info, ok or error)."""

    text: str = ""
    kind: str = "info"


@dataclass(eq=False)
class WebTab:
    """A visitor's browser tab and its session."""

    key: str
    session_hash: str | None
    authorized: bool
    session: Session | None = None
    ended: str | None = None  # why the session closed, when it did
    episode: Episode = field(default_factory=Episode)
    shows: Shows = field(default_factory=Shows)
    notice: Notice = field(default_factory=Notice)
    version: int = 0  # grows with every change of the stage: older drawings are never shown
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def say(self, text: str, kind: str = "info") -> None:
        self.notice = Notice(text, kind)

    @property
    def done(self) -> bool:
        return self.episode.done


class TabRegistry:
    """Live tabs by key (stage calls) and by Gradio session hash (events, unload)."""

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
        """Hand a tab the fast shell opened before Gradio loaded to Gradio's ``session_hash``."""
        tab.session_hash = session_hash
        self._by_hash[session_hash] = tab

    def remove(self, tab: WebTab) -> None:
        self._by_key.pop(tab.key, None)
        if tab.session_hash and self._by_hash.get(tab.session_hash) is tab:
            del self._by_hash[tab.session_hash]
