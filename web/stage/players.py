"""Who else moves a tab besides its visitor: a random legal move, the env's own solver, a
shared episode played again (once, or in a loop for presentation mode), and the operator's
agent. The :class:`~openenv.web.stage.controller.Controller` is one of these; every move
goes through its ``step`` and ``reset``, so the tab's state keeps one writer.
"""

from __future__ import annotations

import functools
import random
from typing import TYPE_CHECKING, Any

from openenv.core.errors import OpenEnvError
from openenv.core.serialization import model_from_wire
from openenv.web.agents import Agent, AgentError, agent_from_env
from openenv.web.episode.share import ShareError, read_token
from openenv.web.episode.steps import action_text, label_of
from openenv.web.stage import messages
from openenv.web.stage.tabs import Recording, WebTab

if TYPE_CHECKING:
    from openenv.server.context import ServerContext
    from openenv.server.sessions import SessionManager
    from openenv.validation.oracle import Oracle

MAX_REPLAY_STEPS = 10_000  # a shared link's or a file's actions stepped again at most


class Players:
    """The moves of random play, the solver, a shared recording and the agent, for the
    controller (whose ``step``, ``reset``, ``slide`` and ``_say`` they use)."""

    ctx: ServerContext
    _agent: Agent | None

    if TYPE_CHECKING:

        @property
        def manager(self) -> SessionManager: ...

        async def reset(self, tab: WebTab, options: dict[str, Any]) -> bool: ...

        async def step(
            self, tab: WebTab, action: dict[str, Any], label: str | None = None
        ) -> bool: ...

        async def slide(self, tab: WebTab, values: Any) -> bool: ...

        def _say(self, tab: WebTab, text: str, kind: str = "info") -> None: ...

    @property
    def agent(self) -> Agent:
        """The agent the operator configured (``OPENENV_AGENT``: :mod:`openenv.web.agents`);
        ValueError when the settings are wrong."""
        if self._agent is None:
            self._agent = agent_from_env()
        return self._agent

    async def replay_link(self, tab: WebTab, token: Any) -> bool:
        """Replay the episode a shared link carries (:mod:`openenv.web.episode.share`)."""
        try:
            reset, actions = read_token(token)
        except ShareError as exc:
            self._say(tab, messages.bad_link(str(exc)), "error")
            return False
        return await self.replay(tab, reset, actions)

    async def replay(
        self, tab: WebTab, reset: dict[str, Any], actions: list[dict[str, Any]]
    ) -> bool:
        """Reset with ``reset`` and step ``actions`` in order (a shared link, "play from
        here"): the episode as it was recorded, and then the visitor's to go on with. Stops at
        the first refusal or end, saying which step and why."""
        if len(actions) > MAX_REPLAY_STEPS:
            self._say(tab, messages.replay_too_long(len(actions), MAX_REPLAY_STEPS), "error")
            return False
        if not await self.reset(tab, dict(reset)):
            return False
        for n, action in enumerate(actions, start=1):
            if tab.done:
                self._say(tab, messages.replay_ended(n - 1, len(actions)), "error")
                return False
            if not await self.step(tab, action):
                self._say(tab, messages.replay_refused(n, tab.notice.text), "error")
                return False
        self._say(tab, messages.replayed(len(actions), tab.done))
        return True

    async def random_step(self, tab: WebTab, held: Any = None) -> bool:
        """One autoplay step: random slider values when there are sliders, else a random
        legal action; ``held`` values ("hold during autoplay") are stepped as the sliders'."""
        if held is not None:
            return await self.slide(tab, held)
        shows = tab.shows
        if shows.sliders is not None:
            return await self.step(tab, shows.sliders.action_for(shows.sliders.sample(random)))
        if not shows.legal:
            self._say(tab, messages.NO_AUTOPLAY, "error")
            return False
        choice = random.choice(shows.legal)
        return await self.step(tab, choice.fields(), choice.label)

    @functools.cached_property
    def solver(self) -> Oracle | None:
        """The env's own solver: the oracle its validation plays (``server/oracle.py``, or
        where the manifest's ``validation:`` block puts it); None when the env ships none or it
        cannot run here. Presentation mode plays it when the operator set up no agent."""
        from openenv.validation.oracle import load_oracle
        from openenv.validation.spec import read_spec

        package = self.ctx.package
        if package.path is None:
            return None
        try:
            oracle = load_oracle(package.package, read_spec(package.path).oracle_location)
            return oracle if oracle is not None and oracle.unavailable() is None else None
        except Exception:  # a broken oracle is the validator's finding; here, no solver
            return None

    async def solver_step(self, tab: WebTab) -> bool:
        """One move by the env's solver (:attr:`solver`), logged with a 🧭; a random step when
        it has none here or nothing more to play in this episode."""
        solver, session = self.solver, tab.session
        if solver is None or session is None or tab.done:
            return await self.random_step(tab)
        seen = dict(tab.episode.observation)

        try:  # the observation as the env returned it (an oracle may read its fields)
            observation: Any = model_from_wire(seen, self.ctx.observation_cls)
        except Exception:
            observation = seen
        try:  # run as the env's own calls are: the scheduler's pools and time limit
            move = await self.manager.call(session, lambda env: solver.act(env, observation))
        except OpenEnvError as exc:
            self._say(tab, f"The env's solver could not move: {exc.message}", "error")
            return False
        if not isinstance(move, dict):
            return await self.random_step(tab)
        label = label_of(move, tab.shows.legal)
        return await self.step(tab, move, f"🧭 {label or action_text({'action': move})}")

    async def recording_step(self, tab: WebTab, token: Any) -> bool:
        """One step of a shared episode (presentation mode of a link): its reset first, then
        its actions in order, logged with a 🎞; when it is over (or the episode ended, or
        another one started) it starts again."""
        rec = tab.recording
        if rec is None or rec.token != token:
            try:
                reset, actions = read_token(token)
            except ShareError as exc:
                self._say(tab, messages.bad_link(str(exc)), "error")
                return False
            if not actions:
                self._say(tab, messages.bad_link("the link's episode has no steps"), "error")
                return False
            rec = tab.recording = Recording(token, reset, actions[:MAX_REPLAY_STEPS])
        if rec.episode is not tab.episode or tab.done or rec.cursor >= len(rec.actions):
            if not await self.reset(tab, dict(rec.reset)):
                return False
            rec.episode, rec.cursor = tab.episode, 0
            return True
        action = rec.actions[rec.cursor]
        rec.cursor += 1
        label = label_of(action, tab.shows.legal)
        return await self.step(tab, action, f"🎞 {label or action_text({'action': action})}")

    async def agent_step(self, tab: WebTab) -> bool:
        """One move chosen by the server's agent (autoplay with 🤖, or its answer to the
        visitor's move in a two-player game); its step is logged with a 🤖."""
        try:
            agent = self.agent
            move = await agent.choose(dict(tab.episode.observation), list(tab.shows.legal))
        except (ValueError, AgentError) as exc:
            self._say(tab, messages.agent_failed(str(exc)), "error")
            return False
        if move.index is not None:
            choice = tab.shows.legal[move.index]
            return await self.step(tab, choice.fields(), f"🤖 {choice.label}")
        payload = move.action or {}
        label = label_of(payload, tab.shows.legal)
        return await self.step(tab, payload, f"🤖 {label or action_text({'action': payload})}")
