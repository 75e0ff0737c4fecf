"""Our validator at its highest level (semantic) over every env package in envs/, in-process.

Every env passes: its oracle reaches the declared maximum, random and null policies stay below
it, canaries score at the floor, and seeded episodes replay exactly; the verdict each package
ships (``validation/verdict.json``, on the catalog card and the playground header) is the one
this run finds. An env whose extra is not
installed here is validated as far as its files go, and its runtime checks say why they skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openenv.core.registry import discover
from openenv.validation import validate
from openenv.validation.checks import CHECKS
from openenv.validation.verdict import read_verdict, verdict_of

ENVS = Path(__file__).resolve().parent.parent / "envs"


@pytest.mark.parametrize("package", discover(ENVS), ids=lambda p: p.package)
def test_every_env_passes_our_validator_at_its_highest_level(package) -> None:
    report = validate(package, "semantic")
    failed = [f"{r.check_id}: {r.summary}" for r in report.results if r.outcome == "fail"]
    assert not failed, "\n".join(failed)
    assert [r.check_id for r in report.results] == [c.id for c in CHECKS]
    # the verdict it ships (shown by the catalog and the playground) is this run's
    shipped = read_verdict(package.path)
    again = f"re-record it: openenv validate envs/{package.package} --record"
    assert shipped is not None, f"{package.package} ships no validation/verdict.json: {again}"
    if not any(r.status == "skip" for r in report.results):  # all it needs is installed here
        assert shipped.comparable() == verdict_of(report).comparable(), f"out of date: {again}"
    oracle = report.result("semantic.oracle_max")
    assert oracle is not None and (
        oracle.status == "pass"
        or "cannot run here" in oracle.summary
        or "did not run here" in oracle.summary
    ), oracle.summary
    for result in report.results:
        if result.status == "skip":
            assert result.summary and result.remediation, result.check_id
