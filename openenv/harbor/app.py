"""``create_harbor_app(service)``: the Harbor server.

Our ``create_app`` on :class:`~openenv.harbor.tools.HarborEnvironment` (each session's tools
``run_rollout`` and ``capabilities`` run on the one ``service``), plus the Task API and the run
routes (:mod:`openenv.harbor.routes`), and the ``/web`` UI's Harbor tab when
``openenv.harbor.web`` is installed (imported lazily: the server never needs Gradio).

Wire-compatible with ``openenv`` 0.10's ``harbor_env``: its ``HarborEnv`` client lists tasks
and runs rollouts here; ours is ``harbor_env.HarborEnv``.

Three things a visitor may do reach beyond the server, so they are on by default only where
every visitor is the operator (:func:`visitors_may`: a loopback bind outside a Space): adding a
Hub dataset (downloaded to the operator's disk), running on a model URL of the visitor's choice
(the server probes and calls it: on a public server that is a way into whatever the server's
network reaches) and running a Hugging Face model on this machine's Hugging Face token (billed
to the operator; elsewhere a visitor gives a token of its own or signs in).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI

from openenv.harbor.routes import ENV_NAME, add_harbor_routes
from openenv.harbor.service import HarborService
from openenv.harbor.tools import HarborEnvironment

log = logging.getLogger("openenv.harbor")


def create_harbor_app(
    service: HarborService,
    *,
    title: str = "OpenEnv × Harbor",
    api_token: str | None = None,
    enable_web: bool | None = None,
    max_concurrent_envs: int | None = None,
    close_service: bool = False,
    package: Any = None,
    env_cls: type[HarborEnvironment] = HarborEnvironment,
    allow_hub_add: bool | None = None,
    allow_urls: bool | None = None,
    allow_machine_token: bool | None = None,
) -> FastAPI:
    """The Harbor server of ``service``; ``close_service``: close it when the app stops;
    ``env_cls``: the tool environment (a subclass, for an env package's own manifest);
    ``allow_hub_add``: the page may add Hub datasets to the served splits; ``allow_urls``:
    visitors may run on a model URL of theirs; ``allow_machine_token``: a Hugging Face run
    without a visitor's token uses this machine's (all three: :func:`visitors_may` when None)."""
    from openenv.server import create_app

    if allow_hub_add is None:
        allow_hub_add = visitors_may(None, HUB_ADD_VARIABLE)
    service.endpoints.allow_urls = (
        visitors_may(None, OWN_URLS_VARIABLE) if allow_urls is None else allow_urls
    )
    service.endpoints.machine_token = visitors_may(allow_machine_token, MACHINE_TOKEN_VARIABLE)
    if package is None and env_cls is HarborEnvironment:
        package = _harbor_package()
    builder = _web_tab(service, allow_hub_add) if enable_web is not False else None
    app = create_app(
        env_cls.factory(service),
        env_name=ENV_NAME,
        api_token=api_token,
        enable_web=enable_web,
        max_concurrent_envs=max_concurrent_envs,
        gradio_builder=builder,
        custom_tab_name="Harbor",
        custom_first=builder is not None,  # the Harbor tabs are the first screen
        title=title,
        package=package,
    )
    add_harbor_routes(app, service)
    app.state.harbor = service
    if close_service:
        _close_on_shutdown(app, service)
    return app


HUB_ADD_VARIABLE = "OPENENV_HARBOR_HUB_ADD"
OWN_URLS_VARIABLE = "OPENENV_HARBOR_OWN_URLS"
MACHINE_TOKEN_VARIABLE = "OPENENV_HARBOR_MACHINE_HF_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def visitors_may(flag: bool | None, variable: str, host: str | None = None) -> bool:
    """Whether visitors may use an option that reaches beyond the server: ``flag`` when given,
    else ``$variable`` (1/on/true/yes), else only on a loopback bind (``host``, else ``$HOST``,
    else the 0.0.0.0 that ``openenv serve`` binds) outside a Space, where every visitor is the
    operator."""
    if flag is not None:
        return flag
    configured = os.environ.get(variable, "").strip().lower()
    if configured:
        return configured in ("1", "on", "true", "yes")
    bind = host or os.environ.get("HOST") or "0.0.0.0"
    return bind in LOOPBACK and not os.environ.get("SPACE_ID")


def _harbor_package() -> Any:
    """The ``harbor_env`` package (its README and manifest describe the server), if installed."""
    from openenv.core.errors import EnvNotFound
    from openenv.core.registry import find

    try:
        found = find("harbor")
    except EnvNotFound:
        return None
    if found.path is None:
        return None
    return type(found)(found.path, found.manifest.model_copy(update={"name": ENV_NAME}))


def _web_tab(service: HarborService, allow_hub_add: bool) -> Callable[..., Any] | None:
    """The Harbor tabs (:mod:`openenv.harbor.web`), unless Gradio is missing."""
    try:
        from openenv.harbor.web import harbor_tab  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:  # without Gradio: the playground's tool tab
        if not (exc.name or "").startswith(("openenv.harbor.web", "gradio")):
            raise
        log.info("no Harbor web tab (%s is missing): the playground shows the tools", exc.name)
        return None
    # the tab's download links go to the run routes (relative to the page, so a prefix works)
    builder: Callable[..., Any] = harbor_tab(
        service, download_routes=f"{ENV_NAME}/runs", allow_hub_add=allow_hub_add
    )
    return builder


def _close_on_shutdown(app: FastAPI, service: HarborService) -> None:
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        try:
            async with inner(a) as state:
                yield state
        finally:
            service.close()

    app.router.lifespan_context = lifespan
