"""A validation report as the CLI prints it: named checks that pass, fail, warn or were
skipped, as one aligned list, and an exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from openenv.cli import ui

Status = Literal["pass", "fail", "warn", "skip"]

# How far `openenv validate --level` goes (openenv 0.10's names); each includes those before it.
LEVELS = ("static", "runtime", "semantic")


@dataclass
class Report:
    """Checks in the order they ran; ``exit_code`` is 1 when any failed."""

    subject: str
    checks: list[tuple[str, Status, str]] = field(default_factory=list)
    verdict: str | None = None  # the policy's verdict, when a validation report made this one
    data: dict[str, Any] = field(default_factory=dict)  # that report as JSON
    notes: list[str] = field(default_factory=list)  # printed after the verdict

    def add(self, name: str, status: Status, detail: str) -> None:
        self.checks.append((name, status, detail))

    def passed(self, name: str, detail: str) -> None:
        self.add(name, "pass", detail)

    def failed(self, name: str, detail: str) -> None:
        self.add(name, "fail", detail)

    def warned(self, name: str, detail: str) -> None:
        self.add(name, "warn", detail)

    @property
    def exit_code(self) -> int:
        return 1 if any(status == "fail" for _, status, _ in self.checks) else 0

    def print(self) -> None:
        ui.info(ui.bold(f"Validating {self.subject}"))
        width = max((len(name) for name, _, _ in self.checks), default=0)
        show = {"pass": ui.ok, "fail": ui.fail, "warn": ui.warn, "skip": ui.warn}
        for name, status, detail in self.checks:
            prefix = "skipped: " if status == "skip" else ""
            show[status](f"{name.ljust(width)}  {prefix}{detail}")
        failures = sum(status == "fail" for _, status, _ in self.checks)
        warnings = sum(status in ("warn", "skip") for _, status, _ in self.checks)
        if failures:
            ui.info(f"{failures} of {len(self.checks)} checks failed.")
        else:
            extra = f" ({warnings} warning{'s' * (warnings != 1)})" if warnings else ""
            ui.info(f"All {len(self.checks) - warnings} checks passed{extra}.")
        if self.verdict:
            ui.info(f"Verdict: {self.verdict.upper()}")
        for note in self.notes:
            ui.info(note)
