"""Any registered Gymnasium environment, served by one adapter.

Reset options (each optional):

``env_id``
    The Gymnasium id (``CartPole-v1``, ``FrozenLake-v1``, ``MiniGrid-Empty-5x5-v0`` when
    ``minigrid`` is installed, ...). Default: ``$GYM_ENV_ID``, else ``CartPole-v1``.
``env_kwargs``
    Keyword arguments for ``gymnasium.make`` (e.g. ``{"is_slippery": false}``).
``render_mode``
    ``rgb_array`` (default when the environment has it), ``ansi`` (text) or ``none``.
``max_episode_steps``
    A step limit (default, or ``0``: the one registered with the id).
``render``
    Put the ``rgb_array`` frame in every observation (``frame``). Off by default: drawing and
    encoding a 600×400 frame costs milliseconds per step. The playground draws either way.
``frame_encoding``
    How ``frame`` travels (:mod:`openenv.core.frames`).

Actions: ``{"action": ...}`` in the JSON form of the action space (``Discrete``: an int;
``Box``: a number or list of numbers within the bounds; ``MultiDiscrete``/``MultiBinary``: a
list of ints). An action outside the space is refused and the environment is unchanged.
Discrete actions have labelled buttons (CartPole, MountainCar, Acrobot, FrozenLake, Taxi,
CliffWalking, Blackjack, MiniGrid; ``action k`` otherwise); a ``Box`` bounded on both sides has
one slider per number (named for Pendulum, MountainCarContinuous, LunarLander, ...).

Observation: ``observation`` and ``info`` in JSON form (uint8 images of 1024+ values are sent
as frames), ``frame`` (the ``rgb_array`` render, with ``render=True``) or ``text`` (the ``ansi``
render).

Reward: the environment's reward. ``done`` is ``terminated or truncated``; the two flags are in
``metadata``. Seeding: ``reset(seed=s)`` seeds the Gymnasium environment from ``self.rng``.
"""

from __future__ import annotations

import functools
import os
import re
import uuid
from typing import Annotated, Any, Literal

# Frames are drawn off-screen: keep pygame (used by the classic-control renderers) headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import load_env_creator
from pydantic import Field

from gymnasium_env.models import GymnasiumAction, GymnasiumObservation, GymnasiumState
from gymnasium_env.server import spaces as sp
from gymnasium_env.server.labels import box_labels, discrete_labels
from openenv.core import ActionChoice, ActionSliders, Environment, Frame, InvalidAction, Text
from openenv.core.bounds import check_settings
from openenv.core.frames import Encoding, encode_frame, resolve_encoding

DEFAULT_ENV_ID = "CartPole-v1"
ENV_ID_VAR = "GYM_ENV_ID"
RENDER_MODES = ("rgb_array", "ansi", "none")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _register_optional_packages() -> None:
    """Register the ids of optional packages (MiniGrid) when they are installed."""
    try:
        import minigrid  # noqa: F401  (importing registers MiniGrid-* ids)
    except ImportError:
        pass


_register_optional_packages()


def default_env_id() -> str:
    return os.environ.get(ENV_ID_VAR, "").strip() or DEFAULT_ENV_ID


def _importable(env_id: str) -> bool:
    """Whether ``env_id``'s code imports here (Box2D ids need the ``box2d`` package)."""
    entry = gym.spec(env_id).entry_point
    try:
        load_env_creator(entry) if isinstance(entry, str) else entry
    except (ImportError, gym.error.DependencyNotInstalled):
        return False
    return True


# Ids the playground offers in the env_id drop-down, those that work here (any other
# registered id works too): the ones with labelled buttons or named sliders, then MiniGrid's.
SUGGESTED_IDS = (
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Acrobot-v1",
    "Pendulum-v1",
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    "Blackjack-v1",
    "LunarLander-v3",
    "BipedalWalker-v3",
    "MiniGrid-Empty-5x5-v0",
    "MiniGrid-Empty-8x8-v0",
    "MiniGrid-DoorKey-5x5-v0",
    "MiniGrid-FourRooms-v0",
    "MiniGrid-LavaCrossingS9N1-v0",
)
EnvId = Annotated[
    str,
    Field(
        description=f"A registered Gymnasium id; default ${ENV_ID_VAR}, else {DEFAULT_ENV_ID}",
        examples=[i for i in SUGGESTED_IDS if i in gym.registry and _importable(i)],
    ),
]


def make(env_id: str, render_mode: str | None, max_steps: int | None, kwargs: dict) -> gym.Env:
    """``gymnasium.make`` with errors that say how to fix them."""
    extra = {"max_episode_steps": max_steps} if max_steps is not None else {}
    try:
        return gym.make(env_id, render_mode=render_mode, **extra, **kwargs)
    except gym.error.Error as exc:
        raise InvalidAction(f"cannot make {env_id!r}: {exc}") from None
    except TypeError as exc:
        raise InvalidAction(f"bad env_kwargs for {env_id!r}: {exc}") from None


