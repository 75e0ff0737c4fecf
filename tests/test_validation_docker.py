"""``openenv validate PATH --docker``: the runtime checks against the package's own container.

Needs a Docker engine and the packages' base image (``bash tests/docker/setup_engine.sh``, then
``tests/docker/package_base.py``'s ``ensure_base``, which the fixture runs). Without an engine
the engine tests are reported as skipped ("DOCKER LANE NOT RUN: ..."); with
``OPENENV_DOCKER_LANE=required`` they fail instead. The graders' container rules and the
no-engine error need no engine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from openenv.core.registry import read_package
from openenv.validation import validate
from openenv.validation.container import LABEL, declared_limits
from openenv.validation.evidence import ContainerRecord, Evidence
from openenv.validation.graders import Subject
from openenv.validation.graders.runtime import host_containment, resource_bounds, startup
from openenv.validation.spec import read_spec
from tests.docker.lane import engine_with

ROOT = Path(__file__).resolve().parent.parent
GRID = ROOT / "envs" / "grid_world_env"
sys.path.insert(0, str(ROOT / "tests" / "docker"))


@pytest.fixture(scope="module")
def engine() -> Any:
    """The Docker engine with a current package base image, or the tests reported as not run."""
    client = engine_with("python:3.11-slim")
    from package_base import ensure_base

    ensure_base()
    return client


def _ours(client: Any, pid: int | None = None) -> tuple[list[Any], list[Any]]:
    """Containers and images the validator labelled (those of process ``pid`` if given)."""
    label = LABEL if pid is None else f"{LABEL}={pid}"
    # sparse: no inspect of each one, which fails on a container removed meanwhile
    containers = client.containers.list(all=True, filters={"label": label}, sparse=True)
    images = client.images.list(filters={"label": label})
    return containers, images


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openenv.cli", "validate", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


# -- with an engine -------------------------------------------------------------------------


def test_runtime_checks_run_against_the_container_with_its_declared_limits(engine, tmp_path):
    bundle = tmp_path / "evidence"
    report = validate(read_package(GRID), "runtime", bundle, docker=True)
    results = {r.check_id: r for r in report.results}
    assert report.provider == "docker"
    failing = {k: r.summary for k, r in results.items() if r.outcome == "fail"}
    failing.pop("runtime.startup", None)  # its time bound is judged below, not on a busy host
    assert not failing

    container = json.loads((bundle / "container.json").read_text())
    started = results["runtime.startup"]
    assert "container.json" in started.evidence
    assert started.measured["startup_s"] == container["startup_s"] > 0
    if started.status == "pass":
        assert "/health" in started.summary and "(bound 30 s)" in started.summary
    else:  # a loaded machine: the measured time is past the RFC's bound, and said so
        assert container["startup_s"] > 30 and "the bound is 30 s" in started.summary

    # docker inspect: the limits the engine enforces are the declared ones
    assert container["enforced"] == container["declared"]
    assert container["enforced"]["memory_bytes"] == 1024 * 1024 * 1024  # memory_mb: 1024
    assert container["enforced"]["nano_cpus"] == 10**9 and container["enforced"]["pids_limit"]
    assert container["enforced"]["user"] == "65532:65532"
    assert container["enforced"]["read_only_root"] is True
    bounds = results["runtime.resource_bounds"]
    assert "container.json" in bounds.evidence and "docker inspect" in bounds.summary

    # docker diff: nothing outside /tmp
    contained = results["runtime.host_containment"]
    assert "container.json" in contained.evidence and "docker diff" in contained.summary
    outside = [c for c in contained.measured["docker_diff"] if "/tmp" not in c]
    assert set(outside) <= {"C /usr", "C /usr/sbin", "A /usr/sbin/docker-init"}

    # the episodes were played over the container's /ws
    seeded = json.loads((bundle / "episodes" / "seed_a.json").read_text())
    assert seeded["steps"] and (
        seeded["reset_observation"]["x"],
        seeded["reset_observation"]["y"],
    ) == (0, 0)
    assert container["url"] in json.loads((bundle / "server.json").read_text())["app"]
    assert _ours(engine, os.getpid()) == ([], [])  # container and image removed


def test_a_container_that_does_not_start_fails_startup_with_its_log(engine, tmp_path):
    package = tmp_path / "grid_world_env"
    shutil.copytree(GRID, package, ignore=shutil.ignore_patterns("__pycache__"))
    dockerfile = (package / "Dockerfile").read_text().splitlines()
    dockerfile[-1] = 'CMD ["python", "-c", "print(\'the server is broken\'); raise SystemExit(3)"]'
    (package / "Dockerfile").write_text("\n".join(dockerfile) + "\n")

    report = validate(read_package(package), "runtime", docker=True)
    started = report.result("runtime.startup")
    assert started is not None and started.status == "fail"
    assert "never answered /health" in started.summary
    assert "the server is broken" in started.summary  # the log's tail
    assert report.verdict == "fail"
    assert _ours(engine, os.getpid()) == ([], [])


def test_an_image_that_does_not_build_is_a_clear_error(engine, tmp_path):
    package = tmp_path / "grid_world_env"
    shutil.copytree(GRID, package, ignore=shutil.ignore_patterns("__pycache__"))
    with (package / "Dockerfile").open("a") as f:
        f.write('RUN ["python", "-c", "raise SystemExit(\'this step fails\')"]\n')
    done = _cli(str(package), "--docker", "--level", "runtime")
    said = done.stdout + done.stderr
    assert done.returncode == 1
    assert "--docker: building" in said and "failed" in said
    assert "this step fails" in said  # the build's last lines
    assert "Traceback" not in said


def test_ctrl_c_removes_the_container_and_the_image(engine, tmp_path):
    # A server that takes its time to start: the interrupt lands while the validator waits for
    # it, however fast or slow the machine (a real one could finish before the interrupt).
    package = tmp_path / "grid_world_env"
    shutil.copytree(GRID, package, ignore=shutil.ignore_patterns("__pycache__"))
    dockerfile = (package / "Dockerfile").read_text().splitlines()
    dockerfile[-1] = 'CMD ["python", "-c", "import time; time.sleep(600)"]'
    (package / "Dockerfile").write_text("\n".join(dockerfile) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "openenv.cli", "validate", str(package), "--docker"],
        # Ctrl-C reaches it as from a terminal, even when this test runs in a background job
        # (whose children start with SIGINT ignored, as the test command's lanes do)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not _ours(engine, proc.pid)[0]:  # until its container exists
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the container never appeared"
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _ours(engine, proc.pid) == ([], [])
    assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")


# -- without an engine ----------------------------------------------------------------------


def test_without_an_engine_it_says_so_and_exits_non_zero():
    done = _cli(str(GRID), "--docker", env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "no Docker engine is reachable" in said
    assert "Traceback" not in said


def _graded(**changes: Any) -> dict[str, Any]:
    """The container rules of the graders on a made-up record of the grid world."""
    entry = read_package(GRID)
    spec = read_spec(GRID)
    limits = declared_limits(spec)
    record = ContainerRecord(
        image="x", url="http://127.0.0.1:1", startup_s=2.0, declared=limits, enforced=limits
    )
    record = ContainerRecord(**{**record.__dict__, **changes})
    from openenv.validation.evidence import ServerRecord

    server = ServerRecord(
        "app",
        statuses={"/health": 200, "/metadata": 200, "/schema": 200},
        oversize_status=413,
        message_limit=10,
        call_timeout_s=60.0,
        max_sessions=8,
    )
    evidence = Evidence("grid_world_env", "GridWorld", {}, server=server, container=record)
    subject = Subject(entry.name, entry.package, entry.path, entry.manifest, spec)
    return {
        "startup": startup(subject, evidence),
        "contained": host_containment(subject, evidence),
        "bounds": resource_bounds(subject, evidence),
    }


def test_the_graders_judge_the_container_record():
    fine = _graded(changes=("A /tmp/x", "C /usr", "C /usr/sbin", "A /usr/sbin/docker-init"))
    assert {k: r.status for k, r in fine.items()} == dict.fromkeys(fine, "pass")

    wrote = _graded(changes=("A /opt/openenv/state.db",))["contained"]
    assert wrote.status == "fail" and "A /opt/openenv/state.db" in wrote.evidence

    limits = declared_limits(read_spec(GRID))
    loose = _graded(enforced={**limits, "memory_bytes": 0, "pids_limit": None})["bounds"]
    assert loose.status == "fail"
    assert "memory_bytes: declared 1073741824" in loose.summary and "pids_limit" in loose.summary

    slow = _graded(startup_s=31.5, logs_tail="importing torch\n")["startup"]
    assert slow.status == "fail" and "31.5 s" in slow.summary and "importing torch" in slow.summary
