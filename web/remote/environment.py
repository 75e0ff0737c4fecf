"""A remote server's session, as an environment of this process's playground.

:func:`remote_environment` makes an :class:`~openenv.core.Environment` class for one remote:
each instance (one per browser tab, made by the session manager like any environment) holds
its own session on the remote's ``/ws`` through :class:`~openenv.client.GenericEnvClient`, so
visitors stay apart even when the remote's own page shares one episode. ``reset`` and ``step``
are forwarded; what the stage draws comes from the remote itself when it is built with this
framework (the ``view`` message), else from :mod:`openenv.web.remote.rules` reading the
observation. The playground around it (stage, buttons, forms, rewards, exports) is the one every
local environment gets: nothing here draws.

A remote that is down, slow or sends something unexpected raises an
:class:`~openenv.core.errors.OpenEnvError` saying so; the tab shows it and keeps its episode.
"""

from __future__ import annotations

from typing import Any, ClassVar

from openenv.client import GenericEnvClient
from openenv.core.environment import Environment
from openenv.core.errors import (
    CallTimeout,
    ConnectFailed,
    ConnectionLost,
    ExecutionError,
    OpenEnvError,
    ProtocolMismatch,
    ResetNeeded,
    SessionLost,
    Unauthorized,
)
from openenv.core.mcp import Tool
from openenv.core.view_wire import Drawing
from openenv.core.views import ActionChoice, ActionSliders, View
from openenv.web.remote.models import RemoteAction, RemoteObservation, RemoteState
from openenv.web.remote.probe import TOKEN_ENV_VAR, Description
from openenv.web.remote.rules import Rules

MAX_REMOTE_MESSAGE = 32 * 1024 * 1024  # one answer of the remote, per tab: a frame fits


class RemoteEnvironment(Environment[RemoteAction, RemoteObservation, RemoteState]):
    """One session on a remote server (subclasses made by :func:`remote_environment`)."""

    description: ClassVar[Description]
    rules: ClassVar[Rules]
    remote_tools: ClassVar[list[Tool]] = []

    def __init__(self) -> None:
        remote = self.description.remote
        self._client = GenericEnvClient(
            remote.url,
            api_token=remote.token or "",  # "": never this server's own $OPENENV_API_TOKEN
            message_timeout_s=remote.timeout_s,
            max_message_size=MAX_REMOTE_MESSAGE,
        )
        self._drawing: Drawing = (None, [], None)
        self._state: dict[str, Any] = {}

    @classmethod
    def reset_schema(cls) -> dict[str, Any]:
        """Ours: the remote env's reset options. Others: a box of free-form options (the seed
        has its own field), each sent as it is; the remote says which it takes."""
        schema = cls.description.reset_schema
        if schema is not None:
            return schema
        return {
            "type": "object",
            "properties": {
                "options": {
                    "type": "object",
                    "description": "more reset options as a JSON object, sent as they are "
                    "(the remote server says which it takes)",
                    "x-openenv-spread": True,
                }
            },
            "additionalProperties": True,
        }

    # -- the contract, forwarded -----------------------------------------------------------

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, **options: Any
    ) -> RemoteObservation:
        if seed is not None:
            options["seed"] = seed
        if episode_id is not None:
            options["episode_id"] = episode_id
        result = await self._forward(self._client.reset(**options), "reset")
        return await self._observed(result)

    async def step_async(self, action: RemoteAction) -> RemoteObservation:
        payload = action.model_dump(mode="json", exclude_unset=True)
        if payload.get("metadata") == {}:
            payload.pop("metadata")
        result = await self._forward(self._client.step(payload), "step")
        return await self._observed(result)

    async def state_async(self) -> RemoteState:
        state = await self._forward(self._client.state(), "state")
        self._state = state if isinstance(state, dict) else {}
        return RemoteState.model_validate(self._state)

    @property
    def state(self) -> RemoteState:
        """The state last read from the remote (the server reads it with ``state_async``)."""
        return RemoteState.model_validate(self._state)

    async def close_async(self) -> None:
        await self.close_connection()

    async def close_connection(self) -> None:
        """Close the session on the remote (the next reset opens a new one)."""
        try:
            await self._client.close()
        except (OSError, OpenEnvError):  # the remote is gone already: nothing left to close
            pass

    # -- the playground hooks: what the last answer said -----------------------------------

    def render(self) -> View | None:
        return self._drawing[0]

    def legal_actions(self) -> list[ActionChoice]:
        return list(self._drawing[1])

    def action_sliders(self) -> ActionSliders | None:
        return self._drawing[2]

    # -- helpers ---------------------------------------------------------------------------

    async def _observed(self, result: Any) -> RemoteObservation:
        fields = dict(result.observation)
        fields.pop("reward", None)
        fields.pop("done", None)
        metadata = fields.pop("metadata", None)
        obs = RemoteObservation(
            reward=result.reward,
            done=result.done,
            metadata=metadata if isinstance(metadata, dict) else {},
            **{k: v for k, v in fields.items() if _keepable(k)},
        )
        if self.description.ours:
            self._drawing = await self._remote_drawing()
        else:
            reading = self.rules.read(result.observation)
            self._drawing = (reading.view, reading.legal, None)
        return obs

    async def _remote_drawing(self) -> Drawing:
        """The view, buttons and sliders the remote environment draws itself."""
        try:
            return await self._forward(self._client.drawing(), "view")
        except (ValueError, TypeError) as exc:
            raise ExecutionError(
                f"the remote server sent a view this page cannot draw: {exc}"
            ) from None

    async def _forward(self, call: Any, what: str) -> Any:
        """Await one call on the remote; its failures said for a person at the page."""
        url = self.description.remote.url
        try:
            return await call
        except SessionLost as exc:
            raise ResetNeeded(
                f"the remote server ended this session ({exc.message}): reset to start again"
            ) from None
        except Unauthorized as exc:
            raise Unauthorized(
                f"the remote server refused this page's session ({exc.message}): set "
                f"${TOKEN_ENV_VAR} to its token where this playground runs"
            ) from None
        except ConnectFailed as exc:
            raise ExecutionError(f"the remote server cannot be reached: {exc.message}") from None
        except CallTimeout:
            await self.close_connection()  # the remote session is stuck: the next reset starts anew
            raise ExecutionError(
                f"the remote server {url} did not answer the {what} within "
                f"{self.description.remote.timeout_s:g}s; reset to try again"
            ) from None
        except ConnectionLost as exc:
            raise ResetNeeded(
                f"the connection to the remote server {url} was lost ({exc.message}): reset "
                "to start again"
            ) from None
        except ProtocolMismatch as exc:
            raise ExecutionError(
                f"the remote server answered unexpectedly: {exc.message}"
            ) from None
        except OSError as exc:
            raise ResetNeeded(
                f"the connection to {url} failed ({exc}): reset to try again"
            ) from None


def _keepable(name: str) -> bool:
    """Whether an observation field can be kept on the model as it is (not pydantic's own)."""
    return name.isidentifier() and not name.startswith(("_", "model_"))


def remote_environment(description: Description) -> type[RemoteEnvironment]:
    """The environment class of one remote server (its wire classes: :mod:`.models`)."""
    rules = Rules(description.action_schema, description.observation_schema)
    attrs = {"description": description, "rules": rules, "remote_tools": description.tools}
    return type("RemoteEnvironment", (RemoteEnvironment,), attrs)
