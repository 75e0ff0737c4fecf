"""The Docker provider of ``openenv validate PATH --docker``: the package's own image, run as
the RFC 008 runner runs it, is what the runtime checks talk to.

:func:`package_container` builds the package's ``Dockerfile`` (the package folder is the build
context), runs the image as uid 65532 on a read-only root with ``/tmp`` a tmpfs, no
capabilities, and the declared resources (``validation.resources``: ``memory_mb`` as memory and
memory+swap, ``cpu`` as CPUs, ``pids``, ``disk_mb`` as the tmpfs; ``validation.network``), on a
loopback port, and waits for ``GET /health`` (the RFC's bound is 30 s; it waits longer before
giving up, so a slow start is measured, not only refused). The runtime episodes and probes then
run against its URL (:mod:`openenv.validation.runner` with a URL); :meth:`PackageContainer.finish`
records ``docker inspect``'s limits and ``docker diff`` before the container goes.

Container and image are removed on the way out of the ``with`` block, whatever ends it
(Ctrl-C and SIGTERM included); the container also dies with this process (the
:class:`~openenv.runtime.docker_provider.DockerProvider`'s reaper). Errors are
:class:`~openenv.core.errors.ProviderError`: no engine (:class:`EngineUnavailable`), a base image
missing or a build that fails (:class:`BuildFailed`), a network mode this runner cannot enforce.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openenv.core.errors import ProviderError, ServerExited, ServerNotHealthy
from openenv.core.registry import EnvPackage
from openenv.validation.evidence import ContainerRecord
from openenv.validation.spec import ValidationSpec

STARTUP_BOUND_S = 30.0  # RFC 008: an env server answers /health within 30 s of its start
STARTUP_GIVE_UP_S = 120.0  # how long a slow start is waited for (and measured) before giving up
USER = "65532:65532"
SHM_MB = 64
LOG_LINES = 40
LABEL = "org.openenv.validate"
NETWORKS = {"public": "bridge"}  # declared mode -> the engine's network mode


class BuildFailed(ProviderError):
    """The package's image could not be built (the build's last lines say why)."""


def run_options(spec: ValidationSpec) -> dict[str, Any]:
    """``containers.run`` keyword arguments for the declared resources and network."""
    declared = spec.effective_resources
    if spec.network_mode not in NETWORKS:
        raise ProviderError(
            f"validation.network.mode {spec.network_mode!r}: --docker enforces only "
            f"{', '.join(NETWORKS)} (validate without --docker to run the other checks)"
        )
    tmp_mb = max(16, declared.disk_mb - min(SHM_MB, declared.disk_mb // 2))
    return {
        "user": USER,
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={tmp_mb}m,mode=1777"},
        "shm_size": f"{min(SHM_MB, declared.disk_mb // 2)}m",
        "mem_limit": f"{declared.memory_mb}m",
        "memswap_limit": f"{declared.memory_mb}m",
        "nano_cpus": int(declared.cpu * 1e9),
        "pids_limit": declared.pids,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "network_mode": NETWORKS[spec.network_mode],
        "environment": {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"},
    }


def declared_limits(spec: ValidationSpec) -> dict[str, Any]:
    """The limits as ``docker inspect`` spells them, to compare with what it reports."""
    options = run_options(spec)
    return {
        "memory_bytes": spec.effective_resources.memory_mb * 1024 * 1024,
        "memory_swap_bytes": spec.effective_resources.memory_mb * 1024 * 1024,
        "nano_cpus": options["nano_cpus"],
        "pids_limit": options["pids_limit"],
        "network_mode": options["network_mode"],
        "read_only_root": True,
        "user": USER,
        "tmpfs": options["tmpfs"],
    }


def enforced_limits(attrs: dict[str, Any]) -> dict[str, Any]:
    """What ``docker inspect`` says the container runs with."""
    host = attrs.get("HostConfig") or {}
    return {
        "memory_bytes": host.get("Memory"),
        "memory_swap_bytes": host.get("MemorySwap"),
        "nano_cpus": host.get("NanoCpus"),
        "pids_limit": host.get("PidsLimit"),
        "network_mode": host.get("NetworkMode"),
        "read_only_root": bool(host.get("ReadonlyRootfs")),
        "user": (attrs.get("Config") or {}).get("User"),
        "tmpfs": dict(host.get("Tmpfs") or {}),
    }


class PackageContainer:
    """One package's image and container, owned by one ``with package_container(...)``."""

    def __init__(self, entry: EnvPackage, spec: ValidationSpec, client: Any) -> None:
        self.entry, self.spec, self.client = entry, spec, client
        if entry.path is None:
            raise ProviderError(f"{entry.name} is not a package folder: --docker builds one")
        self.root: Path = entry.path
        self.tag = f"openenv-validate/{entry.name.lower()}:{uuid.uuid4().hex[:12]}"
        self.image_id: str | None = None
        self.provider: Any = None
        self.url: str | None = None
        self.build_s = 0.0
        self.startup_s: float | None = None
        self.error: str | None = None
        self.early_logs = ""  # what it printed when it ended before it could be reached

    def build(self) -> None:
        """Build the package's Dockerfile; :class:`BuildFailed` with the build's last lines."""
        import docker.errors

        dockerfile = self.root / "Dockerfile"
        if not dockerfile.is_file():
            raise BuildFailed(
                f"{self.root} has no Dockerfile: write one with "
                f"`openenv build {self.root} --package-files`"
            )
        self._need_bases(dockerfile.read_text(encoding="utf-8"))
        began = time.monotonic()
        try:
            image, _ = self.client.images.build(
                path=str(self.root),
                dockerfile="Dockerfile",
                tag=self.tag,
                rm=True,
                forcerm=True,
                labels={LABEL: str(os.getpid())},
            )
        except docker.errors.BuildError as exc:
            lines = [str(c.get("stream") or c.get("error") or "") for c in exc.build_log or []]
            tail = "".join(lines).strip().splitlines()[-15:]
            raise BuildFailed(
                f"building {dockerfile} failed: {exc.msg}\n" + "\n".join(tail)
            ) from None
        except docker.errors.APIError as exc:
            raise BuildFailed(f"building {dockerfile} failed: {exc}") from None
        self.image_id = image.id
        self.build_s = round(time.monotonic() - began, 2)

    def _need_bases(self, dockerfile: str) -> None:
        """A base image that is not on the engine is named, with how to make it (no registry
        is pulled here: the build would fail with a registry error instead)."""
        import docker.errors

        defaults = {}
        for line in dockerfile.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0].upper() == "ARG" and "=" in words[1]:
                key, _, value = words[1].partition("=")
                defaults[key] = value
            if len(words) >= 2 and words[0].upper() == "FROM":
                base = words[1]
                for key, value in defaults.items():
                    base = base.replace(f"${{{key}}}", value).replace(f"${key}", value)
                try:
                    self.client.images.get(base)
                except docker.errors.ImageNotFound:
                    raise BuildFailed(
                        f"{self.root / 'Dockerfile'} starts FROM {base}, which is not on "
                        "this Docker engine (no registry is pulled): build it first with "
                        "`openenv build --base` (`--wheels DIR` installs from a wheelhouse "
                        "where no package index is reachable)"
                    ) from None
                except docker.errors.APIError:
                    return  # let the build itself say what is wrong

    def start(self) -> None:
        """Run the image with the declared limits and wait for /health (measured)."""
        from openenv.runtime.docker_provider import DockerProvider

        assert self.image_id is not None
        began = time.monotonic()
        try:
            self.provider = DockerProvider(
                self.image_id,
                client=self.client,
                labels={LABEL: str(os.getpid())},
                env_vars={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"},
                run_options={k: v for k, v in run_options(self.spec).items() if k != "environment"},
            )
        except ProviderError as exc:  # it ended before the engine published its port
            self.error, _, logs = str(exc).partition("\n")
            self.early_logs = logs[-4000:]
            return
        try:  # its start may find it already ended, before the engine published its port
            self.provider.wait_until_healthy(timeout_s=STARTUP_GIVE_UP_S)
        except (ServerExited, ServerNotHealthy, ProviderError) as exc:
            self.error = str(exc).split("\n", 1)[0]
            return
        self.startup_s = round(time.monotonic() - began, 2)
        self.url = self.provider.base_url

    def finish(self) -> ContainerRecord:
        """The container's record: limits from ``docker inspect``, writes from ``docker diff``,
        its log's tail. Call it before the container is removed."""
        container = getattr(self.provider, "_container", None)
        enforced: dict[str, Any] = {}
        changes: tuple[str, ...] = ()
        logs = self.early_logs
        if container is not None:
            import docker.errors

            with contextlib.suppress(docker.errors.APIError):
                container.reload()
                enforced = enforced_limits(container.attrs)
                kinds = {0: "C", 1: "A", 2: "D"}
                diff = container.diff() or []
                changes = tuple(f"{kinds.get(d.get('Kind'), '?')} {d.get('Path')}" for d in diff)
            logs = self.provider.logs(tail=LOG_LINES)
        return ContainerRecord(
            image=f"{self.tag} ({(self.image_id or '?')[:19]})",
            url=self.url,
            build_s=self.build_s,
            startup_s=self.startup_s,
            startup_bound_s=STARTUP_BOUND_S,
            declared=declared_limits(self.spec),
            enforced=enforced,
            changes=changes[:200],
            logs_tail=logs[-4000:],
            error=self.error,
        )

    def remove(self) -> None:
        """Remove the container and the image (each at most once; errors only logged away).

        Also whatever else of this process's carries the label: an interrupt (Ctrl-C, SIGTERM)
        can land after the engine made the container or the image but before this object
        heard of it, and an image is only deleted once no container uses it."""
        import docker.errors

        provider, self.provider = self.provider, None
        if provider is not None:
            with contextlib.suppress(ProviderError, docker.errors.APIError, OSError):
                provider.stop()
        ours = {"label": f"{LABEL}={os.getpid()}"}
        with contextlib.suppress(docker.errors.APIError):
            for container in self.client.containers.list(all=True, filters=ours):
                with contextlib.suppress(docker.errors.APIError):
                    container.remove(force=True)
        image, self.image_id = self.image_id, None
        with contextlib.suppress(docker.errors.APIError):
            images = [image] if image is not None else []
            images += [i.id for i in self.client.images.list(filters=ours) if i.id != image]
            for found in images:
                with contextlib.suppress(docker.errors.APIError):
                    self.client.images.remove(found, force=True)


@contextlib.contextmanager
def package_container(entry: EnvPackage, spec: ValidationSpec) -> Iterator[PackageContainer]:
    """Build and start ``entry``'s image; yield it running (or with ``error`` set when it did
    not answer /health); remove container and image on the way out."""
    from openenv.runtime.docker_provider import docker_client

    run_options(spec)  # an unenforceable network mode is refused before anything is built
    box = PackageContainer(entry, spec, docker_client())
    with _sigterm_as_interrupt():
        try:
            box.build()
            box.start()
            yield box
        finally:
            box.remove()


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the run like Ctrl-C, so the cleanup above still runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
