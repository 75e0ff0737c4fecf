"""Check results and the validation report (JSON, schema version ``"openenv-playground/1"``).

A grader returns a :class:`CheckResult`: a status, the values it measured, evidence lines that
name the evidence files they come from (``episodes/oracle.json``), and a remediation when it did
not pass. The verdict is decided by the severity policy in :mod:`openenv.validation.checks`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openenv.validation.checks import BY_ID

Status = Literal["pass", "fail", "skip", "error"]
Verdict = Literal["pass", "warn", "fail"]
REPORT_SCHEMA_VERSION = "openenv-playground/1"


class CheckResult(BaseModel):
    """One check's finding. ``evidence`` lines name the bundle files they were read from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check_id: str = Field(pattern=r"^[a-z_]+\.[a-z_]+$")
    status: Status
    summary: str
    measured: dict[str, Any] = Field(default_factory=dict)
    evidence: list[str] = Field(default_factory=list)
    remediation: str | None = None
    duration_s: float = Field(default=0.0, ge=0.0)

    @property
    def severity(self) -> str:
        return BY_ID[self.check_id].severity

    @property
    def outcome(self) -> Verdict:
        """What this result does to the verdict: a skip or a warn-severity failure warns."""
        if self.status == "pass":
            return "pass"
        if self.status == "skip":
            return "warn"
        return "fail" if self.severity == "fail" else "warn"


class ValidationReport(BaseModel):
    """One run over one package: what ran, at which level, every result and the verdict."""

    model_config = ConfigDict(extra="forbid")

    report_schema_version: str = REPORT_SCHEMA_VERSION
    target: str
    package: str
    level: str
    provider: str = "in-process"
    manifest: dict[str, Any] = Field(default_factory=dict)
    results: list[CheckResult] = Field(default_factory=list)
    evidence_dir: str | None = None

    @property
    def verdict(self) -> Verdict:
        outcomes = {result.outcome for result in self.results}
        return "fail" if "fail" in outcomes else "warn" if "warn" in outcomes else "pass"

    @property
    def exit_code(self) -> int:
        return 1 if self.verdict == "fail" else 0

    def result(self, check_id: str) -> CheckResult | None:
        """The result of ``check_id`` in this run, if it ran."""
        return next((r for r in self.results if r.check_id == check_id), None)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data, verdict included."""
        return {**self.model_dump(mode="json"), "verdict": self.verdict}
