"""RFC 008 validation of an environment package, in our own words.

Pure manifest parser (:mod:`.spec`) -> runner with the in-process provider (:mod:`.runner`,
:mod:`.play`, :mod:`.probes`) -> immutable evidence (:mod:`.evidence`) -> graders
(:mod:`.graders`, pure functions of the evidence) -> the severity policy and report
(:mod:`.checks`, :mod:`.report`). Each env ships its oracle in ``server/oracle.py``
(:mod:`.oracle`). Entry point: :func:`validate`; with ``docker=True`` the runtime checks run
against the package's own image in a container (:mod:`.container`).
"""

from __future__ import annotations

import time
from pathlib import Path

from openenv.core.registry import EnvPackage
from openenv.validation.checks import CHECKS, LEVELS, checks_up_to
from openenv.validation.evidence import Evidence, write_bundle
from openenv.validation.graders import GRADERS, Subject
from openenv.validation.report import CheckResult, ValidationReport
from openenv.validation.spec import ValidationSpec, read_spec

__all__ = ["CHECKS", "LEVELS", "CheckResult", "ValidationReport", "validate"]


def validate(
    entry: EnvPackage,
    level: str = "semantic",
    evidence_dir: Path | None = None,
    *,
    docker: bool = False,
) -> ValidationReport:
    """Validate one env package up to ``level``; write the evidence bundle to ``evidence_dir``.

    ``docker``: build the package's image and run the runtime checks against its container
    (raises :class:`~openenv.core.errors.ProviderError` when no engine answers or the image
    does not build; a container that does not start fails ``runtime.startup``)."""
    checks = checks_up_to(level)
    spec = read_spec(entry.path)
    subject = Subject(entry.name, entry.package, entry.path, entry.manifest, spec)
    report = ValidationReport(
        target=str(entry.path),
        package=entry.package,
        level=level,
        manifest=spec.model_dump(mode="json"),
    )
    static = [c for c in checks if c.level == "static"]
    report.results.extend(_grade(c.id, subject, None) for c in static)
    layout = report.result("static.layout")
    if level == "static" or (layout is not None and "missing" in layout.summary):
        return report
    from openenv.validation.runner import collect

    if docker:
        evidence = _in_container(entry, spec, level)
        report.provider = "docker"
    else:
        evidence = collect(entry, spec, level)
    report.results.extend(_grade(c.id, subject, evidence) for c in checks if c.level != "static")
    if evidence_dir is not None:
        report.evidence_dir = str(evidence_dir)
        write_bundle(evidence_dir, evidence, report.to_json())
    return report


def _in_container(entry: EnvPackage, spec: ValidationSpec, level: str) -> Evidence:
    from dataclasses import replace

    from openenv.validation.container import package_container
    from openenv.validation.runner import collect

    with package_container(entry, spec) as box:
        if box.url is None:
            reason = f"the package's container did not start: {box.error}"
            return Evidence(entry.package, "?", {}, skipped=reason, container=box.finish())
        evidence = collect(entry, spec, level, url=box.url)
        return replace(evidence, container=box.finish())


def _grade(check_id: str, subject: Subject, evidence: Evidence | None) -> CheckResult:
    start = time.perf_counter()
    try:
        found = GRADERS[check_id](subject, evidence)
    except Exception as exc:  # a grader crash fails closed, with what crashed
        found = CheckResult(
            check_id=check_id,
            status="error",
            summary=f"the grader raised {type(exc).__name__}: {exc}",
        )
    return found.model_copy(update={"duration_s": round(time.perf_counter() - start, 4)})
