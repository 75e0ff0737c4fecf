"""What the playground does with a visitor's session, without any Gradio: open, reset, step,
draw, close. Every failure becomes a message on the tab and leaves the episode as it was.
"""

from __future__ import annotations

import asyncio
import hmac
import random
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
from openenv.core.views import ActionChoice, ActionSliders
from openenv.server.context import ServerContext
from openenv.web.drawing import picture, to_html
from openenv.web.episode.steps import set_fields
from openenv.web.stage.tabs import TabRegistry, WebTab

SESSION_KIND = "web"


class Controller:
    """Drives the sessions of the playground's tabs through the server's session manager."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.tabs = TabRegistry()

    @property
    def manager(self):
        return self.ctx.manager

    # -- tabs and sessions -----------------------------------------------------------------

    def new_tab(self, session_hash: str | None) -> WebTab:
        tab = self.tabs.create(session_hash, authorized=self.ctx.token is None)
        if not tab.authorized:
            tab.say("This server is protected: enter its API token to start.", "info")
        return tab

    def unlock(self, tab: WebTab, token: str | None) -> bool:
        """Authorize the tab when ``token`` matches the server's (constant-time comparison)."""
        expected = self.ctx.token
        given = (token or "").strip()
        if expected is None or hmac.compare_digest(given.encode(), expected.encode()):
            tab.authorized = True
            return True
        tab.say("That token is not this server's API token (OPENENV_API_TOKEN).", "error")
        return False

    async def close(self, tab: WebTab) -> None:
        """The tab went away: free its session."""
        self.tabs.remove(tab)
        session, tab.session = tab.session, None
        if session is not None:
            await self.manager.close(session.id, "browser tab closed")

    async def _ensure_session(self, tab: WebTab) -> bool:
        if tab.session is not None and not tab.session.closed:
            return True
        try:
            session = await self.manager.open(SESSION_KIND)
        except CapacityReached as exc:
            tab.say(f"The server is full: {exc.message}. Press Reset to try again.", "error")
            return False
        except OpenEnvError as exc:
            tab.say(f"Could not start the environment: {exc.message}", "error")
            return False
        session.on_close.append(lambda reason, tab=tab: self._ended(tab, reason))
        tab.session, tab.ended = session, None
        return True

    def _ended(self, tab: WebTab, reason: str) -> None:
        tab.session = None
        if reason != "browser tab closed":
            tab.ended = reason

    # -- episode ---------------------------------------------------------------------------

    async def reset(self, tab: WebTab, options: dict[str, Any]) -> bool:
        if not tab.authorized:
            return False
        async with tab.lock:
            if not await self._ensure_session(tab):
                return False
            try:
                obs = await self.manager.reset(session_of(tab), **options)
            except OpenEnvError as exc:
                self._refused(tab, exc, "Reset")
                return False
            tab.episode = type(tab.episode)(reset_kwargs=dict(options))
            tab.last_action = None
            await self._observe(tab, obs)
            tab.say("New episode started." if not tab.done else "The episode ended on reset.")
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
                tab.say(self._no_session_message(tab), "error")
                return False
            legal = tab.legal  # the buttons this action was chosen from
            try:
                typed = model_from_wire(action, self.ctx.action_cls)
                obs, drawn = await self._step_and_draw(tab, typed)
            except OpenEnvError as exc:
                self._refused(tab, exc, "Step")
                return False
            payload = typed.model_dump(mode="json")
            tab.last_action = payload
            if label is None:
                label = _label_of(payload, legal)
            await self._observe(tab, obs, action=payload, drawn=drawn, label=label)
            tab.say("The episode is over: press Reset to play again." if tab.done else "")
            return True

    async def _step_and_draw(self, tab: WebTab, action: Any) -> tuple[Any, Any]:
        """Step, render and list legal actions in one worker-thread hop (sync environments)."""
        session = session_of(tab)
        if session.env is not None and overrides(type(session.env), "step_async"):
            return await self.manager.step(session, action), None

        async def run(env: Any) -> tuple[Any, Any]:
            return await asyncio.to_thread(_step_render, env, action)

        return await self.manager.run(session, run)

    async def press(self, tab: WebTab, data: dict[str, Any]) -> bool:
        """What the stage sent: ``{"index": i}`` (a button) or ``{"values": [...]}`` (sliders)."""
        if "values" in data:
            return await self.slide(tab, data["values"])
        return await self.act(tab, data.get("index"))

    async def act(self, tab: WebTab, index: Any) -> bool:
        """Press the ``index``-th legal-action button."""
        choice = self._choice(tab, index)
        if choice is None:
            return False
        return await self.step(tab, _action_dict(choice), choice.label)

    async def slide(self, tab: WebTab, values: Any) -> bool:
        """Step with the sliders at ``values``; they stay there for the next step."""
        sliders = tab.sliders
        if sliders is None:
            tab.say("There are no sliders now: use the buttons or the action form.", "error")
            return False
        try:
            action = sliders.action_for(values)
        except ValueError as exc:
            tab.say(f"Step refused, nothing changed: {exc}", "error")
            return False
        tab.slider_values = [float(v) for v in values]
        return await self.step(tab, action)

    async def random_step(self, tab: WebTab, held: Any = None) -> bool:
        """One autoplay step: random slider values when there are sliders, else a random
        legal action; ``held`` values ("hold during autoplay") are stepped as the sliders'."""
        if held is not None:
            return await self.slide(tab, held)
        if tab.sliders is not None:
            return await self.step(tab, tab.sliders.action_for(tab.sliders.sample(random)))
        if not tab.legal:
            tab.say(
                "Autoplay needs legal actions or sliders, and this environment offers neither.",
                "error",
            )
            return False
        choice = random.choice(tab.legal)
        return await self.step(tab, _action_dict(choice), choice.label)

    def _choice(self, tab: WebTab, index: Any) -> ActionChoice | None:
        if isinstance(index, int) and 0 <= index < len(tab.legal):
            return tab.legal[index]
        tab.say("That action is no longer available; pick one of the buttons shown.", "error")
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
        tab.last_response = {"type": "observation", "data": payload}
        tab.observation, tab.done = payload["observation"], bool(payload["done"])
        if action is not None:
            step = {"action": action, **{k: payload[k] for k in ("observation", "reward", "done")}}
            if label:
                step["label"] = label
            tab.episode.steps.append(step)
        await self._draw(tab, drawn=drawn)

    async def _draw(self, tab: WebTab, record: bool = True, drawn: Any = None) -> None:
        session = tab.session
        try:
            if drawn is None and session is None:
                raise SessionNotFound("the session closed while drawing")
            view, legal, sliders = drawn or await self.manager.call(session, _drawing)
        except OpenEnvError as exc:
            tab.say(f"The environment failed to draw itself: {exc.message}", "error")
            view, legal, sliders = None, [], None
        tab.view, tab.legal = view, list(legal or [])
        if sliders != tab.sliders:  # another task or space: the sliders start afresh
            tab.slider_values = [] if sliders is None else sliders.start
        tab.sliders = sliders
        shown = picture(view) if view is not None else None
        tab.view = view
        tab.view_html = shown.html() if shown is not None else to_html(None, tab.observation)
        if record:
            tab.episode.record_frame(shown)

    async def redraw(self, tab: WebTab) -> None:
        """Draw the environment again (after a change made outside step and reset)."""
        async with tab.lock:
            if tab.session is not None:
                await self._draw(tab, record=False)

    def _refused(self, tab: WebTab, exc: OpenEnvError, what: str) -> None:
        if isinstance(exc, SessionNotFound):
            tab.session = None
            tab.say(self._no_session_message(tab), "error")
        elif isinstance(exc, ResetNeeded):
            tab.say(f"{exc.message}. Press Reset.", "error")
        elif isinstance(exc, InvalidAction):
            tab.say(f"{what} refused, nothing changed: {exc.message}", "error")
        else:
            tab.say(f"{what} failed, nothing changed: {exc.message}", "error")

    def _no_session_message(self, tab: WebTab) -> str:
        if tab.ended:
            return f"Session expired ({tab.ended}): press Reset to start a new one."
        return "No session yet: press Reset to start an episode."


def session_of(tab: WebTab) -> Any:
    """The tab's session, or SessionNotFound when the tab closed meanwhile."""
    if tab.session is None:
        raise SessionNotFound("this tab's session was closed")
    return tab.session


Drawing = tuple[Any, list[ActionChoice], ActionSliders | None]


def _drawing(env: Any) -> Drawing:
    """What the stage shows: the view, the buttons and the sliders."""
    return env.render(), env.legal_actions(), env.action_sliders()


def _step_render(env: Any, action: Any) -> tuple[Any, Drawing | None]:
    obs = env.step(action)
    try:
        return obs, _drawing(env)
    except Exception:  # drawing failed: the step happened; _draw retries and reports it
        return obs, None


def _label_of(payload: dict[str, Any], legal: list[ActionChoice]) -> str | None:
    """The label of the legal action ``payload`` is (unset fields aside), if it is one."""
    fields = set_fields(payload)
    for choice in legal:
        if set_fields(_action_dict(choice)) == fields:
            return choice.label
    return None


def _action_dict(choice: ActionChoice) -> dict[str, Any]:
    action = choice.action
    return action.model_dump(mode="json") if hasattr(action, "model_dump") else dict(action)
