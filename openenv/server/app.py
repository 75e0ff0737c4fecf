"""create_app(): an environment class (or factory) in, a FastAPI server out."""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI
from fastapi.responses import RedirectResponse

from openenv.core.environment import Environment
from openenv.core.errors import OpenEnvError
from openenv.core.registry import EnvPackage, Manifest, package_of
from openenv.core.types import Action, Observation, State
from openenv.server import http_routes
from openenv.server.auth import configured_token, redact_logs
from openenv.server.clients import per_client_limit, trusted_proxies
from openenv.server.context import ServerContext
from openenv.server.docs import serve_docs
from openenv.server.headers import security_headers
from openenv.server.heap import freeze_startup_heap
from openenv.server.mcp import McpService, resolve_mode, without_simulation
from openenv.server.sessions import DEFAULT_CALL_TIMEOUT_S, SessionManager
from openenv.server.ws import DirectWsApp, WsEndpoint

log = logging.getLogger("openenv.server")

DEFAULT_MAX_SESSIONS = 256
DEFAULT_SESSION_TIMEOUT_S = 600.0


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def _env_number(name: str, default: float | None) -> float | None:
    value = os.environ.get(name)
    return float(value) if value not in (None, "") else default


EnvSource = Callable[[], Environment] | type[Environment] | Environment


