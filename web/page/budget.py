"""What a visitor's pages may start, bounded: tabs, page loads and replays of shared links.

Every page load (the Gradio page's load event, the fast shell's ``stage/open``) makes a tab,
and a tab holds memory until it is forgotten, also on a server with a token where a locked tab
has no session to count against the visitor's quota. :class:`BudgetedController` is the
playground's controller with these bounds (each a setting, read when the page is mounted):

- ``$OPENENV_MAX_TABS`` (default 1024) tabs in all, whoever opened them;
- ``$OPENENV_MAX_TABS_PER_CLIENT`` (32) tabs per client address;
- ``$OPENENV_PAGE_LOADS_PER_MIN`` (30, in bursts of 10) new tabs per client address a minute.

A refused page gets a tab that is not kept, which says why and holds nothing. Loopback
clients and token holders count against no per-client bound (as for sessions,
:mod:`openenv.server.clients`), but against the total.

Past capacity (every session slot taken, ``MAX_CONCURRENT_ENVS``, or every tab) a new visitor's
page says so on the stage (:func:`full_notice`, a notice of kind ``"full"``): the server is full;
when to try again (when the next idle session reaches ``SESSION_TIMEOUT_S`` and is closed; a
tab without a session is let go after :data:`~openenv.web.stage.tabs.TAB_GRACE_S`); and a way
out: the command that runs the environment on the visitor's machine, and on a Space
(``$SPACE_ID``) the link that duplicates it. The visitors already playing keep their sessions;
an agent's ``/ws`` gets the ``CAPACITY_REACHED`` error frame as before.

A shared link's replay (:mod:`openenv.web.episode.share`) is bounded in steps by the link
and in time by ``$OPENENV_REPLAY_BUDGET_S`` (default 60 s, all steps together); it is stopped
when its budget is spent or its page goes away (the tab closed, or the request that asked
for it disconnected: :class:`ReplayRequests` lets it see that), and its session is then
closed, which ends a step still running (a sandbox's process with it).
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import secrets
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

import openenv
from openenv.core.extras import DISTRIBUTION
from openenv.server.clients import RateLimit, env_number
from openenv.server.context import ServerContext
from openenv.web.stage.controller import Controller
from openenv.web.stage.html import FULL as FULL_KIND  # drawn as an error, its link clickable
from openenv.web.stage.tabs import TAB_GRACE_S, WebTab

MAX_TABS_VAR = "OPENENV_MAX_TABS"
TABS_PER_CLIENT_VAR = "OPENENV_MAX_TABS_PER_CLIENT"
PAGE_LOADS_VAR = "OPENENV_PAGE_LOADS_PER_MIN"
REPLAY_BUDGET_VAR = "OPENENV_REPLAY_BUDGET_S"
PAGE_LOAD_BURST = 10
WATCH_S = 0.25  # how often a running replay checks that its page is still there

TOO_MANY_TABS = (
    "This server has as many playground tabs open as it can hold: close one, or try again "
    "in a few minutes."
)
FULL = "This server is full: {taken} in use, by visitors and agents."
FULL_TABS = "This server is full: it has as many playground tabs open as it can hold ({n})."
RETRY = (
    "A place frees up as soon as someone leaves, or when an idle session is closed (the next one "
    "in {minutes} min, unless it is used again): try again then (reload the page)."
)
RETRY_TABS = (
    "Places free up as visitors leave, and a tab left without a session is let go after "
    "{minutes} min: try again in a few minutes (reload the page)."
)
RETRY_LATER = "Places free up as visitors and agents leave: try again later (reload the page)."
RUN_LOCALLY = "Or run it on your own machine: {command}, then open http://localhost:8000/web/"
DUPLICATE = "or duplicate this Space: {url}"
_SPACE_ID = re.compile(r"[\w.-]{1,96}/[\w.-]{1,96}")
TOO_MANY_YOURS = (
    "You have {n} playground tabs open on this server, the most one visitor may: close one "
    "(or send the server's API token)."
)
TOO_FAST = "Pages are being opened too fast from your address: wait a minute and reload."
REPLAY_OVER_BUDGET = (
    "The replay was stopped after {steps} steps: replaying a link may take at most {budget:g} s "
    "in all. Its session was closed: press Reset to start again."
)
REPLAY_PAGE_GONE = "replay stopped: its page went away"


@dataclass(frozen=True)
class Budget:
    """The bounds of one playground (see the module docstring)."""

    max_tabs: int = 1024
    tabs_per_client: int = 32
    page_loads_per_min: float = 30.0
    replay_s: float = 60.0

    @classmethod
    def from_env(cls) -> Budget:
        return cls(
            max_tabs=int(env_number(MAX_TABS_VAR, cls.max_tabs)),
            tabs_per_client=int(env_number(TABS_PER_CLIENT_VAR, cls.tabs_per_client)),
            page_loads_per_min=env_number(PAGE_LOADS_VAR, cls.page_loads_per_min),
            replay_s=env_number(REPLAY_BUDGET_VAR, cls.replay_s),
        )


class BudgetedController(Controller):
    """The playground's :class:`Controller`, with its tabs and replays bounded."""

    def __init__(self, ctx: ServerContext, budget: Budget | None = None) -> None:
        super().__init__(ctx)
        self.budget = budget or Budget.from_env()
        self.page_loads = RateLimit(self.budget.page_loads_per_min, PAGE_LOAD_BURST)
        self._by_client: dict[str, list[WebTab]] = {}

    def new_tab(self, session_hash: str | None, owner: str | None = None) -> WebTab:
        """A new tab, or, past a bound, a tab that is not kept and says why."""
        refusal = self._refusal(owner)
        if refusal is not None:
            tab = WebTab(key=secrets.token_urlsafe(18), session_hash=None, authorized=False)
            tab.owner = owner
            if refusal == TOO_MANY_TABS:
                tab.say(full_notice(self.ctx, tabs=self.budget.max_tabs), FULL_KIND)
            else:
                tab.say(refusal, "error")
            return tab
        tab = super().new_tab(session_hash, owner=owner)
        if owner is not None:
            self._by_client.setdefault(owner, []).append(tab)
        return tab

    def _refusal(self, owner: str | None) -> str | None:
        if len(self.tabs) >= self.budget.max_tabs:
            self.tabs.forget_stale()
            if len(self.tabs) >= self.budget.max_tabs:
                return TOO_MANY_TABS
        if owner is None:
            return None
        if len(self._open_tabs(owner)) >= self.budget.tabs_per_client:
            return TOO_MANY_YOURS.format(n=self.budget.tabs_per_client)
        if not self.page_loads.allow(owner):
            return TOO_FAST
        return None

    async def _ensure_session(self, tab: WebTab) -> bool:
        """The tab's session; when the server has no slot left, the notice says so and what
        the visitor can do (a client's own quota keeps its own wording)."""
        if await super()._ensure_session(tab):
            return True
        if self.manager.active >= self.manager.max_sessions:
            tab.say(full_notice(self.ctx), FULL_KIND)
        return False

    def _open_tabs(self, owner: str) -> list[WebTab]:
        """``owner``'s tabs still kept (the forgotten ones dropped from the count)."""
        self.tabs.forget_stale()
        kept = [t for t in self._by_client.get(owner, ()) if self.tabs.by_key(t.key) is t]
        if kept:
            self._by_client[owner] = kept
        else:
            self._by_client.pop(owner, None)
        return kept

    async def replay_link(self, tab: WebTab, token: Any) -> bool:
        """Replay a shared link within the time budget, and only while its page is there."""
        replay = asyncio.ensure_future(super().replay_link(tab, token))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.budget.replay_s
        try:
            while not replay.done():
                left = deadline - loop.time()
                await asyncio.wait({replay}, timeout=max(0.0, min(WATCH_S, left)))
                if replay.done():
                    break
                if self.tabs.by_key(tab.key) is not tab or await _requester_gone():
                    await self._stop(tab, replay, REPLAY_PAGE_GONE)
                    return False
                if loop.time() >= deadline:
                    await self._stop(tab, replay, "the replay ran past its time budget")
                    text = REPLAY_OVER_BUDGET.format(
                        steps=len(tab.episode.steps), budget=self.budget.replay_s
                    )
                    tab.say(text, "error")
                    tab.version += 1
                    return False
            return replay.result()
        finally:
            if not replay.done():  # this call itself was cancelled (its request went away)
                await self._stop(tab, replay, REPLAY_PAGE_GONE)

    async def _stop(self, tab: WebTab, replay: asyncio.Future[bool], reason: str) -> None:
        """Cancel ``replay`` and close its session (ending a step that is still running)."""
        replay.cancel()
        await asyncio.gather(replay, return_exceptions=True)
        session = tab.session
        if session is not None:
            await self.manager.close(session.id, reason)