class GymnasiumEnvironment(Environment[GymnasiumAction, GymnasiumObservation, GymnasiumState]):
    """One Gymnasium environment per session; see the module docstring."""

    how_to_play = (
        "CartPole: press ▶ Real time and hold ← / → to push the cart and keep the pole "
        "upright as long as you can."
    )

    def __init__(self) -> None:
        self._env: gym.Env | None = None
        self._key: tuple | None = None
        self._encoding = "zlib"
        self._render = False
        self._frame: np.ndarray | None = None
        self._state = GymnasiumState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env_id: EnvId | None = None,
        env_kwargs: dict[str, Any] | None = None,
        render_mode: Literal["rgb_array", "ansi", "none"] | None = None,
        max_episode_steps: int | None = None,
        render: bool = False,
        frame_encoding: Encoding | None = None,
    ) -> GymnasiumObservation:
        env_id = env_id or default_env_id()
        self._encoding = resolve_encoding(frame_encoding)
        self._render = bool(render)
        check_settings("env_kwargs", env_kwargs or {})
        self._open(env_id, render_mode, max_episode_steps, dict(env_kwargs or {}))
        obs, info = self._env.reset(seed=self.rng.randrange(2**31))
        env = self._env
        self._state = GymnasiumState(
            episode_id=episode_id or str(uuid.uuid4()),
            env_id=env_id,
            render_mode=env.render_mode,
            max_episode_steps=env.spec.max_episode_steps if env.spec else None,
            action_space=sp.describe(env.action_space),
            observation_space=sp.describe(env.observation_space),
            render=self._render,
            frame_encoding=self._encoding,
        )
        return self._observe(obs, info, 0.0, False, False)

    def step(self, action: GymnasiumAction) -> GymnasiumObservation:
        value = sp.from_json(self._env.action_space, action.action)
        obs, reward, terminated, truncated, info = self._env.step(value)
        self._state.step_count += 1
        return self._observe(obs, info, float(reward), bool(terminated), bool(truncated))

    @property
    def state(self) -> GymnasiumState:
        return self._state

    def render(self) -> Frame | Text | None:
        if self._env is None:
            return None
        if self._frame is None and self._env.render_mode == "rgb_array":
            self._frame = self._env.render()
        if self._frame is not None:
            return Frame(self._frame)
        if self._env.render_mode == "ansi":
            return Text(_strip_ansi(self._env.render()))
        return None

    def legal_actions(self) -> list[ActionChoice]:
        if self._env is None:
            return []
        actions = sp.enumerate_actions(self._env.action_space)
        if actions is None:
            return []
        labels = discrete_labels(self._env.unwrapped, actions)
        return [
            ActionChoice(label, {"action": value}, key=key)
            for value, (label, key) in zip(actions, labels, strict=True)
        ]

    def action_sliders(self) -> ActionSliders | None:
        if self._env is None:
            return None
        space = self._env.action_space
        shape = getattr(space, "shape", None) or ()
        return sp.sliders(space, box_labels(self._env.unwrapped, tuple(shape)))

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None

    # -- internals -------------------------------------------------------------------------

    def _open(self, env_id: str, render_mode: str | None, max_steps: int | None, kwargs: dict):
        max_steps = None if max_steps == 0 and not isinstance(max_steps, bool) else max_steps
        if max_steps is not None and (isinstance(max_steps, bool) or int(max_steps) < 1):
            raise InvalidAction(f"max_episode_steps must be a positive integer, got {max_steps!r}")
        mode = self._render_mode(env_id, render_mode)
        key = (env_id, mode, max_steps, repr(sorted(kwargs.items())))
        if self._env is not None and key == self._key:
            return
        env = make(env_id, mode, max_steps, kwargs)
        self.close()
        self._env, self._key = env, key
        fps = env.metadata.get("render_fps")  # the game's own speed, for autoplay and videos
        self.render_fps = float(fps) if isinstance(fps, int | float) and 0 < fps <= 240 else 10.0

    def _render_mode(self, env_id: str, requested: str | None) -> str | None:
        modes = render_modes(env_id)
        if requested is not None:
            if requested not in RENDER_MODES:
                raise InvalidAction(f"render_mode must be one of {', '.join(RENDER_MODES)}")
            if requested != "none" and requested not in modes:
                raise InvalidAction(f"{env_id} cannot render {requested!r}; it offers {modes}")
            return None if requested == "none" else requested
        return next((m for m in ("rgb_array", "ansi") if m in modes), None)

    def _observe(self, obs, info, reward, terminated, truncated) -> GymnasiumObservation:
        self._frame = None
        frame, text = self._draw()
        return GymnasiumObservation(
            env_id=self._state.env_id,
            observation=sp.to_json(obs, self._encoding),
            info=sp.to_json(info, self._encoding),
            frame=frame,
            frame_shape=list(self._frame.shape) if frame is not None else None,
            text=text,
            reward=reward,
            done=terminated or truncated,
            metadata={"terminated": terminated, "truncated": truncated},
        )

    def _draw(self) -> tuple[Any, str | None]:
        mode = self._env.render_mode
        if mode == "ansi":
            return None, _strip_ansi(self._env.render())
        if mode != "rgb_array" or not self._render:
            return None, None
        self._frame = np.asarray(self._env.render(), dtype=np.uint8)
        return encode_frame(self._frame, self._encoding), None


@functools.cache
def render_modes(env_id: str) -> tuple[str, ...]:
    """The render modes ``env_id`` declares (read from its class, without making it)."""
    try:
        spec = gym.spec(env_id)
    except gym.error.Error as exc:
        raise InvalidAction(f"cannot make {env_id!r}: {exc}") from None
    creator = spec.entry_point
    if isinstance(creator, str):
        creator = load_env_creator(creator)
    metadata = getattr(creator, "metadata", None)
    if metadata is None:
        env = gym.make(env_id)
        metadata = env.metadata
        env.close()
    return tuple(metadata.get("render_modes", ()))


def _strip_ansi(text: Any) -> str:
    return _ANSI.sub("", str(text or ""))
