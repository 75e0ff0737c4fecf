"""What every grader reads and how it answers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openenv.core.manifest import Manifest
from openenv.validation.report import CheckResult, Status
from openenv.validation.spec import ValidationSpec


@dataclass(frozen=True)
class Subject:
    """The package under validation, as files say it is (no package code ran to make this)."""

    name: str
    package: str
    path: Path
    manifest: Manifest
    spec: ValidationSpec


def result(
    check_id: str,
    status: Status,
    summary: str,
    *,
    evidence: list[str] | None = None,
    remediation: str | None = None,
    **measured: Any,
) -> CheckResult:
    """A CheckResult; keyword arguments beyond these are the measured values."""
    return CheckResult(
        check_id=check_id,
        status=status,
        summary=summary,
        measured=measured,
        evidence=evidence or [],
        remediation=remediation if status != "pass" else None,
    )