def full_notice(ctx: ServerContext, tabs: int | None = None) -> str:
    """What a new visitor reads when the server is full (every session slot taken, or every
    playground tab when ``tabs`` is that bound): when to try again, and a way out."""
    manager = ctx.manager
    n = manager.max_sessions
    taken = "its one session is" if n == 1 else f"all its {n} sessions are"
    head = FULL_TABS.format(n=tabs) if tabs is not None else FULL.format(taken=taken)
    if tabs is not None:  # a tab whose session ended is forgotten after TAB_GRACE_S
        retry = RETRY_TABS.format(minutes=_minutes(max(manager.idle_timeout_s or 0, TAB_GRACE_S)))
    elif (wait := manager.next_idle_close_s()) is not None:
        retry = RETRY.format(minutes=_minutes(wait))
    else:  # every session is an agent's on a live connection, or none ever times out
        retry = RETRY_LATER
    parts = [head, retry, RUN_LOCALLY.format(command=run_locally(ctx))]
    space = duplicate_url()
    if space is not None:
        parts[-1] += ";"
        parts.append(DUPLICATE.format(url=space))
    return " ".join(parts) + ("." if space is None else "")


def _minutes(seconds: float) -> int:
    return max(1, math.ceil(seconds / 60))


def run_locally(ctx: ServerContext) -> str:
    """The commands that serve this environment on a visitor's machine: for an environment
    the distribution ships, the distribution (with the env's extra) and ``openenv serve`` with
    the env's name; for another, ``openenv serve`` on a copy of its folder."""
    package = ctx.package
    extra = package.extra
    requirement = f'"{DISTRIBUTION}[{extra}]"' if extra else DISTRIBUTION
    framework = Path(openenv.__file__).resolve().parent.parent  # a checkout, or site-packages
    path = package.path.resolve() if package.path is not None else None
    if path is not None and path.parent in (framework, framework / "envs"):
        return f"pip install {requirement} && openenv serve {package.name}"
    if path is not None:
        return f"pip install {requirement} && openenv serve {path.name} (in a copy of its source)"
    return f"pip install {requirement}, then openenv serve a copy of this environment's source"


