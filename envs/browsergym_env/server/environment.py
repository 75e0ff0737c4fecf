"""BrowserGym's MiniWoB++ tasks in a real Chromium (Debian's), one browser context per session.

Configuration: ``BROWSERGYM_BENCHMARK`` (only ``miniwob`` here: WebArena, VisualWebArena and
WorkArena need backend sites this server does not have, and are refused with that reason),
``BROWSERGYM_TASK_NAME`` (the default task, else ``click-test``), ``BROWSERGYM_HEADLESS``
(default true), ``BROWSERGYM_MAX_STEPS`` (default step limit, else 50).

Reset options: ``task_name`` (one of the MiniWoB tasks that ship in the ``miniwob`` package),
``max_steps`` (1 to 1000), ``seed`` (the task's own randomness: the same seed, the same goal).

Action: ``BrowserGymAction(action_str=...)``, BrowserGym's action language (see
:mod:`browsergym_env.server.actions` for the set). An action that does not parse, names an
unknown function, or navigates outside the task pages is not run: the observation comes back
unchanged with ``last_action_error=True`` and the reason in ``error``, and it counts as a step.
An action BrowserGym runs and that fails (no element with that bid, a timeout) is reported the
same way, by BrowserGym.

Reward: the task's (1.0 when solved, 0.0 otherwise, as BrowserGym's MiniWoB tasks score it).
The episode ends when the task does (solved or failed), or after ``max_steps`` steps
(``metadata["truncated"]``). A crashed page ends the episode with the reason in ``error``;
the next reset opens a new context.

Sessions: see :mod:`browsergym_env.server.browser` (one Chromium per process, one thread,
Playwright connection and context per session; the async variants await that thread without
holding a server thread).
"""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from typing import Annotated, Any, Literal

from pydantic import Field

from browsergym_env.models import BrowserGymAction, BrowserGymObservation, BrowserGymState
from browsergym_env.server import observe
from browsergym_env.server.actions import action_set, check_action
from browsergym_env.server.banner import with_banner
from browsergym_env.server.browser import (
    PAGES,
    SessionThread,
    install_shims,
    lease_thread,
    release_thread,
)
from browsergym_env.server.pages import MINIWOB_URL, task_names
from openenv.core import ActionChoice, Environment, Frame, InvalidAction
from openenv.core.frames import encode_frame, resolve_encoding

DEFAULT_TASK = "click-test"
DEFAULT_MAX_STEPS = 50
MAX_STEPS = 1000
OBS_DELAY_S = 0.1  # BrowserGym waits this long after an action for the page's events
CALL_S = 45.0  # one reset or step on the session thread, at most (the server allows 60 s)
OTHER_BENCHMARKS = ("webarena", "visualwebarena", "workarena", "assistantbench", "weblinx")
TASKS = task_names()
TaskName = Literal[TASKS]  # type: ignore[valid-type]


