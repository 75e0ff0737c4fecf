"""The reference's own validator, ``openenv validate --url`` of ``openenv`` 0.10.0, passes on
every server we ship: its six HTTP checks (OpenAPI version, /health, /metadata, /schema,
``POST /mcp`` answering JSON-RPC, and the mode's route set) on each environment of the catalog,
one ``python app.py`` for all of them (each env's own server app, mounted under /envs/<name>).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, run_app_py

sys.path.insert(0, str(ROOT / "tests" / "compat"))
from refvenv import ensure_ref_venv

pytestmark = pytest.mark.compat

CHECKS = {
    "openapi_version_available",
    "health_endpoint",
    "metadata_endpoint",
    "schema_endpoint",
    "mcp_endpoint",
    "mode_endpoint_consistency",
}

# The reference CLI's `validate` command, run once per URL in one process (its start-up is
# most of its time): each line printed is {"url", "exit_code", "output"}.
RUN_CLI = """
import json, sys
from typer.testing import CliRunner
from openenv.cli.__main__ import app
runner = CliRunner()
for url in sys.argv[1:]:
    done = runner.invoke(app, ["validate", "--url", url, "--json"])
    print(json.dumps({"url": url, "exit_code": done.exit_code, "output": done.output}))
"""


@pytest.fixture(scope="module")
def ref_bin() -> Path:
    return ensure_ref_venv().parent


@pytest.fixture(scope="module")
def catalog() -> Iterator[str]:
    with run_app_py(ROOT / "envs") as url:
        yield url


def env_urls(catalog: str) -> list[str]:
    names = [entry["name"] for entry in httpx.get(catalog + "/api/envs", timeout=30).json()]
    assert len(names) == len(list((ROOT / "envs").glob("*_env/openenv.yaml")))
    return [f"{catalog}/envs/{name}" for name in names]


def test_the_reference_cli_passes_a_catalog_mount(ref_bin: Path, catalog: str) -> None:
    done = subprocess.run(
        [str(ref_bin / "openenv"), "validate", "--url", catalog + "/envs/grid_world"],
        cwd=ref_bin, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for check in CHECKS:
        assert f"PASS  {check}" in done.stdout
    assert "Verdict: PASS" in done.stdout


def test_the_reference_validator_passes_every_env_server(ref_bin: Path, catalog: str) -> None:
    urls = env_urls(catalog)
    done = subprocess.run(
        [str(ref_bin / "python"), "-c", RUN_CLI, *urls],
        cwd=ref_bin, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["url"] for r in results] == urls
    failures = {}
    for result in results:
        report = json.loads(result["output"])
        failed = {c["id"] for c in report["criteria"] if not c["passed"]}
        assert {c["id"] for c in report["criteria"]} == CHECKS
        if result["exit_code"] != 0 or failed:
            failures[result["url"]] = sorted(failed)
    assert failures == {}
