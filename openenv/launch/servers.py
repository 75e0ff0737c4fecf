"""Which server a client gets: a Docker image, a Hugging Face Space, an installed environment
package run locally, or a pool of them. Each returns clients that own what they started."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from openenv.core.errors import EnvNotFound
from openenv.core.registry import EnvPackage, find
from openenv.hub import spaces
from openenv.launch.bootstrap import DEFAULT_START_TIMEOUT_S, Bootstrap, launch_client
from openenv.runtime.base import Provider

C = TypeVar("C")


def provider_for(
    package: EnvPackage,
    *,
    use_docker: bool = False,
    image: str | None = None,
    env_vars: Mapping[str, str] | None = None,
) -> Provider:
    """A new, unstarted provider of ``package``: a local process, or ``image`` in Docker.

    A local process needs the env's extra here: raises :class:`EnvUnavailable` (with the
    install command) rather than starting a server that cannot import.
    """
    if use_docker:
        from openenv.runtime.docker_provider import DockerProvider

        return DockerProvider(image or package.image, env_vars=env_vars)
    package.check_available()
    from openenv.runtime.process import LocalProcessProvider

    return LocalProcessProvider(package.app_ref, env_vars=env_vars)


def from_docker_image(
    client_cls: Callable[..., C],
    image: str,
    provider: Provider | None = None,
    *,
    env_vars: Mapping[str, str] | None = None,
    environment: Mapping[str, str] | None = None,
    port: int | None = None,
    container_port: int | None = None,
    timeout_s: float = DEFAULT_START_TIMEOUT_S,
    **client_kwargs: Any,
) -> Bootstrap[C]:
    """What ``<Name>Env.from_docker_image(image)`` does: a lazy handle on a client that owns a
    ``DockerProvider(image, env_vars=..., port=..., container_port=...)``. A ``provider`` given
    here (any :class:`Provider`, already configured) is used instead, and ``image`` ignored.
    ``environment`` is another name of ``env_vars`` (the one ``openenv`` 0.10's docs use)."""
    if environment is not None:
        if env_vars is not None:
            raise TypeError("give the container's variables as env_vars or environment, not both")
        env_vars = environment

    def make() -> C:
        chosen = provider
        if chosen is None:
            from openenv.runtime.docker_provider import DockerProvider

            chosen = DockerProvider(
                image, env_vars=env_vars, port=port, container_port=container_port
            )
        return launch_client(client_cls, chosen, timeout_s=timeout_s, **client_kwargs)

    return Bootstrap(make)


def from_space(
    client_cls: Callable[..., C],
    repo_id: str,
    *,
    local: bool = False,
    token: str | None = None,
    **client_kwargs: Any,
) -> Bootstrap[C]:
    """What ``<Name>Env.from_env(repo_id)`` does: a lazy handle on a client of the Space.

    ``await`` the handle for a connected async client, or call ``.sync()`` for a connected
    blocking one. With ``local=True`` the environment runs here instead, in a child process
    served from the installed package (the client closes it), and nothing is sent to the Hub.
    """
    if local:
        from openenv.runtime.process import LocalProcessProvider

        app = _local_package(client_cls, repo_id).app_ref
        return Bootstrap(
            lambda: launch_client(client_cls, LocalProcessProvider(app), **client_kwargs)
        )
    headers = dict(client_kwargs.pop("headers", None) or {})
    secret = spaces.hub_token(token)
    if secret:
        headers.setdefault("Authorization", f"Bearer {secret}")
    url = spaces.space_url(repo_id)
    return Bootstrap(lambda: client_cls(base_url=url, headers=headers, **client_kwargs))


def _local_package(client_cls: Any, repo_id: str) -> EnvPackage:
    """The package to serve locally: the client's own env package, else the repo's name."""
    package = getattr(client_cls, "__module__", "").split(".")[0]
    try:
        return find(package)
    except EnvNotFound:
        return find(repo_id.rstrip("/").split("/")[-1])


P = TypeVar("P")


SESSIONS_PER_SERVER = 64  # servers="auto": one server per this many sessions


def servers_for(size: int, servers: int | str) -> int:
    """How many servers a pool of ``size`` sessions gets (``"auto"``: one per
    SESSIONS_PER_SERVER sessions, at least one)."""
    if servers == "auto":
        return max(1, -(-size // SESSIONS_PER_SERVER))
    if isinstance(servers, bool) or not isinstance(servers, int) or servers < 1:
        raise ValueError(f'servers must be a positive number or "auto", got {servers!r}')
    return min(servers, size)


def launch_pool(
    pool_cls: Callable[..., P],
    name: str,
    size: int,
    servers: int | str = 1,
    *,
    use_docker: bool = False,
    docker_image: str | None = None,
    env_vars: Mapping[str, str] | None = None,
    provider: Any = None,
) -> P:
    """What ``EnvPool.launch`` does: start the servers of env ``name`` (local processes,
    containers of ``docker_image`` when ``use_docker``, or Ray actors with ``provider="ray"``
    or a :class:`~openenv.runtime.ray_provider.Ray`) at once, and spread ``size`` sessions
    over them round-robin (each server as loaded as the others, each session staying on its
    server), in a ``pool_cls`` (``EnvPool``) that stops its servers on close."""
    package = find(name)
    count = servers_for(size, servers)
    if provider == "ray":
        from openenv.runtime.ray_provider import Ray

        provider = Ray()
    if provider is not None and not hasattr(provider, "provider"):
        raise ValueError(f'provider must be "ray" or a Ray(...), got {provider!r}')
    if provider is not None:
        providers = [provider.provider(package.app_ref, env_vars) for _ in range(count)]
    else:
        providers = [
            provider_for(package, use_docker=use_docker, image=docker_image, env_vars=env_vars)
            for _ in range(count)
        ]
    try:
        urls = _start_all(providers)
    except BaseException:
        for started in providers:
            started.stop()
        raise
    client_cls = package.client_class()
    pool = pool_cls(  # type: ignore[call-arg]
        [client_cls(base_url=urls[i % count]) for i in range(size)],
        providers,
        slots=[i % count for i in range(size)],
        client_cls=client_cls,
    )
    return pool


def _start_all(providers: list[Provider]) -> list[str]:
    """Start every server at once (a cluster's take seconds each) and wait until each is
    healthy; their URLs in order."""
    from concurrent.futures import ThreadPoolExecutor

    def start(provider: Provider) -> str:
        url = provider.start()
        provider.wait_until_healthy()
        return url

    with ThreadPoolExecutor(max_workers=min(32, len(providers))) as threads:
        return list(threads.map(start, providers))
