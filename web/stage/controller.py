"""What the playground does with a visitor's session, without any Gradio: open, reset, act,
draw, close. Every front end (the fast shell, the Gradio page, the Tools and Code tabs, an
environment's own tab) goes through it, and it is the only writer of a tab's state. Every
failure becomes the tab's notice and leaves the episode as it was.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable
from typing import Any

from openenv.core.environment import overrides
from openenv.core.errors import (
    CapacityReached,
    InvalidAction,
    OpenEnvError,
    ResetNeeded,
    SessionNotFound,
)
from openenv.core.serialization import model_from_wire, observation_to_wire, state_to_wire
from openenv.core.view_wire import Drawing, drawing_of
from openenv.core.views import ActionChoice, Board, Frame
from openenv.server.context import ServerContext
from openenv.server.sessions import SessionManager
from openenv.web import forms
from openenv.web.agents import Agent
from openenv.web.drawing import picture, to_html
from openenv.web.episode.steps import label_of
from openenv.web.stage import messages
from openenv.web.stage.demos import DemoKeeper
from openenv.web.stage.html import stage_html
from openenv.web.stage.players import Players
from openenv.web.stage.tabs import Episode, TabRegistry, WebTab

SESSION_KIND = "web"
TAB_CLOSED = "browser tab closed"


# (tab, the panels asked for, the request) -> {panel: its HTML}, the unchanged ones left out
PanelRenderer = Callable[[WebTab, list[str], Any], Awaitable[dict[str, str]]]


class Controller(Players):
    """Drives the sessions of the playground's tabs through the server's session manager."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.tabs = TabRegistry()
        # An action typed on the stage itself (a word, a number), when the action is one.
        self.typed = forms.stage_fields(ctx.action_cls)
        self._agent: Agent | None = None
        self.demos = DemoKeeper.for_server(ctx)  # None unless the operator keeps demos
        # The Gradio page's side panels (State, Last response, Python, Rewards) for a tab, as
        # the stage's panels route serves them: set by the page (openenv.web.page.blocks).
        self.panels: PanelRenderer | None = None

    @property
    def manager(self) -> SessionManager:
        return self.ctx.manager

    def html(self, tab: WebTab) -> str:
        """The tab's whole stage, as every front end draws it."""
        return stage_html(tab, self.typed, demos=self.demos is not None)

    # -- tabs and sessions -----------------------------------------------------------------

    def new_tab(self, session_hash: str | None, owner: str | None = None) -> WebTab:
        """A new tab; ``owner`` is the client its session counts against (its address)."""
        tab = self.tabs.create(session_hash, authorized=self.ctx.token is None)
        tab.owner = owner
        if not tab.authorized:
            tab.say(messages.LOCKED, "info")
        return tab

    def owner_of(self, request: Any) -> str | None:
        """Whom a request counts against (``ctx.owner_of``), from a Starlette request or a
        ``gr.Request`` (which wraps one); ``None`` when Gradio passed no HTTP request."""
        http = getattr(request, "request", request)
        scope = getattr(http, "scope", None)
        return self.ctx.owner_of(scope) if scope is not None else None

    def tab(self, key: Any, owner: str | None) -> WebTab | None:
        """The authorized tab a stage call names by its key, if it is still open and the
        caller is its owner (``owner``: the caller's, from ``ctx.owner_of``): a key copied to
        another client opens nothing there. A tab that counts against nobody (loopback, a token
        holder's) is anyone's who has its key."""
        tab = self.tabs.by_key(key)
        if tab is None or not tab.authorized:
            return None
        return tab if tab.owner is None or tab.owner == owner else None

    def adopt(self, key: Any, session_hash: str | None, owner: str | None) -> WebTab | None:
        """The fast shell's tab ``key``, now the Gradio page ``session_hash``'s; ``None`` when
        the key is unknown or not ``owner``'s, its session closed, or another page adopted it
        already."""
        tab = self.tab(key, owner)
        if tab is None or not session_hash:
            return None
        if tab.session_hash is not None:
            return tab if tab.session_hash == session_hash else None
        if tab.session is None or tab.session.closed:
            self.tabs.remove(tab)
            return None
        self.tabs.attach(tab, session_hash)
        return tab

    def unlock(self, tab: WebTab, token: str | None) -> bool:
        """Authorize the tab when ``token`` matches the server's (constant-time comparison)."""
        expected = self.ctx.token
        given = (token or "").strip()
        if expected is None or hmac.compare_digest(given.encode(), expected.encode()):
            tab.authorized, tab.owner = True, None  # a token holder counts against nobody
            return True
        self._say(tab, messages.WRONG_TOKEN, "error")
        return False

    async def close(self, tab: WebTab) -> None:
        """The tab went away: free its session."""
        self.tabs.remove(tab)
        if self.demos is not None:
            self.demos.finished(tab)
        session, tab.session = tab.session, None
        if session is not None:
            await self.manager.close(session.id, TAB_CLOSED)

    async def _ensure_session(self, tab: WebTab) -> bool:
        if tab.session is not None and not tab.session.closed:
            return True
        try:
            session = await self.manager.open(SESSION_KIND, owner=tab.owner)
        except CapacityReached as exc:
            self._say(tab, messages.full(exc.message), "error")
            return False
        except OpenEnvError as exc:
            self._say(tab, messages.cannot_start(exc.message), "error")
            return False
        session.on_close.append(lambda reason, tab=tab: self._ended(tab, reason))
        tab.session, tab.ended, tab.idle_since = session, None, None
        return True

    def _ended(self, tab: WebTab, reason: str) -> None:
        tab.session, tab.idle_since = None, time.monotonic()
        if reason != TAB_CLOSED:
            tab.ended = reason
        if tab.session_hash is None:  # a shell tab no Gradio page adopted: nobody else frees it
            self.tabs.remove(tab)

    # -- episode ---------------------------------------------------------------------------

    async def reset(self, tab: WebTab, options: dict[str, Any]) -> bool:
        if not tab.authorized:
            return False
        async with tab.lock:
            if not await self._ensure_session(tab):
                return False
            try:
                obs = await self.manager.reset(_session(tab), **options)
            except OpenEnvError as exc:
                self._refused(tab, exc, "Reset")
                return False
            if self.demos is not None:  # a marked episode left unfinished is kept as it is
                self.demos.finished(tab)
            tab.episode = Episode(reset_kwargs=dict(options), seed=_seed_of(tab, options))
            await self._observe(tab, obs)
            tab.episode.first_observation = dict(tab.episode.observation)
            self._say(tab, messages.ENDED_ON_RESET if tab.done else messages.STARTED)
            return True

    async def step(self, tab: WebTab, action: dict[str, Any], label: str | None = None) -> bool:
        """Validate and apply one action; on any refusal the episode stays as it was.

        ``label`` names the button pressed (the step log shows it); a typed action that equals
        one of the legal actions gets that button's label.
        """
        if not tab.authorized:
            return False
        async with tab.lock:
            if tab.session is None:
                self._say(tab, self._no_session_message(tab), "error")
                return False
            legal = tab.shows.legal  # the buttons this action was chosen from
            try:
                typed = model_from_wire(action, self.ctx.action_cls)
                obs, drawn = await self._step_and_draw(tab, typed)
            except OpenEnvError as exc:
                self._refused(tab, exc, "Step")
                return False
            payload = typed.model_dump(mode="json")
            tab.episode.last_action = payload
            if label is None:
                label = label_of(payload, legal)
            await self._observe(tab, obs, action=payload, drawn=drawn, label=label)
            if self.demos is not None and tab.done:
                self.demos.finished(tab)
            self._say(tab, messages.OVER if tab.done else "")
            return True

    async def demo(self, tab: WebTab, data: dict[str, Any]) -> bool:
        """The visitor's choice about the episode as a demonstration: ``{"keep": bool}`` (leave
        it out, or keep it again) or ``{"mark": note}`` (flag it with a note)."""
        if self.demos is None:
            self._say(tab, "This server does not keep demonstrations.", "error")
            return False
        async with tab.lock:
            if isinstance(data.get("keep"), bool):
                self._say(tab, self.demos.set_keep(tab, data["keep"]), "ok")
            elif "mark" in data:
                self._say(tab, self.demos.mark(tab, data["mark"]), "ok")
            else:
                self._say(tab, 'send {"keep": true|false} or {"mark": "a note"}', "error")
                return False
            return True

    async def _step_and_draw(self, tab: WebTab, action: Any) -> tuple[Any, Any]:
        """Step, render and list legal actions in one call of a sync environment, run where the
        server's scheduler runs every session's calls (inline when proven fast, else its worker
        pools, with their time limit and per-client share), as a ``/ws`` step is."""
        session = _session(tab)
        if session.env is not None and overrides(type(session.env), "step_async"):
            return await self.manager.step(session, action), None
        obs, drawn = await self.manager.call(session, lambda env: _step_render(env, action))
        session.progress.step(obs)  # manager.step notes it on the other path
        return obs, drawn

    async def press(self, tab: WebTab, data: dict[str, Any]) -> bool:
        """What the stage sent: ``{"index": i}`` (a button), ``{"values": [...]}`` (sliders),
        ``{"fields": {...}}`` (the action typed on the stage), ``{"point": [x, y]}`` (a click
        on the frame), ``{"key": k}`` (a key typed on the frame) or ``{"cell": [row, col]}``
        (a click on a board's square)."""
        if "values" in data:
            return await self.slide(tab, data["values"])
        if "fields" in data:
            return await self.typed_step(tab, data["fields"])
        if "point" in data or "key" in data or "cell" in data:
            return await self.pointed(tab, data)
        return await self.act(tab, data.get("index"))

    async def pointed(self, tab: WebTab, data: dict[str, Any]) -> bool:
        """Step the action the shown view gives a click or a key (``Frame.click``,
        ``Frame.keys``, ``Cell.action``)."""
        view = tab.shows.view
        try:
            if "cell" in data and isinstance(view, Board):
                row, col = _pair(data["cell"])
                action = view.cell_action(row, col)
                cell = view.rows[row][col]
                label = cell.label or cell.glyph or f"square ({row}, {col})"
            elif "point" in data and isinstance(view, Frame):
                x, y = _pair(data["point"])
                action, label = view.click_action(x, y), f"click ({x}, {y})"
            elif "key" in data and isinstance(view, Frame):
                action, label = view.key_action(data["key"]), f"key {data['key']}"
            else:
                raise ValueError(messages.NOT_POINTABLE)
        except ValueError as exc:
            self._say(tab, messages.refused("Step", str(exc)), "error")
            return False
        return await self.step(tab, action, label)

    async def act(self, tab: WebTab, index: Any) -> bool:
        """Press the ``index``-th legal-action button."""
        choice = self._choice(tab, index)
        if choice is None:
            return False
        return await self.step(tab, choice.fields(), choice.label)

    async def slide(self, tab: WebTab, values: Any) -> bool:
        """Step with the sliders at ``values``; they stay there for the next step."""
        sliders = tab.shows.sliders
        if sliders is None:
            self._say(tab, messages.NO_SLIDERS, "error")
            return False
        try:
            action = sliders.action_for(values)
        except ValueError as exc:
            self._say(tab, messages.refused("Step", str(exc)), "error")
            return False
        tab.shows.slider_values = [float(v) for v in values]
        return await self.step(tab, action)

    async def typed_step(self, tab: WebTab, fields: Any) -> bool:
        """Step with the action the visitor typed on the stage (text read by the form rules)."""
        if not self.typed or not isinstance(fields, dict):
            self._say(tab, messages.NOTHING_TYPED, "error")
            return False
        values = [fields.get(spec.name) for spec in self.typed]
        action, errors = forms.parse_values(self.typed, values)
        if errors:
            self._say(tab, messages.refused("Step", "; ".join(errors)), "error")
            return False
        return await self.step(tab, action)

    def _choice(self, tab: WebTab, index: Any) -> ActionChoice | None:
        legal = tab.shows.legal
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(legal):
            return legal[index]
        self._say(tab, messages.NO_LONGER_LEGAL, "error")
        return None

    async def state(self, tab: WebTab) -> dict[str, Any] | None:
        session = tab.session
        if session is None:
            return None
        try:
            return state_to_wire(await self.manager.state(session))
        except OpenEnvError:
            return None

    # -- drawing ---------------------------------------------------------------------------

    async def _observe(
        self,
        tab: WebTab,
        obs: Any,
        action: dict[str, Any] | None = None,
        drawn: Any = None,
        label: str | None = None,
    ) -> None:
        payload = observation_to_wire(obs)
        episode = tab.episode
        episode.last_response = {"type": "observation", "data": payload}
        episode.observation, episode.done = payload["observation"], bool(payload["done"])
        if action is not None:
            step = {"action": action, **{k: payload[k] for k in ("observation", "reward", "done")}}
            if label:
                step["label"] = label
            episode.steps.append(step)
        await self._draw(tab, drawn=drawn)

    async def _draw(self, tab: WebTab, record: bool = True, drawn: Any = None) -> None:
        session = tab.session
        try:
            if drawn is None and session is None:
                raise SessionNotFound("the session closed while drawing")
            (view, legal, sliders), draft = drawn or await self.manager.call(session, _shown)
        except OpenEnvError as exc:
            self._say(tab, messages.draw_failed(exc.message), "error")
            view, legal, sliders, draft = None, [], None, {}
        shows = tab.shows
        shows.view, shows.legal, shows.draft = view, list(legal or []), draft
        shows.fps = _fps(session, self.ctx.env_cls)
        if sliders != shows.sliders:  # another task or space: the sliders start afresh
            shows.slider_values = [] if sliders is None else sliders.start
        shows.sliders = sliders
        shown = picture(view) if view is not None else None
        shows.html = shown.html() if shown is not None else to_html(None, tab.episode.observation)
        if record:
            tab.episode.record_frame(shown)
        tab.version += 1

    async def redraw(self, tab: WebTab) -> None:
        """Draw the environment again (after a change made outside step and reset)."""
        async with tab.lock:
            if tab.session is not None:
                await self._draw(tab, record=False)

    def _say(self, tab: WebTab, text: str, kind: str = "info") -> None:
        tab.say(text, kind)
        tab.version += 1

    def _refused(self, tab: WebTab, exc: OpenEnvError, what: str) -> None:
        if isinstance(exc, SessionNotFound):
            tab.session, tab.idle_since = None, time.monotonic()
            self._say(tab, self._no_session_message(tab), "error")
        elif isinstance(exc, ResetNeeded):
            self._say(tab, messages.reset_needed(exc.message), "error")
        elif isinstance(exc, InvalidAction):
            self._say(tab, messages.refused(what, exc.message), "error")
        else:
            self._say(tab, messages.failed(what, exc.message), "error")

    def _no_session_message(self, tab: WebTab) -> str:
        return messages.expired(tab.ended) if tab.ended else messages.NO_SESSION


