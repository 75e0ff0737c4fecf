"""dm_control suite tasks: MuJoCo continuous control, with camera frames rendered on the CPU.

Reset options (each optional; defaults from environment variables):

``domain_name`` / ``task_name``
    A suite task (``cartpole``/``balance``, ``walker``/``walk``, ``cheetah``/``run``, ...; see
    ``dm_control.suite.BENCHMARKING``). Default ``$DMCONTROL_DOMAIN``/``$DMCONTROL_TASK``, else
    cartpole/balance.
``render``
    Put a camera frame (``pixels``) in every observation. Off by default: software rendering
    costs tens of milliseconds per frame. The playground renders on its own either way.
``camera_id``, ``render_height``, ``render_width``
    The camera (-1: the free camera) and frame size (``$DMCONTROL_RENDER_HEIGHT``/``_WIDTH``,
    default 240×320; each side 1 to 640 pixels).
``max_episode_steps``
    End the episode (``truncated``) after this many steps (1 to 100000); the task's own limit
    (usually 1000 steps) applies otherwise.
``frame_encoding``
    How ``pixels`` travel (:mod:`openenv.core.frames`).

Actions: ``values``, one number per action dimension within the spec's bounds; a wrong length or
an out-of-bounds value is refused and the simulation is unchanged. The playground has one slider
per actuator, named after it, and buttons: for one-dimensional actions, full left / zero / full
right on the arrow keys; otherwise a zero action.

Reward: the task's reward in [0, 1] per step. Rendering uses ``MUJOCO_GL`` (``egl`` unless set;
``osmesa`` needs Debian's ``libosmesa6``). An OpenGL context belongs to the thread that made it
current, and a server may run one session's calls on different threads, so every call that
touches the context (drawing, freeing) runs on one thread of the environment's own.
"""

from __future__ import annotations

import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any

os.environ.setdefault("MUJOCO_GL", "egl")

import dm_env
import numpy as np
from dm_control import suite
from pydantic import Field

from dm_control_env.models import (
    DMControlAction,
    DMControlObservation,
    DMControlState,
)
from openenv.core import ActionChoice, ActionSliders, Environment, Frame, InvalidAction, Slider
from openenv.core.frames import Encoding, encode_frame, resolve_encoding

DEFAULTS = {
    "domain_name": ("DMCONTROL_DOMAIN", "cartpole"),
    "task_name": ("DMCONTROL_TASK", "balance"),
    "render_height": ("DMCONTROL_RENDER_HEIGHT", "240"),
    "render_width": ("DMCONTROL_RENDER_WIDTH", "320"),
}
MAX_SIDE = 640  # pixels of a rendered frame's side: what one step may cost to draw and send
MAX_EPISODE_STEPS = 100_000
Side = Annotated[int, Field(ge=1, le=MAX_SIDE, description="leave it out for the default")]


def default(name: str) -> str:
    var, fallback = DEFAULTS[name]
    return os.environ.get(var, "").strip() or fallback


# The reset options' types: any string (checked by load_task), with the suite's domains and
# its benchmarking tasks as examples, which the playground offers in drop-downs.
DomainName = Annotated[
    str,
    Field(
        description="A dm_control.suite domain; default $DMCONTROL_DOMAIN, else cartpole",
        examples=sorted(suite.TASKS_BY_DOMAIN),
    ),
]
TaskName = Annotated[
    str,
    Field(
        description="A task of that domain; default $DMCONTROL_TASK, else balance",
        examples=sorted({task for _, task in suite.BENCHMARKING}),
    ),
]


def load_task(domain_name: str, task_name: str) -> Any:
    """``suite.load`` with errors that list what exists."""
    tasks = suite.TASKS_BY_DOMAIN.get(domain_name)
    if tasks is None:
        raise InvalidAction(
            f"unknown dm_control domain {domain_name!r}; use one of "
            f"{', '.join(sorted(suite.TASKS_BY_DOMAIN))}"
        )
    if task_name not in tasks:
        raise InvalidAction(
            f"domain {domain_name!r} has no task {task_name!r}; use one of {', '.join(tasks)}"
        )
    return suite.load(domain_name, task_name)


