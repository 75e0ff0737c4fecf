"""Any OpenEnv client as a ``gymnasium.Env``, for Gymnasium wrappers and Stable-Baselines3.

::

    from stable_baselines3 import PPO
    from grid_world_env import GridWorldEnv
    from openenv.integrations.gymnasium import GymEnv

    env = GymEnv.from_url("http://localhost:8000", GridWorldEnv, max_episode_steps=50)
    PPO("MlpPolicy", env).learn(20_000)

Spaces come from the server's ``/schema`` and the observation ``reset()`` returns (see
:mod:`openenv.integrations.gym_spaces` for the rules): grid world's ``MoveAction`` enum is
``Discrete(4)`` and its ``x``, ``y`` a ``Box`` of two numbers; Atari's screen is a ``uint8``
``Box`` of 210×160×3 and its action set ``Discrete(6)``; our Gymnasium adapter's spaces are
the ones it describes in its state (CartPole's ``Box(4)`` and ``Discrete(2)``).

The contract, as ``gymnasium.Env`` states it:

``reset(seed=None, options=None)``
    Starts an episode on the server. ``options`` are reset options (``env_id``,
    ``frame_encoding``, ...), sent over the ``reset_options`` given at construction. A seed
    reseeds :attr:`np_random` and goes to the server as it is; without one, the server gets a
    seed drawn from :attr:`np_random`, so ``reset(seed=s)`` makes every later episode
    reproducible too. Returns ``(observation, info)``.
``step(action)``
    Sends the action; returns ``(observation, reward, terminated, truncated, info)``. The
    server's ``done`` is ``terminated`` unless the observation's ``metadata`` (or a
    ``truncated`` field) reports a truncation; ``max_episode_steps`` truncates on this side.
    A missing reward counts as 0. Stepping a finished episode raises the server's error.
``info``
    The observation's ``info`` field when it has one (the Gymnasium adapter's), plus the
    fields named in ``info_fields``.
``render()``
    With ``render_mode="rgb_array"``, the latest frame of the observation (a frame field).
``close()``
    Closes the session; calling it again does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import httpx
import numpy as np
from pydantic import BaseModel

from openenv.client import EnvClient, GenericEnvClient, SyncEnvClient
from openenv.core.types import Action
from openenv.integrations import gym_spaces as gs

SCHEMA_TIMEOUT_S = 30.0
SEED_BOUND = 2**31  # seeds drawn for the server: what every env accepts


class GymEnv(gym.Env[Any, Any]):
    """A ``gymnasium.Env`` over one session of an OpenEnv server (see the module docstring).

    ``client`` is an :class:`EnvClient` (driven through its ``.sync()``) or a
    :class:`SyncEnvClient`; the wrapper owns it and closes it with :meth:`close`.
    ``observation`` names the observation field(s) that make the Gymnasium observation (one
    name: that field's space; several: a flat ``Box`` of numbers, or a ``Dict``); by default
    the fields the server describes, else the frames, else every numeric field.
    ``action_fields`` picks the action fields (default: the required ones). ``reset_options``
    go with every reset. ``schema`` (``{"action": ..., "observation": ...}`` JSON schemas) is used
    instead of fetching the server's ``/schema``; :attr:`schema` is the one in use.

    Construction resets the environment once, to read what the schema leaves open (the shape
    of a frame, the legal actions, the spaces a state describes).
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(
        self,
        client: EnvClient[Any, Any, Any] | SyncEnvClient[Any, Any, Any],
        *,
        observation: str | Sequence[str] | None = None,
        action_fields: Sequence[str] | None = None,
        reset_options: Mapping[str, Any] | None = None,
        info_fields: Sequence[str] = (),
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        schema: Mapping[str, Any] | None = None,
    ) -> None:
        self._client = client.sync() if isinstance(client, EnvClient) else client
        self._reset_options = dict(reset_options or {})
        self._info_fields = tuple(info_fields)
        self._max_steps = max_episode_steps
        self._steps = 0
        self._closed = False
        self._frame: np.ndarray | None = None
        try:
            self.schema = dict(schema) if schema is not None else fetch_schema(self._client)
            probe = _fields(self._client.reset(**self._reset_options).observation)
            self._derive_spaces(probe, observation, action_fields)
            self._choose_render_mode(probe, render_mode)
        except BaseException:
            self.close()  # the session the wrapper was given, not left open on the server
            raise

    @classmethod
    def from_url(
        cls,
        base_url: str,
        client_cls: type[EnvClient[Any, Any, Any]] = GenericEnvClient,
        *,
        client_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> GymEnv:
        """Connect ``client_cls`` (default: :class:`GenericEnvClient`) to ``base_url`` and wrap
        it; ``client_kwargs`` go to the client (``api_token``, ...), the rest to the wrapper."""
        client = client_cls(base_url, **dict(client_kwargs or {}))
        return cls(client, **kwargs)

    @property
    def client(self) -> SyncEnvClient[Any, Any, Any]:
        """The blocking client this env drives."""
        return self._client

    # -- the Gymnasium API ------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode: ``(observation, info)``; see the module docstring for seeding."""
        super().reset(seed=seed)
        server_seed = seed if seed is not None else int(self.np_random.integers(SEED_BOUND))
        result = self._client.reset(seed=server_seed, **{**self._reset_options, **(options or {})})
        self._steps = 0
        fields = _fields(result.observation)
        return self._observe(fields), self._info(fields)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """``(observation, reward, terminated, truncated, info)`` after ``action``."""
        result = self._client.step(self._act.encode(action))
        self._steps += 1
        fields = _fields(result.observation)
        terminated, truncated = _ending(fields, bool(result.done))
        if self._max_steps is not None and self._steps >= self._max_steps and not terminated:
            truncated = True
        reward = float(result.reward or 0.0)
        return self._observe(fields), reward, terminated, truncated, self._info(fields)

    def render(self) -> np.ndarray | None:
        """The latest frame (``render_mode="rgb_array"``), else ``None``."""
        if self.render_mode != "rgb_array" or self._frame is None:
            return None
        return self._frame.copy()

    def close(self) -> None:
        """Close the session; a second call does nothing."""
        if not self._closed:
            self._closed = True
            self._client.close()

    # -- internals --------------------------------------------------------------------------

    def _observe(self, fields: Mapping[str, Any]) -> Any:
        if self._screen is not None:
            self._frame = self._screen.decode(fields)
        return self._obs.decode(fields)

    def _info(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        info = fields.get("info")
        out = dict(info) if isinstance(info, dict) else {}
        for name in self._info_fields:
            out[name] = fields.get(name)
        return out

    def _derive_spaces(
        self,
        probe: Mapping[str, Any],
        observation: str | Sequence[str] | None,
        action_fields: Sequence[str] | None,
    ) -> None:
        fields = gs.fields_of(self.schema["observation"])
        described = self._described(fields, self.schema["action"])
        names = [observation] if isinstance(observation, str) else observation
        names = list(names) if names else gs.default_observation(fields, probe, described)
        self._obs = gs.observation_codec(names, fields, probe, described)
        self._act = gs.action_codec(self.schema["action"], probe, described, action_fields)
        model = _action_model(self._client)
        if model is not None:
            self._act.typed(model)
        self.observation_space = self._obs.space
        self.action_space = self._act.space

    def _choose_render_mode(self, probe: Mapping[str, Any], render_mode: str | None) -> None:
        """``rgb_array`` renders the first frame field of the observation, if it has one."""
        fields = gs.fields_of(self.schema["observation"])
        frame = next((n for n in fields if fields[n].frame and probe.get(n) is not None), None)
        self.metadata = {**self.metadata, "render_modes": ["rgb_array"] if frame else []}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} needs a frame in the observation; this env "
                f"offers {self.metadata['render_modes'] or 'no render mode'}"
            )
        self.render_mode = render_mode
        self._screen = gs.FrameField(frame, probe) if render_mode and frame else None

    def _described(
        self, fields: Mapping[str, gs.Field], action_schema: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The ``<field>_space`` descriptions the state gives, for fields that have one."""
        names = set(fields) | set(action_schema.get("properties") or {})
        state = self._client.state()
        values = state.model_dump() if isinstance(state, BaseModel) else dict(state or {})
        found = {n: values.get(n + gs.SPACE_SUFFIX) for n in names - gs.BOOKKEEPING}
        return {n: d for n, d in found.items() if isinstance(d, dict) and d.get("type")}


def fetch_schema(client: Any) -> dict[str, Any]:
    """The ``/schema`` of the server ``client`` talks to (with its token and headers)."""
    inner = _inner(client)
    headers = dict(getattr(inner, "_headers", None) or {})
    token = getattr(inner, "_token", None)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = httpx.get(
        http_url(inner.base_url) + "/schema",
        headers=headers,
        timeout=SCHEMA_TIMEOUT_S,
        follow_redirects=True,
    )
    response.raise_for_status()
    return response.json()


def http_url(base_url: str) -> str:
    """``ws(s)://host/prefix[/ws]`` or a bare ``host:port`` → ``http(s)://host/prefix``."""
    url = base_url.rstrip("/").removesuffix("/ws")
    for old, new in (("wss://", "https://"), ("ws://", "http://")):
        if url.startswith(old):
            return new + url[len(old) :]
    return url if url.startswith(("http://", "https://")) else "http://" + url


def _inner(client: Any) -> Any:
    """The EnvClient behind a blocking client (``.client``), or the client itself."""
    return client.client if isinstance(client, SyncEnvClient) else getattr(client, "client", client)


def _action_model(client: Any) -> type[Action] | None:
    """The action class a typed client is subscripted with (``None`` for generic clients)."""
    models = getattr(type(_inner(client)), "_models", None)
    found = models()[0] if callable(models) else None
    return found if isinstance(found, type) and issubclass(found, Action) else None


def _fields(observation: Any) -> Mapping[str, Any]:
    """An observation's fields: a typed model's attributes, or a generic client's dict."""
    if isinstance(observation, BaseModel):
        return observation.__dict__  # pydantic v2 keeps the field values there
    return observation


def _ending(fields: Mapping[str, Any], done: bool) -> tuple[bool, bool]:
    """``(terminated, truncated)`` from ``done`` and what the env reports about truncation."""
    metadata = fields.get("metadata") or {}
    flag = metadata.get("truncated", fields.get("truncated", False))
    truncated = done and bool(flag)
    terminated = done and (not truncated or bool(metadata.get("terminated", False)))
    return terminated, truncated
