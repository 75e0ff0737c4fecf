"""The verdict a package ships (``validation/verdict.json``): written by ``openenv validate
--record``, read back as it was, and never trusted when it is malformed or oversized."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openenv.validation.report import CheckResult, ValidationReport
from openenv.validation.verdict import (
    MAX_BYTES,
    VERDICT_FILE,
    read_verdict,
    verdict_for_class,
    write_verdict,
)


def report(*outcomes: tuple[str, str]) -> ValidationReport:
    """A report with these (check id, status) results; the check list says their severity."""
    return ValidationReport(
        target="in-process",
        package="x_env",
        level="semantic",
        results=[CheckResult(check_id=cid, status=status, summary="s") for cid, status in outcomes],
    )


def test_a_written_verdict_reads_back_with_its_warnings(tmp_path: Path) -> None:
    found = report(
        ("static.manifest", "pass"),
        ("runtime.trajectory_record", "fail"),  # a warn-severity check
        ("semantic.oracle_max", "pass"),
    )
    write_verdict(tmp_path, found)
    shipped = read_verdict(tmp_path)
    assert shipped is not None
    assert shipped.comparable() == {
        "verdict": "warn",
        "level": "semantic",
        "checks": 3,
        "warnings": ["runtime.trajectory_record"],
        "failures": [],
    }
    assert shipped.label == "✓ validated, 1 warning"
    assert "level semantic: 3 checks" in shipped.title


def test_a_failed_verdict_says_so(tmp_path: Path) -> None:
    write_verdict(tmp_path, report(("semantic.oracle_max", "fail")))
    shipped = read_verdict(tmp_path)
    assert shipped is not None and shipped.verdict == "fail"
    assert shipped.label.startswith("✗") and "semantic.oracle_max" in shipped.title


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps(["pass"]),
        json.dumps({"verdict": "great", "level": "semantic", "checks": 3}),
        json.dumps({"verdict": "pass", "level": "semantic", "checks": "many"}),
        json.dumps({"verdict": "pass", "level": "semantic", "checks": True}),
        json.dumps({"verdict": "pass", "checks": 3}),
    ],
)
def test_a_malformed_file_is_no_verdict(tmp_path: Path, content: str) -> None:
    (tmp_path / "validation").mkdir()
    (tmp_path / VERDICT_FILE).write_text(content)
    assert read_verdict(tmp_path) is None


def test_an_oversized_file_or_none_is_no_verdict(tmp_path: Path) -> None:
    assert read_verdict(tmp_path) is None and read_verdict(None) is None
    (tmp_path / "validation").mkdir()
    big = {"verdict": "pass", "level": "semantic", "checks": 1, "pad": "x" * MAX_BYTES}
    (tmp_path / VERDICT_FILE).write_text(json.dumps(big))
    assert read_verdict(tmp_path) is None


def test_an_envs_class_finds_its_packages_verdict() -> None:
    from grid_world_env.server.environment import GridWorldEnvironment

    shipped = verdict_for_class(GridWorldEnvironment)
    assert shipped is not None and shipped.level == "semantic"
    assert verdict_for_class(ValidationReport) is None  # not an env package's class
