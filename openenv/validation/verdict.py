"""The verdict a package ships: ``validation/verdict.json``, what ``openenv validate PATH
--record`` found when the package was last validated (level, checks, the verdict and the ids of
the checks that warned or failed).

The catalog's card and the playground's header show it, so a visitor sees whether an env passed
the RFC 008 check list before playing it. It is a record, not a promise: the test suite
validates every env of this repository again and fails when a shipped verdict is out of date.
Reading never raises: a missing, oversized or malformed file is no verdict.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openenv.validation.report import ValidationReport

VERDICT_FILE = "validation/verdict.json"
MAX_BYTES = 64 * 1024
VERDICTS = ("pass", "warn", "fail")


@dataclass(frozen=True)
class ShippedVerdict:
    """A package's recorded verdict."""

    verdict: str
    level: str
    checks: int
    warnings: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    validator: str = ""

    @property
    def label(self) -> str:
        """A few words for a badge: ``✓ validated``, ``✓ validated, 2 warnings``, ``✗ …``."""
        if self.verdict == "fail":
            return f"✗ validation failed ({len(self.failures)})"
        if self.warnings:
            n = len(self.warnings)
            return f"✓ validated, {n} warning{'s' if n != 1 else ''}"
        return "✓ validated"

    @property
    def title(self) -> str:
        """The badge's tooltip: what ran and what it said."""
        parts = [f"openenv validate (RFC 008), level {self.level}: {self.checks} checks"]
        if self.failures:
            parts.append("failed: " + ", ".join(self.failures))
        if self.warnings:
            parts.append("warnings: " + ", ".join(self.warnings))
        if self.validator:
            parts.append(f"by {self.validator}")
        return "; ".join(parts)

    def comparable(self) -> dict[str, Any]:
        """What a new run must reproduce (the validator's version left out)."""
        return {
            "verdict": self.verdict,
            "level": self.level,
            "checks": self.checks,
            "warnings": list(self.warnings),
            "failures": list(self.failures),
        }


def verdict_of(report: ValidationReport) -> ShippedVerdict:
    """The verdict to record for ``report``."""
    return ShippedVerdict(
        verdict=report.verdict,
        level=report.level,
        checks=len(report.results),
        warnings=tuple(sorted(r.check_id for r in report.results if r.outcome == "warn")),
        failures=tuple(sorted(r.check_id for r in report.results if r.outcome == "fail")),
        validator=_validator(),
    )


def write_verdict(package_root: Path, report: ValidationReport) -> Path:
    """Write ``report``'s verdict to ``package_root/validation/verdict.json``; its path."""
    found = verdict_of(report)
    path = package_root / VERDICT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {**found.comparable(), "validator": found.validator}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def read_verdict(package_root: Path | None) -> ShippedVerdict | None:
    """The verdict ``package_root`` ships, or None (no file, or one that cannot be trusted)."""
    if package_root is None:
        return None
    path = package_root / VERDICT_FILE
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("verdict") not in VERDICTS:
        return None
    checks, level = data.get("checks"), data.get("level")
    if not isinstance(checks, int) or isinstance(checks, bool) or not isinstance(level, str):
        return None
    return ShippedVerdict(
        verdict=data["verdict"],
        level=level[:20],
        checks=checks,
        warnings=_ids(data.get("warnings")),
        failures=_ids(data.get("failures")),
        validator=str(data.get("validator") or "")[:80],
    )


def verdict_for_class(env_cls: type) -> ShippedVerdict | None:
    """The verdict of the package that defines ``env_cls`` (its ``openenv.yaml`` is found up
    to three folders above the module), or None."""
    module = sys.modules.get(env_cls.__module__)
    where = getattr(module, "__file__", None)
    if not where:
        return None
    for folder in list(Path(where).resolve().parents)[:3]:
        if (folder / "openenv.yaml").is_file():
            return read_verdict(folder)
    return None


def _ids(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(str(item)[:60] for item in value[:50] if isinstance(item, str))


def _validator() -> str:
    try:
        return f"openenv-playground {metadata.version('openenv-playground')}"
    except metadata.PackageNotFoundError:
        return "openenv-playground"
