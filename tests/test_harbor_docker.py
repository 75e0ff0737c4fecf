"""Harbor rollouts in the Docker sandbox (the Docker lane): the task's own image built from its
environment/Dockerfile, mini-swe-agent (its virtualenv mounted read-only, on the host's Python
mounted read-only, also in an image whose Python is elsewhere) and the four npm agents (their
installs mounted read-only; codex's launcher and gemini-cli on the host's Node, mounted too)
against the capture proxy and the shipped scripted TEST engine, within the container's memory
limit, the verifier writing /logs/verifier/reward.txt; an image a harness cannot run in refused
before the agent starts, with what it lacks; every container removed afterwards, a hanging
harness and a failed image build included, and every image a test builds."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from harbor_support import MODEL, TRAIN

from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.docker_sandbox import docker_problem
from openenv.core.harness.engine import Engine, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.harnesses import (
    Harness,
    HarnessCommand,
    MiniSweAgent,
    NpmHarness,
    get_harness,
    install_harness,
)
from openenv.core.harness.harnesses.host_python import PREFIX, HostPython
from openenv.core.harness.harnesses.npm import CONTAINER_NODE, node_path
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import RolloutResult, run_rollout
from openenv.core.harness.tasks import HarborTask, load_task, shipped_tasks
from tests.docker.lane import lane_not_run

BASE_IMAGE = "python:3.11-slim"  # what the shipped tasks' Dockerfiles start FROM
NPM_AGENTS = ["codex", "claude-code", "opencode", "gemini-cli"]
AGENT_TIMEOUT_S = 150.0  # these take 3-10 s each here; a hung agent is stopped at this
# The container's memory limit as the agent's shell sees it (cgroup v2, else v1).
MEMORY_LIMIT = (
    "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes"
)


@pytest.fixture(scope="module")
def docker() -> None:
    problem = docker_problem()
    if problem:
        lane_not_run(problem + ".")
    if subprocess.run(["docker", "image", "inspect", BASE_IMAGE], capture_output=True).returncode:
        lane_not_run(f"the base image {BASE_IMAGE} is not on the engine (no registry here).")


@pytest.fixture(scope="module")
def harness(docker: None) -> MiniSweAgent:
    mini = MiniSweAgent()
    if mini.problem():
        install_harness("mini-swe-agent")
    return mini


def _npm_agent(name: str) -> NpmHarness:
    harness = get_harness(name)
    assert isinstance(harness, NpmHarness)
    if problem := harness.problem():
        pytest.skip(problem)  # says: run `openenv harbor install NAME`
    return harness


def mini_or_npm(name: str) -> Harness:
    if name != "mini-swe-agent":
        return _npm_agent(name)
    mini = MiniSweAgent()
    if mini.problem():
        install_harness("mini-swe-agent")
    return mini


TaskMaker = Callable[..., HarborTask]


@pytest.fixture
def task_with_dockerfile(tmp_path: Path) -> Iterator[TaskMaker]:
    """hello-file, its image built from a given Dockerfile (and executable context files); the
    images its rollouts build (tagged by its one-off name) are removed afterwards."""
    names: list[str] = []

    def make(dockerfile: str, files: dict[str, bytes] | None = None) -> HarborTask:
        task_dir = tmp_path / f"hello-{uuid.uuid4().hex[:6]}"
        shutil.copytree(shipped_tasks() / "hello-file", task_dir)
        (task_dir / "environment" / "Dockerfile").write_text(dockerfile)
        for name, data in (files or {}).items():
            (task_dir / "environment" / name).write_bytes(data)
            (task_dir / "environment" / name).chmod(0o755)
        names.append(task_dir.name)
        return load_task(task_dir)

    yield make
    for name in names:
        tags = _images(f"openenv-harbor-task-{name}")
        if tags:
            subprocess.run(["docker", "rmi", *tags], capture_output=True, check=True)
        assert _images(f"openenv-harbor-task-{name}") == []


def _images(repository: str) -> list[str]:
    ran = subprocess.run(
        ["docker", "images", "--format", "{{.Repository}}:{{.Tag}}", repository],
        capture_output=True,
        check=True,
    )
    return ran.stdout.decode().split()


def _containers(label: str = "openenv.harbor") -> list[str]:
    ran = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label={label}"], capture_output=True, check=True
    )
    return ran.stdout.decode().split()


def rollout(
    t: HarborTask, harness: Harness, commands: list[str], timeout: float | None = None
) -> RolloutResult:
    with serve_in_thread(create_engine_app(Engine(script=bash_policy(commands)))) as engine:
        proxy = CaptureProxy(Upstream(f"{engine}/v1", model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            return run_rollout(
                t,
                proxy=proxy,
                proxy_url=proxy_url,
                harness=harness,
                model=MODEL,
                sandbox="docker",
                agent_timeout_s=timeout,
            )


def test_mini_swe_agent_solves_a_task_in_its_own_container(harness: MiniSweAgent) -> None:
    before = set(_containers())
    t = load_task(shipped_tasks() / "fix-add")
    solve = (t.path / "solution" / "solve.sh").read_text().strip()
    result = rollout(t, harness, [solve])
    assert result.status == "ok", (result.reason, result.log_tail)
    assert (result.sandbox, result.reward) == ("docker", 1.0)
    assert result.trace is not None and len(result.trace.turns) == 2
    assert set(_containers()) <= before  # its container is gone


def test_an_idle_policy_gets_reward_0_in_docker(harness: MiniSweAgent) -> None:
    result = rollout(load_task(shipped_tasks() / "hello-file"), harness, ["ls -la"])
    assert result.status == "ok", (result.reason, result.log_tail)
    assert result.reward == 0.0
    assert "hello.txt is missing or wrong" in result.verifier_output


class HangingHarness(Harness):
    """A TEST harness that never ends."""

    name = "test-hanging-harness"

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        return HarnessCommand(["sleep", "600"])


def test_a_hanging_harness_is_stopped_and_its_container_removed(docker: None) -> None:
    before = set(_containers())
    t = load_task(shipped_tasks() / "hello-file")
    result = rollout(t, HangingHarness(), [], timeout=2.0)
    assert result.status == "timeout", (result.reason, result.log_tail)
    assert result.reward == 0.0  # the verifier ran after the harness was killed
    assert set(_containers()) <= before


def _failed_steps() -> set[str]:
    """Containers of a build step that exited 3 (``RUN exit 3``) on the base image."""
    argv = ["docker", "ps", "-aq", "--filter", f"ancestor={BASE_IMAGE}", "--filter", "exited=3"]
    return set(subprocess.run(argv, capture_output=True, check=True).stdout.decode().split())


def test_a_task_whose_image_does_not_build_fails_with_the_reason_and_leaves_nothing(
    harness: MiniSweAgent, task_with_dockerfile: TaskMaker
) -> None:
    before = _failed_steps()
    t = task_with_dockerfile(f"FROM {BASE_IMAGE}\nRUN exit 3\n")
    result = rollout(t, harness, ["ls"])
    assert result.status == "error"
    assert result.reason.startswith(f"docker build of {t.name}: ")
    assert _failed_steps() <= before  # the failed step's container is gone too


# The layout of the real python:3.11-slim: its Python under /usr/local, none at the host's
# /usr/bin/python3.11 (the local stand-in of that image has Debian's there: moved if so).
PYTHON_IN_USR_LOCAL = f"""FROM {BASE_IMAGE}
RUN if [ -e /usr/bin/python3.11 ]; then \\
      mkdir -p /usr/local/lib/python3.11 \\
      && cp -a /usr/lib/python3.11/. /usr/local/lib/python3.11/ && rm -rf /usr/lib/python3.11 \\
      && mv /usr/bin/python3.11 /usr/local/bin/ && rm -f /usr/bin/python3 /usr/bin/python \\
      && ln -s python3.11 /usr/local/bin/python3; \\
    fi
