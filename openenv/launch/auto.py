"""AutoEnv and AutoAction: get an environment's typed client or Action class from its name.

    env = AutoEnv.from_env("grid-world")    # starts grid_world_env locally: a GridWorldEnv
    with env.sync() as client:              # closing it stops the server
        client.reset()
        client.step(AutoAction.from_env("grid_world")(action="RIGHT"))

Names are matched loosely (``"echo"``, ``"echo-env"``, ``"echo_env"``) against installed env
packages (see :mod:`openenv.core.registry`). A name with a ``/`` is a Hugging Face Space
(``owner/echo_env``): its client comes from the installed package, its URL from
:mod:`openenv.hub.spaces`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from openenv.core.errors import EnvNotFound
from openenv.core.registry import find, installed
from openenv.launch.bootstrap import DEFAULT_START_TIMEOUT_S, launch_client
from openenv.launch.servers import provider_for


def _from_space(repo_id: str, base_url: str | None, **kwargs: Any) -> Any:
    """A client of the Space ``owner/name``, typed by the installed package ``name``.

    Code is never downloaded: the env package must be installed. The client connects to
    ``base_url`` if given, else to the Space's URL (with the Hugging Face token, if any).
    """
    try:
        spaces = importlib.import_module("openenv.hub.spaces")
    except ImportError:  # a stripped-down installation without the Hub helpers
        raise EnvNotFound(
            f"{repo_id!r} looks like a Hugging Face Space id, and Spaces are not reachable "
            "from this installation (openenv.hub is missing). Install the env package and "
            "use its name (AutoEnv.from_env('echo')), or pass base_url= of a running server."
        ) from None
    client_cls = find(repo_id.rstrip("/").rsplit("/", 1)[-1]).client_class()
    if base_url is None:
        base_url = spaces.space_url(repo_id)
        token = spaces.hub_token()
        if token:
            headers = kwargs.setdefault("headers", {})
            headers.setdefault("Authorization", f"Bearer {token}")
    return client_cls(base_url=base_url, **kwargs)


class AutoEnv:
    """Factory of typed environment clients by name; not instantiable."""

    def __init__(self) -> None:
        raise TypeError("use AutoEnv.from_env(name) instead of AutoEnv()")

    @staticmethod
    def get_env_class(name: str) -> type:
        """The client class of the installed env ``name`` (e.g. ``GridWorldEnv``)."""
        return find(name).client_class()

    @staticmethod
    def list_environments() -> list[str]:
        """Short names of every installed environment package."""
        return [package.name for package in installed()]

    @staticmethod
    def from_env(
        name: str,
        base_url: str | None = None,
        *,
        provider: Any = None,
        use_docker: bool = False,
        docker_image: str | None = None,
        env_vars: Mapping[str, str] | None = None,
        wait_timeout: float = DEFAULT_START_TIMEOUT_S,
        **client_kwargs: Any,
    ) -> Any:
        """A client of environment ``name``, not yet connected (it connects on first call).

        With ``base_url`` it talks to that server. Without, it starts one and owns it (closing
        the client stops it): with ``provider`` if given (a :class:`Provider`, or ``"ray"`` /
        a :class:`~openenv.runtime.ray_provider.Ray` for a Ray actor on a cluster), else in
        Docker when ``use_docker`` (image ``docker_image`` or ``<name>-env:latest``), else as a
        local process. ``env_vars`` go to the started server.
        """
        if "/" in name:
            return _from_space(name, base_url, **client_kwargs)
        package = find(name)
        client_cls = package.client_class()
        if base_url is not None:
            return client_cls(base_url=base_url, **client_kwargs)
        if provider == "ray":
            from openenv.runtime.ray_provider import Ray

            provider = Ray()
        if hasattr(provider, "provider"):  # cluster settings: one server of this env there
            provider = provider.provider(package.app_ref, env_vars)
        if provider is None:
            provider = provider_for(
                package, use_docker=use_docker, image=docker_image, env_vars=env_vars
            )
        return launch_client(client_cls, provider, timeout_s=wait_timeout, **client_kwargs)


class AutoAction:
    """Factory of Action classes by environment name; not instantiable."""

    def __init__(self) -> None:
        raise TypeError("use AutoAction.from_env(name) instead of AutoAction()")

    @staticmethod
    def from_env(name: str) -> type:
        """The Action model of the installed env ``name`` (e.g. ``GridWorldAction``)."""
        return find(name).action_class()
