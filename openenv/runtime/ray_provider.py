"""Environment servers on a Ray cluster: each one a Ray actor that runs the env's server on its
node, exactly as :class:`~openenv.runtime.process.LocalProcessProvider` runs one here (a child
process of the actor, ``openenv serve``'s options), listening on that node's address. Clients
reach it directly there, one WebSocket per session; Ray only places, owns and reaps it.

    pool = EnvPool.launch("grid_world", size=1024, servers=16, provider="ray")
    pool = EnvPool.launch("atari", size=256, servers=8,
                          provider=Ray(address="ray://head:10001", num_cpus=2, strategy="SPREAD"))

:class:`Ray` holds the cluster settings and makes one :class:`RayProvider` per server. A
server dies with its actor (its child watches a pipe the actor holds), and its actor with its
node: what was on a lost node fails fast for its clients, and :class:`~openenv.client.pool.
EnvPool` starts a replacement for it at the next ``reset``. ``ray`` is the ``ray`` extra.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openenv.core.errors import ProviderError
from openenv.runtime.base import Provider

START_TIMEOUT_S = 120.0
# A pool's server on a cluster has one client, the pool, which reaches it on the node's
# address (not loopback): no per-client session quota. Its address is open to the cluster's
# network: pass OPENENV_API_TOKEN in env_vars where that network is shared.
SERVER_DEFAULTS = {"MAX_SESSIONS_PER_CLIENT": "0"}
CALL_TIMEOUT_S = 10.0  # an actor call that takes longer than this finds the actor gone


def _ray(address: str | None) -> Any:
    """The ``ray`` module, connected to the cluster at ``address`` (or the one running here,
    or a new local one) once per process."""
    try:
        import ray
    except ModuleNotFoundError:
        raise ProviderError(
            'provider="ray" needs Ray: pip install "openenv-playground[ray]"'
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    return ray


class EnvServerActor:
    """Runs inside the Ray actor: one env server, a child process of the actor on its node."""

    def __init__(self, app: str, env_vars: Mapping[str, str]) -> None:
        import ray

        from openenv.runtime.process import LocalProcessProvider

        host = ray.util.get_node_ip_address()
        self.provider = LocalProcessProvider(app, env_vars=env_vars, host=host)

    def start(self, timeout_s: float) -> tuple[str, str]:
        """Start the server; its URL and the node it runs on, once it answers /health."""
        import ray

        url = self.provider.start()
        self.provider.wait_until_healthy(timeout_s)
        return url, ray.get_runtime_context().get_node_id()

    def alive(self) -> bool:
        return self.provider.is_alive()

    def logs(self, tail: int) -> str:
        return self.provider.logs(tail)

    def stop(self) -> None:
        self.provider.stop()


@dataclass(frozen=True)
class Ray:
    """Where and how a pool's servers run on a Ray cluster.

    ``address``: the cluster (``None``: the one this process is connected to, ``RAY_ADDRESS``,
    or a new local one); ``num_cpus`` and ``resources``: what each server reserves;
    ``strategy``: Ray's scheduling strategy (``"SPREAD"``, the default, puts servers on
    different nodes where it can; ``"DEFAULT"`` packs them); ``env_vars``: for each server.
    """

    address: str | None = None
    num_cpus: float = 1.0
    resources: Mapping[str, float] = field(default_factory=dict)
    strategy: Any = "SPREAD"
    env_vars: Mapping[str, str] = field(default_factory=dict)

    def provider(self, app: str, env_vars: Mapping[str, str] | None = None) -> RayProvider:
        """A new, unstarted server of ``app`` on the cluster."""
        settings = {**SERVER_DEFAULTS, **self.env_vars, **(env_vars or {})}
        return RayProvider(app, cluster=self, env_vars=settings)


class RayProvider(Provider):
    """One env server as a Ray actor (see the module docstring)."""

    def __init__(
        self, app: str, *, cluster: Ray | None = None, env_vars: Mapping[str, str] | None = None
    ) -> None:
        super().__init__()
        self.app = app
        self.cluster = cluster or Ray()
        self.env_vars = dict(env_vars or {})
        self.node_id: str | None = None
        self._actor: Any = None

    def __repr__(self) -> str:
        return f"RayProvider({self.app!r}, url={self.base_url!r}, node={self.node_id})"

    def respawn(self) -> RayProvider:
        """A new, unstarted provider like this one (a replacement for a lost server)."""
        return RayProvider(self.app, cluster=self.cluster, env_vars=self.env_vars)

    def _start(self) -> str:
        ray = _ray(self.cluster.address)
        actor_cls = ray.remote(EnvServerActor)
        self._actor = actor_cls.options(
            num_cpus=self.cluster.num_cpus,
            resources=dict(self.cluster.resources) or None,
            scheduling_strategy=self.cluster.strategy,
            max_restarts=0,
        ).remote(self.app, self.env_vars)
        try:
            url, self.node_id = ray.get(
                self._actor.start.remote(START_TIMEOUT_S), timeout=START_TIMEOUT_S + 30
            )
        except Exception as exc:  # the actor's own error, or Ray's (no node fits, it died)
            self._kill()
            raise ProviderError(
                f"the env server actor for {self.app} did not start: {exc}"
            ) from exc
        return str(url)

    def wait_until_healthy(self, timeout_s: float = 60.0) -> None:
        self.start()  # the actor answers only once its server is healthy

    def is_alive(self) -> bool:
        if self._actor is None:
            return False
        ray = _ray(self.cluster.address)
        try:
            return bool(ray.get(self._actor.alive.remote(), timeout=CALL_TIMEOUT_S))
        except Exception:  # the actor, its node or the connection is gone
            return False

    def logs(self, tail: int = 100) -> str:
        if self._actor is None:
            return ""
        ray = _ray(self.cluster.address)
        try:
            return str(ray.get(self._actor.logs.remote(tail), timeout=CALL_TIMEOUT_S))
        except Exception as exc:
            return f"(no logs: the server's actor is gone: {type(exc).__name__})"

    def _stop(self) -> None:
        if self._actor is None:
            return
        ray = _ray(self.cluster.address)
        with contextlib.suppress(Exception):  # a lost actor has nothing left to stop
            ray.get(self._actor.stop.remote(), timeout=CALL_TIMEOUT_S)
        self._kill()

    def _kill(self) -> None:
        actor, self._actor = self._actor, None
        if actor is not None:
            with contextlib.suppress(Exception):
                _ray(self.cluster.address).kill(actor, no_restart=True)