def create_app(
    env: EnvSource,
    action_cls: type[Action] | None = None,
    observation_cls: type[Observation] | None = None,
    *,
    state_cls: type[State] | None = None,
    env_name: str | None = None,
    max_concurrent_envs: int | None = None,
    max_sessions_per_client: int | None = None,
    session_timeout_s: float | None = None,
    call_timeout_s: float | None = None,
    api_token: str | None = None,
    enable_web: bool | None = None,
    gradio_builder: Callable[..., Any] | None = None,
    custom_tab_name: str = "Custom",
    custom_first: bool = False,
    title: str | None = None,
    mode: str | None = None,
    package: EnvPackage | None = None,
    demos: Any = None,
) -> FastAPI:
    """Serve an environment: HTTP routes, ``/ws`` sessions and the ``/web`` playground.

    Every session (a WebSocket, a playground tab) gets an environment of its own, made from
    ``env``: a class or a factory (``lambda: MyEnvironment(size=9)``) is called; an instance
    (``create_app(MyEnvironment(), ...)``, as ``openenv`` 0.10's docs write it) is the template
    each session gets a ``copy.deepcopy`` of, so visitors never share an episode. An instance
    that cannot be copied (it holds a process, a socket, a lock) is refused here: pass its class
    or a factory. The wire classes default to the environment's generic arguments.

    Settings fall back to environment variables: ``MAX_CONCURRENT_ENVS``,
    ``MAX_SESSIONS_PER_CLIENT`` (sessions one outside client may hold; 0: no limit; see
    :mod:`openenv.server.clients`), ``SESSION_TIMEOUT_S`` (idle seconds before a session is
    closed; ``0`` disables reaping), ``OPENENV_CALL_TIMEOUT_S`` (how long one sync env call may
    run before its session is ended; default the env's ``CALL_TIMEOUT_S`` or 60),
    ``OPENENV_API_TOKEN`` and ``ENABLE_WEB_INTERFACE``.
    ``gradio_builder(session_api, ...)`` adds an environment-specific tab to the playground;
    with ``custom_first`` that UI is the page's first screen, the generic playground folded below.
    Every server answers JSON-RPC on ``/mcp`` (tool environments with their tools, the others
    with the reference's error objects); ``mode="production"`` (or ``OPENENV_MODE``) serves
    tools and health only: no /reset, /step, /state, no reset/step/state on /ws, no playground.
    ``package`` (its manifest and README) describes the environment on /metadata and in the
    playground; by default, the package that defines the environment class.
    ``demos`` (True, or a :class:`~openenv.datasets.demos.DemoSettings`) keeps the episodes
    visitors finish in the playground as demonstrations; default ``OPENENV_DEMOS`` (off).
    """
    env_factory, env_cls = _session_factory(env)
    declared = env_cls.wire_types() if env_cls is not None else (None, None, None)
    action_cls = action_cls or declared[0]
    observation_cls = observation_cls or declared[1]
    state_cls = state_cls or declared[2] or State
    if action_cls is None or observation_cls is None:
        raise TypeError("create_app needs action_cls and observation_cls (or a typed Environment)")

    manager = SessionManager(
        env_factory,
        max_sessions=_max_sessions(env_cls, max_concurrent_envs),
        idle_timeout_s=session_timeout_s
        if session_timeout_s is not None
        else _env_number("SESSION_TIMEOUT_S", DEFAULT_SESSION_TIMEOUT_S),
        per_client=per_client_limit(max_sessions_per_client),
        call_timeout_s=_call_timeout(env_cls, call_timeout_s),
    )
    package = package or _package(env_cls, env_name)
    ctx = ServerContext(
        env_factory=env_factory,
        env_cls=env_cls,
        action_cls=action_cls,
        observation_cls=observation_cls,
        state_cls=state_cls,
        package=package,
        manager=manager,
        token=configured_token(api_token),
        proxies=trusted_proxies(),
    )
    redact_logs(ctx.token)
    if demos is not None:
        ctx.web["demo_settings"] = demos  # read by openenv.web.stage.demos

    production = resolve_mode(mode) == "production"
    tools = McpService(ctx, production=production)  # /mcp on every server, tools or not

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with tools.running():
            freeze_startup_heap()  # full collections stop walking the startup heap
            yield
        await manager.shutdown()

    app = DirectWsApp(
        title=title or f"{package.title} environment",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    serve_docs(app)  # /docs without a CDN (and no /redoc: ReDoc always calls its CDN)
    app.state.openenv = ctx
    app.add_exception_handler(OpenEnvError, http_routes.openenv_error)
    router = http_routes.router()
    app.include_router(without_simulation(router) if production else router)
    ws = WsEndpoint(
        manager,
        action_cls,
        token=ctx.token,
        mcp_handler=tools.ws_handler,
        simulation=not production,
        owner_of=ctx.owner_of,
    )
    app.router.add_websocket_route("/ws", ws)  # WsEndpoint is a plain ASGI app
    app.ws_endpoint = ws  # ...which /ws connections reach without the middleware and router
    app.response_headers = security_headers()  # CSP, nosniff, referrer (openenv.server.headers)
    tools.mount(app)

    web_on = enable_web if enable_web is not None else _env_flag("ENABLE_WEB_INTERFACE", True)
    if web_on and not production:
        _mount_web(
            app,
            ctx,
            gradio_builder=gradio_builder,
            custom_tab_name=custom_tab_name,
            custom_first=custom_first,
        )
    return app


def _package(env_cls: type[Environment] | None, env_name: str | None) -> EnvPackage:
    """The environment package that defines ``env_cls`` (its manifest and README), or a
    package of its own name when it lives outside one (a script); ``env_name`` renames it."""
    package = package_of(env_cls) if env_cls is not None else None
    if package is None:
        name = env_name or (env_cls.__name__ if env_cls is not None else "environment")
        return EnvPackage(None, Manifest(name=name))
    if env_name:
        return EnvPackage(package.path, package.manifest.model_copy(update={"name": env_name}))
    return package


def _call_timeout(env_cls: type[Environment] | None, explicit: float | None) -> float | None:
    if explicit is not None:
        return explicit or None
    declared = env_cls.CALL_TIMEOUT_S if env_cls is not None else None
    return _env_number("OPENENV_CALL_TIMEOUT_S", declared or DEFAULT_CALL_TIMEOUT_S) or None


def _session_factory(env: EnvSource) -> tuple[Callable[[], Environment], type[Environment] | None]:
    """What makes one session's environment from ``env``, and the environment class if known."""
    if isinstance(env, Environment):
        return _copies_of(env), type(env)
    if inspect.isclass(env):
        return env, env
    if not callable(env):
        raise TypeError(
            "create_app needs an Environment class, a factory returning one, or an instance; "
            f"got {type(env).__name__}"
        )
    return env, _factory_class(env)


def _copies_of(template: Environment) -> Callable[[], Environment]:
    """A factory of deep copies of ``template``; one copy is made now, so a template that
    cannot be copied is refused when the app is built rather than at every reset."""
    name = type(template).__name__
    try:
        copy.deepcopy(template)
    except Exception as exc:  # whatever a member's __deepcopy__/__reduce__ raises: re-raised
        raise TypeError(
            f"create_app got an instance of {name} and gives each session a copy of it, but "
            f"it cannot be copied ({type(exc).__name__}: {exc}). Pass the class, "
            f"create_app({name}, ...), or a factory, create_app(lambda: {name}(...), ...)"
        ) from exc
    return functools.partial(copy.deepcopy, template)


def _factory_class(factory: Callable[[], Any]) -> type[Environment] | None:
    hints = getattr(factory, "__annotations__", {}).get("return")
    if inspect.isclass(hints) and issubclass(hints, Environment):
        return hints
    owner = getattr(factory, "__self__", None) or getattr(factory, "func", None)
    return owner if inspect.isclass(owner) and issubclass(owner, Environment) else None


def _max_sessions(env_cls: type[Environment] | None, explicit: int | None) -> int:
    if env_cls is not None and not env_cls.SUPPORTS_CONCURRENT_SESSIONS:
        return 1
    if explicit is not None:
        return explicit
    return int(_env_number("MAX_CONCURRENT_ENVS", DEFAULT_MAX_SESSIONS) or DEFAULT_MAX_SESSIONS)


def _mount_web(app: FastAPI, ctx: ServerContext, **options: Any) -> None:
    # Imported lazily: openenv.server must not import Gradio at load time.
    try:
        from openenv.web.playground import mount_playground
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if exc.name not in ("openenv.web", "openenv.web.playground") and missing != "gradio":
            raise
        log.warning(
            "the web playground cannot load (%s is missing: pip install %s); serving the API only",
            exc.name,
            "gradio" if missing == "gradio" else "openenv-playground",
        )
        return

    mount_playground(app, ctx, path="/web", **options)

    async def to_playground() -> RedirectResponse:
        return RedirectResponse(url="web/")

    app.add_api_route("/", to_playground, methods=["GET"], include_in_schema=False)
