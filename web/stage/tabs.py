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
import time
from dataclasses import dataclass, field
from typing import Any

from openenv.core.views import ActionChoice, ActionSliders, View
from openenv.datasets.demos import new_demo_id
from openenv.server.sessions import Session
from openenv.web.drawing import Picture

MAX_RECORDED_FRAMES = 3000
MAX_RECORDED_BYTES = 16 * 2**20  # of pictures kept per tab (a frame's PNG, ~1 KB a board)
TAB_GRACE_S = 600.0  # a tab whose session ended (or never began) is forgotten after this long


@dataclass
class Episode:
    """The current episode: its steps as exported (action, observation, reward, done, and the
    pressed button's ``label`` when there was one), what was drawn after each, and its last
    answer."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Picture] = field(default_factory=list)  # what was drawn, reset first
    reset_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None  # the seed it ran with: given in reset_kwargs, or drawn by the env
    observation: dict[str, Any] = field(default_factory=dict)  # the last observation's fields
    done: bool = False
    last_response: dict[str, Any] | None = None  # the last answer, as the wire carries it
    last_action: dict[str, Any] | None = None
    frame_bytes: int = 0  # what the kept pictures weigh
    first_observation: dict[str, Any] = field(default_factory=dict)  # the reset's
    demo_id: str = field(default_factory=new_demo_id)  # its id as a demonstration
    keep_demo: bool = True  # the visitor may leave it out (when the server keeps demos)
    note: str = ""  # the visitor's mark ("mark this episode"), when marked
    marked: bool = False

    @property
    def rewards(self) -> list[float]:
        return [float(s["reward"] or 0.0) for s in self.steps]

    @property
    def total(self) -> float:
        return sum(self.rewards)

    @property
    def replayable_reset(self) -> dict[str, Any] | None:
        """The reset options that start this episode again, seed included (``None`` when its
        seed is unknown: it cannot be replayed exactly)."""
        if self.seed is None:
            return None
        return {**self.reset_kwargs, "seed": self.seed}

    def record_frame(self, frame: Picture | None) -> None:
        """Keep what was drawn after a step, while the episode's pictures stay within
        MAX_RECORDED_FRAMES and MAX_RECORDED_BYTES (the rest of a long episode is not kept)."""
        if frame is None or len(self.frames) >= MAX_RECORDED_FRAMES:
            return
        weight = len(frame.png) if frame.png is not None else 1024
        if self.frame_bytes + weight > MAX_RECORDED_BYTES:
            return
        self.frames.append(frame)
        self.frame_bytes += weight


@dataclass
class Shows:
    """What the stage shows now: the view, the buttons and the sliders."""

    view: View | None = None
    html: str = ""
    legal: list[ActionChoice] = field(default_factory=list)
    sliders: ActionSliders | None = None
    slider_values: list[float] = field(default_factory=list)  # where the visitor left them
    fps: float = 10.0  # the env's frame rate: real-time play steps at it
    draft: dict[str, str] = field(default_factory=dict)  # the typed action's starting text


@dataclass
class Notice:
    """The line the stage says to the visitor (``kind``: info, ok or error)."""

    text: str = ""
    kind: str = "info"


@dataclass
class Recording:
    """A shared episode that presentation mode plays step by step (``?episode=`` with
    ``?present=``): its link, reset options and actions, and how far the episode it plays got."""

    token: str
    reset: dict[str, Any]
    actions: list[dict[str, Any]]
    episode: Episode | None = None  # the episode it plays (another one: it starts again)
    cursor: int = 0  # the next action


@dataclass(eq=False)
class WebTab:
    """A visitor's browser tab and its session."""

    key: str  # the capability to act on the tab: only in its own page, never in a link
    session_hash: str | None
    authorized: bool
    export_key: str = field(default_factory=lambda: secrets.token_urlsafe(18))  # read-only
    session: Session | None = None
    ended: str | None = None  # why the session closed, when it did
    owner: str | None = None  # the client its session counts against (the per-client quota)
    episode: Episode = field(default_factory=Episode)
    shows: Shows = field(default_factory=Shows)
    notice: Notice = field(default_factory=Notice)
    version: int = 0  # grows with every change of the stage: older drawings are never shown
    idle_since: float | None = field(default_factory=time.monotonic)  # without a session since
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    recording: Recording | None = None  # a shared episode presentation mode plays, if any

    def say(self, text: str, kind: str = "info") -> None:
        self.notice = Notice(text, kind)

    @property
    def done(self) -> bool:
        return self.episode.done


class TabRegistry:
    """Live tabs by key (stage calls), export key (downloads) and Gradio session hash (events)."""

    def __init__(self) -> None:
        self._by_key: dict[str, WebTab] = {}
        self._by_hash: dict[str, WebTab] = {}
        self._by_export: dict[str, WebTab] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def create(self, session_hash: str | None, authorized: bool) -> WebTab:
        self.forget_stale()
        tab = WebTab(
            key=secrets.token_urlsafe(18), session_hash=session_hash, authorized=authorized
        )
        self._by_key[tab.key] = tab
        self._by_export[tab.export_key] = tab
        if session_hash:
            self._by_hash[session_hash] = tab
        return tab

    def by_key(self, key: Any) -> WebTab | None:
        return self._by_key.get(key) if isinstance(key, str) else None

    def by_export_key(self, key: Any) -> WebTab | None:
        """The tab whose episode the export link ``key`` reads (it cannot act on the tab)."""
        return self._by_export.get(key) if isinstance(key, str) else None

    def by_hash(self, session_hash: str | None) -> WebTab | None:
        return self._by_hash.get(session_hash) if session_hash else None

    def attach(self, tab: WebTab, session_hash: str) -> None:
        """Hand a tab the fast shell opened before Gradio loaded to Gradio's ``session_hash``."""
        tab.session_hash = session_hash
        self._by_hash[session_hash] = tab

    def forget_stale(self, now: float | None = None) -> list[WebTab]:
        """Forget the tabs without a session for more than TAB_GRACE_S (a page left open after
        its session expired, a page whose unload never came); return them."""
        cutoff = (time.monotonic() if now is None else now) - TAB_GRACE_S
        stale = [
            t for t in self._by_key.values() if t.idle_since is not None and t.idle_since < cutoff
        ]
        for tab in stale:
            self.remove(tab)
        return stale

    def remove(self, tab: WebTab) -> None:
        self._by_key.pop(tab.key, None)
        self._by_export.pop(tab.export_key, None)
        if tab.session_hash and self._by_hash.get(tab.session_hash) is tab:
            del self._by_hash[tab.session_hash]