def spec_json(spec: Any) -> dict[str, Any]:
    """A JSON description of a dm_env array spec."""
    info: dict[str, Any] = {"shape": list(spec.shape), "dtype": str(spec.dtype)}
    if hasattr(spec, "minimum"):
        info["minimum"] = np.broadcast_to(spec.minimum, spec.shape).astype(float).tolist()
        info["maximum"] = np.broadcast_to(spec.maximum, spec.shape).astype(float).tolist()
    return info


class DMControlEnvironment(Environment[DMControlAction, DMControlObservation, DMControlState]):
    """One suite task per session; see the module docstring."""

    how_to_play = (
        "Balance the pole: hold ← / → to push the cart (or drag the slider and press "
        "Step). Reward grows while the pole stays up."
    )

    def __init__(self) -> None:
        self._env: Any = None
        self._task: tuple[str, str] | None = None
        self._camera = (0, 240, 320)
        self._limit: int | None = None
        self._render = False
        self._encoding = "zlib"
        self._frame: np.ndarray | None = None
        self._state = DMControlState()
        self._gl: ThreadPoolExecutor | None = None  # the thread of the GL context (see above)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        domain_name: DomainName | None = None,
        task_name: TaskName | None = None,
        render: bool = False,
        camera_id: Annotated[int, Field(ge=-1, description="-1: the free camera")] = 0,
        render_height: Side | None = None,
        render_width: Side | None = None,
        max_episode_steps: Annotated[int, Field(ge=1, le=MAX_EPISODE_STEPS)] | None = None,
        frame_encoding: Encoding | None = None,
    ) -> DMControlObservation:
        task = (domain_name or default("domain_name"), task_name or default("task_name"))
        height, width = _side("render_height", render_height), _side("render_width", render_width)
        self._limit = int(max_episode_steps) if max_episode_steps is not None else None
        self._encoding = resolve_encoding(frame_encoding)
        if self._env is None or task != self._task:
            env = load_task(*task)
            self._drop_env()
            self._env, self._task = env, task
        self._camera = (int(camera_id), height, width)
        self._render = bool(render)
        # The task draws its initial state from its own RandomState: reseed it from self.rng.
        self._env.task._random = np.random.RandomState(self.rng.randrange(2**31))
        time_step = self._env.reset()
        self._state = self._new_state(episode_id)
        return self._observe(time_step)

    def step(self, action: DMControlAction) -> DMControlObservation:
        values = self._check(action.values)
        time_step = self._env.step(values)
        self._state.step_count += 1
        return self._observe(time_step)

    @property
    def state(self) -> DMControlState:
        return self._state

    def render(self) -> Frame | None:
        if self._env is None:
            return None
        if self._frame is None:  # not drawn for the observation: draw it now, once
            self._frame = self._pixels()
        return Frame(self._frame)

    def legal_actions(self) -> list[ActionChoice]:
        if self._env is None:
            return []
        spec = self._env.action_spec()
        size = int(np.prod(spec.shape))
        if size != 1:
            return [ActionChoice("Zero action", {"values": [0.0] * size}, key="0")]
        low, high = float(np.min(spec.minimum)), float(np.max(spec.maximum))
        return [
            ActionChoice(f"← {low:g}", {"values": [low]}, key="ArrowLeft"),
            ActionChoice("0", {"values": [0.0]}, key="ArrowDown"),
            ActionChoice(f"{high:g} →", {"values": [high]}, key="ArrowRight"),
        ]

    def action_sliders(self) -> ActionSliders | None:
        """One slider per actuator, named after it and sized from the action spec."""
        if self._env is None:
            return None
        spec = self._env.action_spec()
        low = np.broadcast_to(spec.minimum, spec.shape).ravel()
        high = np.broadcast_to(spec.maximum, spec.shape).ravel()
        names = list(self._env.physics.named.data.ctrl.axes.row.names)
        if len(names) != len(low):
            names = [f"values[{i}]" for i in range(len(low))]
        return ActionSliders(
            "values", tuple(Slider(n, lo, hi) for n, lo, hi in zip(names, low, high, strict=True))
        )

    def close(self) -> None:
        self._drop_env()
        if self._gl is not None:
            self._gl.shutdown()
            self._gl = None

    # -- internals -------------------------------------------------------------------------

    def _new_state(self, episode_id: str | None) -> DMControlState:
        env = self._env
        return DMControlState(
            episode_id=episode_id or str(uuid.uuid4()),
            domain_name=self._task[0],
            task_name=self._task[1],
            action_spec=spec_json(env.action_spec()),
            observation_spec={k: spec_json(s) for k, s in env.observation_spec().items()},
            physics_timestep=float(env.physics.timestep()),
            control_timestep=float(env.control_timestep()),
            render=self._render,
            frame_encoding=self._encoding,
        )

    def _check(self, values: list[float]) -> np.ndarray:
        spec = self._env.action_spec()
        array = np.asarray(values, dtype=np.float64)
        if array.size != int(np.prod(spec.shape)):
            raise InvalidAction(
                f"{'/'.join(self._task)} needs {int(np.prod(spec.shape))} action values, "
                f"got {array.size}"
            )
        array = array.reshape(spec.shape)
        low, high = (
            np.broadcast_to(spec.minimum, spec.shape),
            np.broadcast_to(spec.maximum, spec.shape),
        )
        if not np.all(np.isfinite(array)) or np.any(array < low) or np.any(array > high):
            raise InvalidAction(
                f"action values {array.tolist()} are outside the bounds "
                f"[{low.tolist()}, {high.tolist()}]"
            )
        return array

    def _pixels(self) -> np.ndarray:
        camera_id, height, width = self._camera
        return self._on_gl_thread(
            self._env.physics.render, height=height, width=width, camera_id=camera_id
        )

    def _on_gl_thread(self, fn: Any, /, **kwargs: Any) -> Any:
        if self._gl is None:
            self._gl = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dm_control-gl")
        return self._gl.submit(fn, **kwargs).result()

    def _drop_env(self) -> None:
        env, self._env = self._env, None
        if env is None:
            return
        if self._gl is not None:  # it drew: free its GL context where that is current
            self._on_gl_thread(env.physics.free)  # (left to the garbage collector otherwise)
        env.close()

    def _observe(self, time_step: dm_env.TimeStep) -> DMControlObservation:
        observations = {
            name: np.asarray(value, dtype=float).ravel().tolist()
            for name, value in time_step.observation.items()
        }
        terminated = time_step.last() and time_step.discount == 0
        truncated = (time_step.last() and not terminated) or (
            self._limit is not None and self._state.step_count >= self._limit
        )
        pixels = self._frame = self._pixels() if self._render else None
        return DMControlObservation(
            observations=observations,
            pixels=encode_frame(pixels, self._encoding) if pixels is not None else None,
            pixels_shape=list(pixels.shape) if pixels is not None else None,
            reward=float(time_step.reward) if time_step.reward is not None else 0.0,
            done=bool(terminated or truncated),
            metadata={"terminated": bool(terminated), "truncated": bool(truncated)},
        )


def _side(name: str, value: int | None) -> int:
    """A frame side: the reset option (its annotation bounds it), else the environment's."""
    if value is not None:
        return int(value)
    return _positive(f"${DEFAULTS[name][0]}", default(name), MAX_SIDE)


def _positive(name: str, value: Any, high: int | None = None) -> int:
    if isinstance(value, bool):
        raise InvalidAction(f"{name} must be a positive integer, got {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidAction(f"{name} must be a positive integer, got {value!r}") from None
    if number < 1:
        raise InvalidAction(f"{name} must be a positive integer, got {value!r}")
    if high is not None and number > high:
        raise InvalidAction(f"{name} must be at most {high}, got {number}")
    return number