def _session(tab: WebTab) -> Any:
    """The tab's session, or SessionNotFound when the tab closed meanwhile."""
    if tab.session is None:
        raise SessionNotFound("this tab's session was closed")
    return tab.session


def _fps(session: Any, env_cls: Any) -> float:
    """The frame rate of the session's env (an instance may set its own), else its class's."""
    for source in (getattr(session, "env", None), env_cls):
        fps = getattr(source, "render_fps", None)
        if isinstance(fps, int | float) and not isinstance(fps, bool) and 0 < fps <= 240:
            return float(fps)
    return 10.0


Shown = tuple[Drawing, dict[str, str]]
MAX_DRAFT_CHARS = 64 * 1024  # an env's starting text for one typed field, at most


def _shown(env: Any) -> Shown:
    """What the stage shows of ``env``: its drawing, and what its typed action starts with
    (``Environment.action_draft``: text fields only, each bounded)."""
    hook = getattr(env, "action_draft", None)
    draft = hook() if callable(hook) else None
    kept = {
        str(name)[:100]: text[:MAX_DRAFT_CHARS]
        for name, text in (draft.items() if isinstance(draft, dict) else ())
        if isinstance(text, str)
    }
    return drawing_of(env), kept


def _step_render(env: Any, action: Any) -> tuple[Any, Shown | None]:
    obs = env.step(action)
    try:
        return obs, _shown(env)
    except Exception:  # drawing failed: the step happened; _draw retries and reports it
        return obs, None


def _seed_of(tab: WebTab, options: dict[str, Any]) -> int | None:
    """The seed the tab's episode runs with: the one given, else the one the env drew."""
    seed = options.get("seed")
    if seed is None and tab.session is not None:
        seed = getattr(tab.session.env, "seed", None)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def _pair(value: Any) -> tuple[Any, Any]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError("send two numbers")
    return value[0], value[1]
