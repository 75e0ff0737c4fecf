"""DockerProvider: run an environment image as a container on the local Docker engine.

Needs the ``docker`` SDK (``pip install 'openenv-playground[docker]'``) and a running engine
(``$DOCKER_HOST`` or ``/var/run/docker.sock``). The container:

* publishes its server port on a loopback port the engine picks (or ``port=``) only;
* gets ``env_vars`` plus ``PORT=<container port>`` (servers that read ``$PORT`` listen there);
* runs unprivileged, with no added capabilities;
* carries the labels :data:`LABEL_MANAGED`, :data:`LABEL_OWNER_PID`, :data:`LABEL_OWNER_HOST`.

It is removed on :meth:`stop`, at interpreter exit, and — when this process is killed — by a
small reaper process that waits on a pipe only this process holds. Containers whose owner
process is gone (e.g. after a power cut) are removed by :func:`remove_stale_containers`, which
every new provider runs first.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from openenv.core.errors import EngineUnavailable, ImageNotFound, ProviderError
from openenv.runtime.base import Provider

LABEL_MANAGED = "org.openenv.managed"
LABEL_OWNER_PID = "org.openenv.owner-pid"
LABEL_OWNER_HOST = "org.openenv.owner-host"
DEFAULT_CONTAINER_PORT = 8000


def docker_client() -> Any:
    """A connected ``docker.DockerClient``, or :class:`EngineUnavailable` saying how to get one."""
    try:
        import docker
        import docker.errors
    except ImportError as exc:
        raise EngineUnavailable(
            "the Docker provider needs the docker SDK: pip install 'openenv-playground[docker]'"
        ) from exc
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException as exc:
        raise EngineUnavailable(
            f"no Docker engine is reachable ({exc}). Start one (e.g. `sudo dockerd &`, or "
            "`bash tests/docker/setup_engine.sh`) or set DOCKER_HOST; to run without Docker "
            "use LocalProcessProvider / AutoEnv.from_env(name)."
        ) from exc
    return client


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_containers(client: Any | None = None) -> list[str]:
    """Remove containers labelled by this module on this host whose owner process is gone."""
    import docker.errors

    client = client or docker_client()
    removed = []
    for container in client.containers.list(all=True, filters={"label": LABEL_MANAGED}):
        labels = container.labels
        if labels.get(LABEL_OWNER_HOST) != socket.gethostname():
            continue
        if _pid_alive(int(labels.get(LABEL_OWNER_PID, "0") or 0)):
            continue
        with contextlib.suppress(docker.errors.NotFound):
            container.remove(force=True)
            removed.append(container.name)
    return removed


def exposed_port(image: Any) -> int:
    """The image's single exposed TCP port, else :data:`DEFAULT_CONTAINER_PORT`."""
    exposed = (image.attrs.get("Config") or {}).get("ExposedPorts") or {}
    ports = [int(key.split("/")[0]) for key in exposed if key.endswith("/tcp")]
    return ports[0] if len(ports) == 1 else DEFAULT_CONTAINER_PORT


class DockerProvider(Provider):
    """Run ``image`` (which must already exist locally) and serve it on a loopback port."""

    def __init__(
        self,
        image: str,
        *,
        env_vars: Mapping[str, str] | None = None,
        port: int | None = None,
        container_port: int | None = None,
        host: str = "127.0.0.1",
        labels: Mapping[str, str] | None = None,
        name: str | None = None,
        client: Any | None = None,
        run_options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.image = image
        self.env_vars = dict(env_vars or {})
        self.port = port
        self.container_port = container_port
        self.host = host
        self.labels = dict(labels or {})
        self.name = name
        self._client = client
        # more keyword arguments of ``containers.run`` (limits, read_only, tmpfs, user, ...)
        self.run_options = dict(run_options or {})
        self._container: Any = None
        self._reaper: subprocess.Popen[bytes] | None = None
        self._reaper_w: int | None = None

    def __repr__(self) -> str:
        cid = self.container_id[:12] if self.container_id else None
        return f"DockerProvider({self.image!r}, url={self.base_url!r}, container={cid})"

    @property
    def container_id(self) -> str | None:
        """The running container's id, else ``None``."""
        return self._container.id if self._container is not None else None

    def _image(self, client: Any) -> Any:
        import docker.errors

        try:
            return client.images.get(self.image)
        except docker.errors.ImageNotFound as exc:
            raise ImageNotFound(
                f"image {self.image!r} is not on this Docker engine: build it first with "
                f"`openenv build envs/<name>_env --tag {self.image}` (no registry is pulled)"
            ) from exc

    def _start(self) -> str:
        client = self._client = self._client or docker_client()
        remove_stale_containers(client)
        image = self._image(client)
        cport = self.container_port or exposed_port(image)
        labels = {
            **self.labels,
            LABEL_MANAGED: "1",
            LABEL_OWNER_PID: str(os.getpid()),
            LABEL_OWNER_HOST: socket.gethostname(),
        }
        self._container = client.containers.run(
            image.id, detach=True, name=self.name, labels=labels, privileged=False,
            environment={**self.env_vars, "PORT": str(cport)}, init=True,
            ports={f"{cport}/tcp": (self.host, self.port)}, **self.run_options,
        )  # fmt: skip
        self._start_reaper()
        self._container.reload()
        bindings = (self._container.ports or {}).get(f"{cport}/tcp") or []
        if not bindings:
            raise ProviderError(f"{self.image} did not publish port {cport}:\n{self.logs()}")
        return f"http://{self.host}:{bindings[0]['HostPort']}"

    def _start_reaper(self) -> None:
        watch_r, self._reaper_w = os.pipe()
        cmd = [sys.executable, "-m", "openenv.runtime._reaper", self._container.id, str(watch_r)]
        try:
            self._reaper = subprocess.Popen(
                cmd, pass_fds=(watch_r,), start_new_session=True,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            )  # fmt: skip
        finally:
            os.close(watch_r)

    def is_alive(self) -> bool:
        import docker.errors

        if self._container is None:
            return False
        try:
            self._container.reload()
        except docker.errors.NotFound:
            return False
        return self._container.status in ("created", "running")

    def logs(self, tail: int = 100) -> str:
        import docker.errors

        if self._container is None:
            return ""
        try:
            return self._container.logs(tail=tail).decode("utf-8", "replace")
        except docker.errors.NotFound:
            return "(container already removed)"

    def _stop(self) -> None:
        import docker.errors

        container, self._container = self._container, None
        if container is not None:
            with contextlib.suppress(docker.errors.NotFound):
                container.remove(force=True)
        if self._reaper_w is not None:
            os.close(self._reaper_w)  # the reaper sees EOF, finds nothing to remove, exits
            self._reaper_w = None
        if self._reaper is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._reaper.wait(timeout=10)
            self._reaper = None