WORKDIR /app
"""


def look_around(host_paths: list[Path]) -> str:
    """What the agent's shell is asked: whether the host interpreter's paths are in the image,
    the image's python3 and its prefix, and the variables that would bend it."""
    return (
        f"for p in {' '.join(map(str, host_paths))}; do test -e $p || echo absent: $p; done; "
        "command -v python3; python3 -c 'import sys; print(\"prefix:\", sys.prefix)'; "
        "echo LD_LIBRARY_PATH=${LD_LIBRARY_PATH-unset} PYTHONHOME=${PYTHONHOME-unset}"
    )


def test_mini_swe_agent_solves_a_task_in_an_image_without_the_hosts_python(
    harness: MiniSweAgent, task_with_dockerfile: TaskMaker
) -> None:
    host = harness.host_python()  # the interpreter its virtualenv was made with, its library
    host_paths = [host.binary, *host.trees]
    pyvenv_cfg = (harness.venv / "pyvenv.cfg").read_bytes()
    before = set(_containers())
    t = task_with_dockerfile(PYTHON_IN_USR_LOCAL)
    solve = (t.path / "solution" / "solve.sh").read_text().strip()
    result = rollout(t, harness, [look_around(host_paths), solve], timeout=AGENT_TIMEOUT_S)
    assert result.status == "ok", (result.reason, result.log_tail)
    assert (result.sandbox, result.reward) == ("docker", 1.0), result.log_tail
    assert result.trace is not None and len(result.trace.turns) == 3
    seen = json.dumps(result.trace.turns[1].request)  # what the agent's shell saw
    assert all(f"absent: {path}" in seen for path in host_paths), seen
    assert "/usr/local/bin/python3" in seen and "prefix: /usr/local" in seen
    assert "LD_LIBRARY_PATH=unset PYTHONHOME=unset" in seen
    assert (harness.venv / "pyvenv.cfg").read_bytes() == pyvenv_cfg  # the host's as it was
    assert set(_containers()) <= before