class BrowserGymEnvironment(Environment[BrowserGymAction, BrowserGymObservation, BrowserGymState]):
    """One MiniWoB task at a time in this session's browser context (module docstring)."""

    how_to_play = (
        "Read the task at the top of the page, then click the live page and type into it "
        "as you would in a browser; each click or key is one step."
    )

    CALL_TIMEOUT_S = 60.0

    def __init__(self) -> None:
        install_shims()
        self._pages = PAGES
        self._thread: SessionThread | None = None
        self._bg: Any = None  # BrowserGym's BrowserEnv, used on the session thread only
        self._task = ""
        self._last: BrowserGymObservation | None = None
        self._pixels: Any = None
        self._choices: list[ActionChoice] = []
        self._encoding = resolve_encoding(os.environ.get("OPENENV_FRAME_ENCODING") or "png")
        self._state = BrowserGymState()

    # -- the contract -------------------------------------------------------------------------

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_name: TaskName | None = None,
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] | None = None,
    ) -> BrowserGymObservation:
        job = self._reset_job(task_name, max_steps, episode_id)
        return self._session().run(job, CALL_S)

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_name: TaskName | None = None,
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] | None = None,
    ) -> BrowserGymObservation:
        job = self._reset_job(task_name, max_steps, episode_id)
        return await self._await(job)

    def step(self, action: BrowserGymAction) -> BrowserGymObservation:
        return self._session().run(functools.partial(self._step_job, action), CALL_S)

    async def step_async(self, action: BrowserGymAction) -> BrowserGymObservation:
        return await self._await(functools.partial(self._step_job, action))

    @property
    def state(self) -> BrowserGymState:
        return self._state

    def render(self) -> Frame | None:
        if self._pixels is None:
            return None
        error = self._last.error if self._last is not None else ""
        return Frame(
            with_banner(self._pixels, self._state.goal, error),
            click={"action_str": "mouse_click({x}, {y})"},
            keys={"action_str": "keyboard_press({key})"},
        )

    def legal_actions(self) -> list[ActionChoice]:
        return list(self._choices)

    def close(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            release_thread(thread, self._close_browser_env)

    # -- on the session thread ------------------------------------------------------------------

    def _reset_job(self, task_name: str | None, max_steps: int | None, episode_id: str | None):
        task, limit = resolve_options(task_name, max_steps)
        seed = self.seed

        def job() -> BrowserGymObservation:
            if self._bg is None or task != self._task:
                self._close_browser_env()
                self._bg, self._task = make_browser_env(task), task
            try:
                obs, info = self._bg.reset(seed=seed)
            except Exception:  # a dead page or browser: once more from a fresh context
                self._close_browser_env()
                self._session().shared.reconnect(force=True)
                self._bg = make_browser_env(task)
                obs, info = self._bg.reset(seed=seed)
            self._state = BrowserGymState(
                episode_id=episode_id or str(uuid.uuid4()), task_name=task, max_steps=limit
            )
            return self._observe(obs, info, 0.0, done=False)

        return job

    def _step_job(self, action: BrowserGymAction) -> BrowserGymObservation:
        self._state.step_count += 1
        tabs = len(self._bg.context.pages)
        refusal = check_action(action.action_str, self._pages, tabs)
        if refusal is not None:
            return self._refused(refusal)
        try:
            obs, reward, terminated, truncated, info = self._bg.step(action.action_str)
        except Exception as exc:  # Playwright: the page crashed or closed under the action
            return self._crashed(exc)
        return self._observe(obs, info, float(reward), done=bool(terminated or truncated))

    def _observe(
        self, obs: dict[str, Any], info: dict[str, Any], reward: float, *, done: bool
    ) -> BrowserGymObservation:
        axtree, html = observe.texts(obs)
        pixels = obs["screenshot"]
        truncated = not done and self._state.step_count >= self._state.max_steps
        error = str(obs.get("last_action_error") or "")
        self._state.goal, self._state.current_url = obs["goal"], obs["url"]
        self._state.cum_reward += reward
        self._pixels, self._choices = pixels, observe.clickable_choices(obs)
        self._last = last = BrowserGymObservation(
            text=axtree,
            goal=obs["goal"],
            axtree_txt=axtree,
            pruned_html=html,
            url=obs["url"],
            screenshot=encode_frame(pixels, self._encoding),
            screenshot_shape=list(pixels.shape),
            last_action_error=bool(error),
            error=observe.bounded(error, observe.MAX_META_CHARS),
            reward=reward,
            done=done or truncated,
            metadata={
                "browsergym_obs": observe.meta_obs(obs),
                "browsergym_info": observe.meta_info(info),
                "truncated": truncated,
            },
        )
        return last

    def _refused(self, reason: str) -> BrowserGymObservation:
        last = self._last
        truncated = self._state.step_count >= self._state.max_steps
        metadata = {**last.metadata, "truncated": truncated, "refused": True}
        self._last = last.model_copy(
            update={
                "last_action_error": True,
                "error": reason,
                "reward": 0.0,
                "done": truncated,
                "metadata": metadata,
            }
        )
        return self._last

    def _crashed(self, exc: Exception) -> BrowserGymObservation:
        self._close_browser_env()
        reason = f"the page crashed or closed ({type(exc).__name__}: {str(exc)[:300]}); reset"
        self._last = self._last.model_copy(
            update={"last_action_error": True, "error": reason, "reward": 0.0, "done": True}
        )
        return self._last

    def _close_browser_env(self) -> None:
        bg, self._bg = self._bg, None
        if bg is not None:
            try:
                bg.close()
            except Exception:  # already gone with its browser: nothing left to close
                pass

    # -- plumbing -------------------------------------------------------------------------------

    def _session(self) -> SessionThread:
        if self._thread is None:
            self._thread = lease_thread()
        return self._thread

    async def _await(self, job: Any) -> BrowserGymObservation:
        future = self._session().submit(job)
        return await asyncio.wait_for(asyncio.wrap_future(future), CALL_S)


def resolve_options(task_name: str | None, max_steps: int | None) -> tuple[str, int]:
    """The episode's task and step limit: the reset options, else the environment variables."""
    benchmark = os.environ.get("BROWSERGYM_BENCHMARK", "miniwob").strip().lower() or "miniwob"
    if benchmark != "miniwob":
        why = (
            "it needs its backend web sites, which this server does not run"
            if benchmark in OTHER_BENCHMARKS
            else "it is not a BrowserGym benchmark"
        )
        raise InvalidAction(
            f"BROWSERGYM_BENCHMARK={benchmark!r} is not available here ({why}); this server "
            "runs the MiniWoB++ tasks: set BROWSERGYM_BENCHMARK=miniwob or leave it unset"
        )
    task = task_name or os.environ.get("BROWSERGYM_TASK_NAME", "").strip() or DEFAULT_TASK
    task = task.removeprefix("miniwob.")
    if task not in TASKS:
        close = [t for t in TASKS if t.startswith(task[:5])] or list(TASKS[:8])
        raise InvalidAction(
            f"unknown MiniWoB task {task!r}; try {', '.join(close)} ({len(TASKS)} tasks)"
        )
    limit = max_steps or int(os.environ.get("BROWSERGYM_MAX_STEPS") or DEFAULT_MAX_STEPS)
    if not 1 <= limit <= MAX_STEPS:
        raise InvalidAction(f"BROWSERGYM_MAX_STEPS={limit}: use 1 to {MAX_STEPS}")
    return task, limit


@functools.cache
def _task_classes() -> dict[str, Any]:
    from browsergym.miniwob import ALL_MINIWOB_TASKS

    return {task.subdomain: task for task in ALL_MINIWOB_TASKS}


def make_browser_env(task: str) -> Any:
    """BrowserGym's environment for ``task``, on the pages this server serves."""
    from browsergym.core.env import BrowserEnv

    return BrowserEnv(
        task_entrypoint=_task_classes()[task],
        task_kwargs={"base_url": MINIWOB_URL},
        headless=True,
        action_mapping=action_set().to_python_code,
        pre_observation_delay=OBS_DELAY_S,
    )