def duplicate_url() -> str | None:
    """The Hub's link that duplicates this Space (``$SPACE_ID``), or ``None`` off a Space."""
    space = os.environ.get("SPACE_ID", "").strip()
    if not _SPACE_ID.fullmatch(space):
        return None
    return f"https://huggingface.co/spaces/{space}?duplicate=true"


# The ``receive`` of the HTTP request a replay runs for (set by ReplayRequests).
_requester: ContextVar[Receive | None] = ContextVar("openenv_replay_requester", default=None)


class ReplayRequests:
    """Wraps a route's ASGI app so a replay it runs sees its request disconnect."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _requester.set(receive)
        try:
            await self.app(scope, receive, send)
        finally:
            _requester.reset(token)


async def _requester_gone() -> bool:
    """True when the request this replay runs for has disconnected (its body was read
    already, so the next message it can get is the disconnect)."""
    receive = _requester.get()
    if receive is None:
        return False
    try:
        message = await asyncio.wait_for(receive(), 0.001)
    except TimeoutError:
        return False
    return message.get("type") == "http.disconnect"


def watch_replay_requests(routes: list[Any], path: str) -> None:
    """Wrap the route at ``path`` (the stage's replay) with :class:`ReplayRequests`."""
    for route in routes:
        if getattr(route, "path", None) == path and hasattr(route, "app"):
            route.app = ReplayRequests(route.app)
