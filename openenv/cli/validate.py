"""``openenv validate PATH``: the RFC 008 check list over one env package, in-process.

The work is done by :mod:`openenv.validation` (manifest -> runtime evidence -> graders ->
report); this module turns its report into the CLI's aligned list, each line naming the
evidence it was judged on. ``--level`` (``openenv`` 0.10's levels) stops early: ``static``
reads files only, ``runtime`` adds the episodes and probes, ``semantic`` (the default) adds the
oracle, floor, canaries, leakage, verifier and replay checks.
"""

from __future__ import annotations

import json
from pathlib import Path

from openenv.cli.report import Report
from openenv.core.registry import EnvPackage, read_package
from openenv.validation import ValidationReport, validate


def validate_package(
    entry: EnvPackage,
    level: str = "semantic",
    evidence_dir: Path | None = None,
    record: bool = False,
    docker: bool = False,
) -> Report:
    """Run the checks of ``level`` on one package; the CLI report of the run. ``record``
    writes the verdict the package ships (``validation/verdict.json``, shown by the catalog
    and the playground's header). ``docker`` runs the runtime checks against the package's
    image in a container; no engine or a failed build is a :class:`CliError`."""
    from openenv.cli.ui import CliError
    from openenv.core.errors import ProviderError

    try:
        found = validate(entry, level, evidence_dir, docker=docker)
    except ProviderError as exc:
        raise CliError(f"--docker: {exc}") from None
    report = as_cli_report(found)
    if record:
        if entry.path is None:
            raise ValueError("--record needs an environment package (a directory)")
        from openenv.validation.verdict import write_verdict

        where = write_verdict(entry.path, found)
        report.notes.append(f"Recorded: {where}")
    return report


def as_cli_report(found: ValidationReport) -> Report:
    """The CLI's view of a validation report: one line per check, verdict as exit code."""
    report = Report(f"{found.package} ({found.target}) at level {found.level}")
    for item in found.results:
        detail = item.summary
        if item.evidence:
            detail += f"  [evidence: {', '.join(item.evidence[:3])}]"
        if item.remediation:
            detail += f"  -> {item.remediation}"
        outcome = item.outcome
        status = "skip" if item.status == "skip" else "pass" if outcome == "pass" else outcome
        report.add(item.check_id, status, detail)
    report.verdict = found.verdict
    report.data = found.to_json()
    if found.provider == "docker":
        report.notes.append(
            "Runtime checks ran against the package's container (evidence container.json: "
            "startup time, docker inspect limits, docker diff); the oracle's, random, null and "
            "canary episodes in this process. Container and image were removed."
        )
    return report


def validate_path(path: Path, level: str = "semantic") -> Report:
    """Validate the environment package at ``path``."""
    return validate_package(read_package(path), level)


def report_json(report: Report) -> str:
    """The full validation report (every check's measured values and evidence) as JSON."""
    return json.dumps(report.data, indent=2, sort_keys=True)
