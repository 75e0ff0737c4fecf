"""The Docker sandbox of a rollout: the task's own image, the harness, then the verifier.

The image is ``[environment].docker_image`` when task.toml names one, else the task's
``environment/Dockerfile`` built here (tagged by a hash of the folder, so a rebuild happens only
when it changes; ``build_timeout_sec`` bounds it). One container per rollout, with the task's
``memory_mb`` and ``cpus``, the harness's install mounted read-only at the same path (and, for a
Node script, the host's Node; for mini-swe-agent, the host's Python: :meth:`Harness.mounts`),
the small files it generates for the container (:meth:`Harness.container_files`, written to a
private folder removed with the container) mounted read-only too, and the host's network (the
harness reaches the capture proxy on loopback). Once the container is up, the harness's probe (its
``--version``, say) runs there: an image the harness cannot run in (no glibc or too old a one,
no libstdc++) is refused with what the image lacks, before the agent starts. The harness
runs under ``timeout -s KILL`` in the image's working directory, within the container's memory,
CPU and process limits like everything in it; the tests are copied in only afterwards
(``/tests``), and the verifier writes ``/logs/verifier/reward.txt`` as in Harbor. ``close``
removes the container and everything in it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from openenv.core.harness.harnesses.base import Harness, HarnessUnavailable
from openenv.core.harness.sandboxes import (
    LOG_TAIL_BYTES,
    HarnessOutcome,
    SandboxError,
    VerifierOutcome,
    plain,
)
from openenv.core.harness.tasks import HarborTask

GRACE_S = 30.0  # the host's backstop past the in-container timeout
PROBE_TIMEOUT_S = 60.0


def docker_problem() -> str | None:
    """Why the Docker sandbox cannot run here (None when it can)."""
    if shutil.which("docker") is None:
        return "the docker CLI is not installed"
    try:
        ran = subprocess.run(["docker", "info"], capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "the Docker engine does not answer (docker info timed out)"
    if ran.returncode != 0:
        return f"the Docker engine does not answer: {plain(ran.stderr.decode()[-300:]).strip()}"
    return None


def _docker(
    *args: str, timeout: float = 120.0, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["docker", *args], input=stdin, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise SandboxError(f"docker {args[0]} took longer than {timeout:g} s") from None


def _tail(data: bytes) -> str:
    return plain(data[-LOG_TAIL_BYTES:].decode("utf-8", "replace"))


class DockerTaskSandbox:
    """A task's container: ``seed`` (the image has the files), ``run_harness``, ``verify``,
    ``close``."""

    kind = "docker"

    def __init__(self, task: HarborTask, harness: Harness, network: str = "host") -> None:
        """``harness`` as a container runs it (:meth:`Harness.in_container`); ``network``:
        the container's (``host``: the harness reaches the capture proxy on loopback;
        ``none``: a sandbox whose commands need no model, a workspace's)."""
        problem = docker_problem()
        if problem:
            raise SandboxError(f"docker sandbox: {problem}")
        self.task = task
        self.harness = harness
        self.network = network
        self.name = f"openenv-harbor-{secrets.token_hex(6)}"
        self.started = False
        self.files: str | None = None  # the folder of the harness's generated files

    def _image(self) -> str:
        if self.task.docker_image:
            return self.task.docker_image
        context = self.task.path / "environment"
        if not (context / "Dockerfile").is_file():
            raise SandboxError(f"{self.task.name}: no environment/Dockerfile and no docker_image")
        digest = hashlib.sha256()
        for name, data in sorted(self.task.files("environment").items()):
            digest.update(name.encode() + b"\0" + data + b"\0")
        tag = f"openenv-harbor-task-{self.task.name.lower()}:{digest.hexdigest()[:12]}"
        if _docker("image", "inspect", tag).returncode == 0:
            return tag
        limit = float(self.task.config.get("environment", {}).get("build_timeout_sec", 600))
        # --force-rm: a failed step's container goes too (the default keeps it)
        built = _docker("build", "-q", "--force-rm", "-t", tag, str(context), timeout=limit)
        if built.returncode != 0:
            raise SandboxError(f"docker build of {self.task.name}: {_tail(built.stderr)}")
        return tag

    def seed(self, files: dict[str, bytes]) -> None:
        """Start the container (its image holds the task's files: the Dockerfile copied them)
        and check that the harness can start in it."""
        env = self.task.config.get("environment", {})
        args = ["run", "-d", "--name", self.name, "--network", self.network]
        args += ["--label", "openenv.harbor"]
        args += ["--memory", f"{int(env.get('memory_mb', 2048))}m"]
        args += ["--cpus", str(env.get("cpus", 1)), "--pids-limit", "512"]
        for source, target in self.harness.mounts().items():
            args += ["-v", f"{source}:{target}:ro"]
        for written, inside in self._write_files().items():
            args += ["-v", f"{written}:{inside}:ro"]
        image = self._image()
        self.started = True  # from here on, close() removes whatever docker made
        ran = _docker(*args, image, "sleep", "infinity")
        if ran.returncode != 0:
            raise SandboxError(f"docker run {image}: {_tail(ran.stderr)}")
        self._probe(image)

    def _write_files(self) -> dict[str, str]:
        """Write the harness's generated files to a private folder; each with its target."""
        wanted = self.harness.container_files()
        if not wanted:
            return {}
        self.files = tempfile.mkdtemp(prefix="openenv-harbor-files-")
        written = {}
        for n, (target, text) in enumerate(wanted.items()):
            source = Path(self.files, str(n))
            source.write_text(text, encoding="utf-8")
            source.chmod(0o644)  # whatever user the image runs as reads it
            written[str(source)] = target
        return written

    def _probe(self, image: str) -> None:
        """Refuse an image the harness cannot start in, saying what it needs and what the
        probe met there."""
        argv = self.harness.probe()
        if argv is None:
            return
        ran = self._exec(argv, {}, PROBE_TIMEOUT_S)
        if ran.returncode != 0:
            said = _tail(ran.stderr + ran.stdout).strip()[-600:] or f"exit status {ran.returncode}"
            raise HarnessUnavailable(
                f"{self.harness.name} cannot run in the image {image}: it needs "
                f"{self.harness.container_needs()}; `{' '.join(argv)}` there says: {said}"
            )

    def _exec(
        self, argv: list[str], env: dict[str, str], timeout_s: float
    ) -> subprocess.CompletedProcess[bytes]:
        flags = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        wrapped = ["timeout", "-s", "KILL", f"{timeout_s:g}", *argv]
        return _docker("exec", *flags, self.name, *wrapped, timeout=timeout_s + GRACE_S)

    def run_harness(self, argv: list[str], env: dict[str, str], timeout_s: float) -> HarnessOutcome:
        """Run the harness in the container; killed at ``timeout_s`` (exit status 137)."""
        ran = self._exec(argv, env, timeout_s)
        if ran.returncode == 137 and self._alive():
            return HarnessOutcome(None, True, _tail(ran.stdout + ran.stderr))
        if not self._alive():
            raise SandboxError("docker sandbox: the container is gone")
        return HarnessOutcome(ran.returncode, False, _tail(ran.stdout + ran.stderr))

    def _alive(self) -> bool:
        ran = _docker("inspect", "-f", "{{.State.Running}}", self.name)
        return ran.returncode == 0 and ran.stdout.strip() == b"true"

    def verify(
        self, tests: dict[str, bytes], env: dict[str, str], timeout_s: float
    ) -> VerifierOutcome:
        """Copy the tests to ``/tests`` (only now), run ``test.sh``, read the reward."""
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in tests.items():
                path = Path(tmp, name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                path.chmod(0o755)
            _docker("exec", self.name, "mkdir", "-p", "/tests", "/logs/verifier")
            copied = _docker("cp", f"{tmp}/.", f"{self.name}:/tests")
            if copied.returncode != 0:
                raise SandboxError(f"docker cp of the tests: {_tail(copied.stderr)}")
        ran = self._exec(["bash", "/tests/test.sh"], env, timeout_s)
        output = _tail(ran.stdout + ran.stderr)
        if ran.returncode == 137:
            return VerifierOutcome(None, None, output, f"verifier past {timeout_s:g} s")
        for name in ("reward.txt", "reward.json"):
            text = _docker("exec", self.name, "cat", f"/logs/verifier/{name}")
            if text.returncode != 0:
                continue
            try:
                value = json.loads(text.stdout[:100_000])
                reward = float(value["reward"] if isinstance(value, dict) else value)
            except (ValueError, TypeError, KeyError):
                problem = f"{name} holds no numeric reward: {plain(repr(text.stdout[:40]))}"
                return VerifierOutcome(None, ran.returncode, output, problem)
            return VerifierOutcome(reward, ran.returncode, output)
        problem = "the verifier wrote no reward (verifier/reward.txt or reward.json)"
        return VerifierOutcome(None, ran.returncode, output, problem)

    def close(self) -> None:
        """Remove the container and all in it, and the generated files (idempotent)."""
        if self.started:
            _docker("rm", "-f", self.name, timeout=60)
            self.started = False
        if self.files is not None:
            shutil.rmtree(self.files, ignore_errors=True)
            self.files = None