# sleep and timeout for an image without a C library (like a musl image's busybox): timeout
# runs its command as coreutils' does, without a PATH search (the probe's is absolute).
NO_LIBC_BOX = b"""#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (strstr(argv[0], "timeout")) { /* timeout -s KILL SECONDS COMMAND [ARG]... */
        if (argc < 5) return 125;
        execv(argv[4], argv + 4);
        fprintf(stderr, "timeout: failed to run command '%s': %s\\n", argv[4], strerror(errno));
        return 127;
    }
    for (;;) pause();
}
"""


def _static_box(tmp_path: Path) -> bytes:
    """NO_LIBC_BOX compiled statically (skipped without a C compiler and a static libc)."""
    source, binary = tmp_path / "box.c", tmp_path / "box"
    source.write_bytes(NO_LIBC_BOX)
    try:
        subprocess.run(
            ["cc", "-static", "-Os", "-o", str(binary), str(source)],
            capture_output=True,
            check=True,
            timeout=120,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no static C build here for a C-library-free image: {exc}")
    return binary.read_bytes()


def test_mini_swe_agent_is_refused_in_an_image_without_glibc(
    harness: MiniSweAgent, task_with_dockerfile: TaskMaker, tmp_path: Path
) -> None:
    before = set(_containers())
    dockerfile = "FROM scratch\nCOPY box /bin/sleep\nCOPY box /bin/timeout\n"
    t = task_with_dockerfile(dockerfile, {"box": _static_box(tmp_path)})
    result = rollout(t, harness, ["touch /tmp/the-agent-ran"], timeout=AGENT_TIMEOUT_S)
    assert result.status == "error", (result.reason, result.log_tail)
    image = f"openenv-harbor-task-{t.name}:"
    assert result.reason.startswith(f"mini-swe-agent cannot run in the image {image}")
    needs, said = result.reason.split(" there says: ")
    assert "it needs a glibc >= 2." in needs and f"mounted at {PREFIX}" in needs
    assert "ld-linux" in said and "No such file or directory" in said, said
    assert result.n_turns == 0 and result.reward is None  # no model call, no verifier
    assert set(_containers()) <= before


class NeedsAFutureGlibc(MiniSweAgent):
    """mini-swe-agent as if its libraries were linked against a glibc no image has yet."""

    def host_python(self) -> HostPython:
        return dataclasses.replace(super().host_python(), glibc=(2, 999))


def test_mini_swe_agent_is_refused_in_an_image_whose_glibc_is_too_old(docker: None) -> None:
    before = set(_containers())
    t = load_task(shipped_tasks() / "hello-file")
    result = rollout(t, NeedsAFutureGlibc(), ["touch /tmp/the-agent-ran"], timeout=60)
    assert result.status == "error", (result.reason, result.log_tail)
    assert result.reason.startswith("mini-swe-agent cannot run in the image "), result.reason
    needs, said = result.reason.split(" there says: ")
    assert "it needs a glibc >= 2.999 Linux image" in needs
    assert said.startswith("glibc 2.") and said.endswith("libraries need glibc >= 2.999"), said
    assert result.n_turns == 0 and result.reward is None
    assert set(_containers()) <= before


@pytest.mark.parametrize("name", NPM_AGENTS)
def test_an_npm_agent_solves_hello_file_in_its_container_within_its_memory_limit(
    docker: None, name: str
) -> None:
    harness = _npm_agent(name)
    before = set(_containers())
    t = load_task(shipped_tasks() / "hello-file")
    solve = (t.path / "solution" / "solve.sh").read_text().strip()
    result = rollout(t, harness, [MEMORY_LIMIT, solve], timeout=AGENT_TIMEOUT_S)
    assert result.status == "ok", (result.reason, result.log_tail)
    assert (result.sandbox, result.reward) == ("docker", 1.0), result.log_tail
    assert result.harness_exit_code == 0
    # first the limit, then the solution, the submit and the closing text: all captured
    assert result.trace is not None and len(result.trace.turns) == 4
    limit = str(int(t.config["environment"]["memory_mb"]) * 1024 * 1024)
    assert limit in json.dumps(result.trace.turns[1].request)  # the agent's shell saw it
    assert set(_containers()) <= before


def test_a_node_agent_runs_on_the_hosts_node_mounted_read_only() -> None:
    codex = _npm_agent("codex")  # its launcher is a Node script; opencode is a native binary
    inside = codex.in_container()
    argv = inside.command("say hi", "http://127.0.0.1:1/v1", "key", "m").argv
    assert CONTAINER_NODE in argv and node_path() not in argv
    assert inside.mounts()[Path(str(node_path())).resolve()] == CONTAINER_NODE
    assert "Node script" in codex.container_needs()
    opencode = _npm_agent("opencode")
    assert opencode.in_container().mounts() == {opencode.prefix: str(opencode.prefix)}
    assert "native binary" in opencode.container_needs()


# What an image lacks, and what the refusal then names: what the harness needs, what the probe met.
REFUSALS = {
    "gemini-cli": ("rm -f /usr/lib/*/libstdc++.so.6*", "with libstdc++", "libstdc++.so.6"),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_an_image_a_harness_cannot_run_in_is_refused_before_the_agent_starts(
    docker: None, task_with_dockerfile: TaskMaker, name: str
) -> None:
    harness = mini_or_npm(name)
    before = set(_containers())
    remove, needs, met = REFUSALS[name]
    t = task_with_dockerfile(f"FROM {BASE_IMAGE}\nRUN {remove}\nWORKDIR /app\n")
    result = rollout(t, harness, ["touch /tmp/the-agent-ran"], timeout=AGENT_TIMEOUT_S)
    assert result.status == "error", (result.reason, result.log_tail)
    image = f"openenv-harbor-task-{t.name}:"
    assert result.reason.startswith(f"{name} cannot run in the image {image}"), result.reason
    assert needs in result.reason and met in result.reason.split(" there says: ")[1]
    assert result.n_turns == 0 and result.reward is None  # no model call, no verifier
    assert set(_containers()) <= before


def test_a_task_workspace_runs_the_callers_commands_in_the_tasks_image(docker: None) -> None:
    """The white-box way in Docker: the caller's commands run in the task's own image, with no
    network at all, files kept between commands; the verifier rewards what they left."""
    from openenv.harbor.workspace import Workspace

    task = load_task(shipped_tasks() / "hello-file")
    workspace = Workspace(task, "docker")
    try:
        assert workspace.box.network == "none"
        solve = (task.path / "solution" / "solve.sh").read_text(encoding="utf-8")
        assert workspace.bash(solve)["exit_code"] == 0
        seen = workspace.bash("cat hello.txt; ls /sys/class/net")
        assert "Hello, Harbor!" in seen["output"] and seen["output"].split()[-1] == "lo"
        verdict = workspace.verify()
    finally:
        workspace.close()
    assert verdict["reward"] == 1.0, verdict
    assert workspace.closed
