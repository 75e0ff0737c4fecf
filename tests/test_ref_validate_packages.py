"""The reference's ``openenv validate envs/X`` (0.10.0, package mode, RFC 008 policy v2) on
every env package, with a real Docker engine.

Every check the reference implements (startup, observation_schema, reward_well_formed,
state_contract) must PASS; the ones it does not implement SKIP, so the verdict is WARN and the
exit code 0. The images share every layer but one: the base (the framework and all envs'
dependencies) is built once per requirement set by ``tests/docker/package_base.py``; each
package adds one COPY. Validations run two at a time (``OPENENV_REF_VALIDATE_JOBS``), all in one
process of the reference's virtualenv (``tests/docker/ref_validate_many.py``), which calls what
its ``openenv validate PACKAGE --json`` calls.

Needs the Docker lane (``bash tests/docker/setup_engine.sh``); without it the tests report
"DOCKER LANE NOT RUN", and fail with ``OPENENV_DOCKER_LANE=required``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "compat"))
sys.path.insert(0, str(ROOT / "tests" / "docker"))

from refvenv import ensure_ref_venv  # noqa: E402

from tests.docker.lane import lane_not_run  # noqa: E402

PACKAGES = sorted(p.name for p in (ROOT / "envs").iterdir() if (p / "openenv.yaml").is_file())
IMPLEMENTED = (
    "runtime.startup",
    "runtime.observation_schema",
    "runtime.reward_well_formed",
    "runtime.state_contract",
)
JOBS = int(os.environ.get("OPENENV_REF_VALIDATE_JOBS", "2"))
LANE_TIMEOUT_S = 3600.0  # the whole lane, at most


def _engine_answers() -> bool:
    try:
        done = subprocess.run(["docker", "info"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _run_all(python: Path, futures: dict[str, Future]) -> subprocess.Popen:
    """Start the reference's validations of every package in one process of the reference's
    virtualenv (tests/docker/ref_validate_many.py: its CLI's imports paid once, not per
    package); a reader thread resolves each package's future as its report arrives."""
    runner = ROOT / "tests" / "docker" / "ref_validate_many.py"
    args = [str(python), str(runner), str(JOBS), *(f"envs/{p}" for p in futures)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                done = json.loads(line)
                report = json.loads(done["report"])
            except (json.JSONDecodeError, KeyError, TypeError):
                continue  # not a report line (something the reference printed)
            report["exit_code"], report["seconds"] = done["exit_code"], done["seconds"]
            future = futures.get(done.get("package"))
            if future is not None and not future.done():
                future.set_result(report)
        code = proc.wait()
        for package, future in futures.items():
            if not future.done():
                future.set_result(
                    {"verdict": "no report", "results": [], "exit_code": code, "seconds": 0,
                     "stderr": f"the validation runner ended (exit {code}) before {package}"}
                )  # fmt: skip

    threading.Thread(target=read, daemon=True).start()
    return proc


@pytest.fixture(scope="module")
def reports() -> dict[str, Future]:
    """Every package's reference report, run ``JOBS`` at a time (started once, awaited by each
    test); the lane's timings are printed at the end."""
    if not _engine_answers():
        lane_not_run("no Docker engine answers.")
    stand_in = ["docker", "image", "inspect", "python:3.11-slim"]
    if subprocess.run(stand_in, capture_output=True).returncode != 0:
        lane_not_run("the base image python:3.11-slim is not on the engine (no registry here).")
    from package_base import ensure_base

    lane_started = time.monotonic()
    base_s = ensure_base()
    futures: dict[str, Future] = {package: Future() for package in PACKAGES}
    proc = _run_all(ensure_ref_venv(), futures)
    yield futures
    try:
        proc.wait(timeout=LANE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
    total = time.monotonic() - lane_started
    rows = [(p, f.result()) for p, f in futures.items() if f.done()]
    print(f"\nreference package validation: base image {base_s:.0f} s, lane {total:.0f} s")
    for package, report in rows:
        print(
            f"  {package:22} {report['verdict']:5} exit {report['exit_code']} {report['seconds']} s"
        )


@pytest.mark.parametrize("package", PACKAGES)
def test_reference_validator_passes_every_implemented_check(
    reports: dict[str, Future], package: str
) -> None:
    report = reports[package].result(timeout=LANE_TIMEOUT_S)
    statuses = {r["check_id"]: r["status"] for r in report["results"]}
    failing = {
        r["check_id"]: r["evidence"] for r in report["results"] if r["status"] in ("fail", "error")
    }
    assert failing == {}, f"{package}: {failing} {report.get('stderr', '')}"
    assert {check: statuses.get(check) for check in IMPLEMENTED} == dict.fromkeys(
        IMPLEMENTED, "pass"
    )
    skipped = [r for r in report["results"] if r["status"] == "skip"]
    assert all(r["evidence"] for r in skipped), "a SKIP names its reason"
    assert (report["verdict"], report["exit_code"]) == ("warn", 0)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_dockerfile_is_the_generated_one(package: str) -> None:
    """No engine needed: the committed Dockerfile is what `openenv build --package-files`
    renders, and the runtime plan replays a seeded episode of at most 100 actions."""
    from openenv.core.registry import read_package
    from openenv.hub.package_image import package_dockerfile

    entry = read_package(ROOT / "envs" / package)
    assert (ROOT / "envs" / package / "Dockerfile").read_text() == package_dockerfile(entry)
    plan = json.loads((ROOT / "envs" / package / "validation" / "runtime.json").read_text())
    assert plan["plan_schema_version"] == "1"
    assert plan["reset"]["seed"] == 0 and plan["reset"]["episode_id"] == f"validation-{entry.name}"
    assert 1 <= len(plan["actions"]) <= 100
