"""``openenv.core.env_server.http_server``: ``openenv`` 0.10's server entry points, on ours.

``create_app(env, ActionCls, ObservationCls, env_name, max_concurrent_envs, ...)`` takes 0.10's
arguments (positional ones in 0.10's order) and builds the app with
:func:`openenv.server.create_app`: the same routes, ``/ws`` sessions, ``/mcp`` and our ``/web``
playground. ``create_fastapi_app`` is the same without the playground. ``HTTPEnvServer`` adds
those routes to a FastAPI app of the caller's (``server.register_routes(app)``).
Importing this module loads the server (as it does in 0.10).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI

from openenv.core.env_server.types import ConcurrencyConfig, ServerMode
from openenv.core.types import Action, Observation, State
from openenv.server.app import EnvSource
from openenv.server.app import create_app as _create_app

__all__ = ["HTTPEnvServer", "create_app", "create_fastapi_app"]


def create_app(
    env: EnvSource,
    action_cls: type[Action],
    observation_cls: type[Observation],
    env_name: str | None = None,
    max_concurrent_envs: int | None = None,
    concurrency_config: ConcurrencyConfig | None = None,
    gradio_builder: Callable[..., Any] | None = None,
    custom_tab_name: str = "Custom",
    custom_tab_primary: bool = False,
    show_default_tab: bool = True,
    title_override: str | None = None,
    state_cls: type[State] | None = None,
    *,
    mode: ServerMode | str | None = None,
    reset_observation_cls: type[Observation] | None = None,
    **options: Any,
) -> FastAPI:
    """An environment server, from ``openenv`` 0.10's arguments (see the module docstring).

    ``custom_tab_primary``, ``show_default_tab`` and ``reset_observation_cls`` arrange 0.10's
    own web page and schema; our playground draws its own way and ignores them. Other keyword
    ``options`` are those of :func:`openenv.server.create_app` (``enable_web=False``, ...).
    """
    return _create_app(
        env,
        action_cls,
        observation_cls,
        state_cls=state_cls,
        env_name=env_name,
        gradio_builder=gradio_builder,
        custom_tab_name=custom_tab_name,
        title=title_override,
        mode=_mode(mode),
        **_concurrency(max_concurrent_envs, concurrency_config),
        **options,
    )


def create_fastapi_app(
    env: EnvSource,
    action_cls: type[Action],
    observation_cls: type[Observation],
    max_concurrent_envs: int | None = None,
    concurrency_config: ConcurrencyConfig | None = None,
    env_name: str | None = None,
    state_cls: type[State] | None = None,
    *,
    mode: ServerMode | str | None = None,
    reset_observation_cls: type[Observation] | None = None,
) -> FastAPI:
    """The API only: :func:`create_app` without the ``/web`` playground."""
    return _create_app(
        env,
        action_cls,
        observation_cls,
        state_cls=state_cls,
        env_name=env_name,
        enable_web=False,
        mode=_mode(mode),
        **_concurrency(max_concurrent_envs, concurrency_config),
    )


class HTTPEnvServer:
    """An environment's routes, to add to a FastAPI app of your own with
    :meth:`register_routes` (``openenv`` 0.10's way to serve next to routes of your own)."""

    def __init__(
        self,
        env: EnvSource,
        action_cls: type[Action],
        observation_cls: type[Observation],
        max_concurrent_envs: int | None = None,
        concurrency_config: ConcurrencyConfig | None = None,
        env_name: str | None = None,
        state_cls: type[State] | None = None,
        *,
        reset_observation_cls: type[Observation] | None = None,
    ) -> None:
        self.app = create_fastapi_app(
            env,
            action_cls,
            observation_cls,
            max_concurrent_envs,
            concurrency_config,
            env_name,
            state_cls,
        )

    def register_routes(self, app: FastAPI, mode: ServerMode | str | None = None) -> None:
        """Add the environment's routes (/reset, /step, /state, /schema, /ws, /mcp, ...) to
        ``app`` and run their sessions for ``app``'s lifetime."""
        if _mode(mode) == "production":
            self.app = self._rebuilt_for_production()
        inner = self.app
        app.router.routes.extend(inner.router.routes)
        app.state.openenv = inner.state.openenv
        for exc_class, handler in inner.exception_handlers.items():
            app.add_exception_handler(exc_class, handler)
        outer = app.router.lifespan_context

        @contextlib.asynccontextmanager
        async def lifespan(owner: FastAPI) -> AsyncIterator[Any]:
            async with inner.router.lifespan_context(inner), outer(owner) as state:
                yield state

        app.router.lifespan_context = lifespan

    def _rebuilt_for_production(self) -> FastAPI:
        ctx = self.app.state.openenv
        return _create_app(
            ctx.env_factory,
            ctx.action_cls,
            ctx.observation_cls,
            state_cls=ctx.state_cls,
            package=ctx.package,
            enable_web=False,
            mode="production",
        )


def _mode(mode: ServerMode | str | None) -> str | None:
    return mode.value if isinstance(mode, ServerMode) else mode


def _concurrency(
    max_concurrent_envs: int | None, config: ConcurrencyConfig | None
) -> dict[str, Any]:
    if max_concurrent_envs is not None and config is not None:
        raise ValueError("give max_concurrent_envs or concurrency_config, not both")
    if config is None:
        return {"max_concurrent_envs": max_concurrent_envs}
    return {
        "max_concurrent_envs": config.max_concurrent_envs,
        "session_timeout_s": config.session_timeout or 0.0,
    }
