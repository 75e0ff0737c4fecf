"""Static graders: the files of the package, read without running its code."""

from __future__ import annotations

from typing import Any

from openenv.core.manifest import MANIFEST
from openenv.validation.graders.common import Subject, result
from openenv.validation.report import CheckResult
from openenv.validation.spec import MAX_EPISODE_TIMEOUT_S, MAX_ORACLE_TOLERANCE, MIN_FLOOR_MARGIN

REQUIRED = (
    "__init__.py",
    "models.py",
    "client.py",
    "server/__init__.py",
    "server/environment.py",
    "server/app.py",
)
RECOMMENDED = ("README.md", "server/oracle.py")
MANIFEST_KEYS = ("name", "version", "description")


def manifest(subject: Subject, evidence: Any = None) -> CheckResult:
    missing = [key for key in MANIFEST_KEYS if not getattr(subject.manifest, key)]
    ev = [MANIFEST]
    if missing:
        return result(
            "static.manifest",
            "fail",
            f"{MANIFEST} lacks {', '.join(missing)}",
            evidence=ev,
            remediation=f"add {', '.join(missing)} to {MANIFEST}",
        )
    version = subject.manifest.version
    return result("static.manifest", "pass", f"{subject.name} {version}", evidence=ev)


def layout(subject: Subject, evidence: Any = None) -> CheckResult:
    missing = [p for p in REQUIRED if not (subject.path / p).exists()]
    absent = [p for p in RECOMMENDED if not (subject.path / p).exists()]
    if missing:
        return result(
            "static.layout",
            "fail",
            f"missing {', '.join(missing)}",
            evidence=missing,
            remediation="see `openenv init` for the shape of an env package",
        )
    if absent:
        return result(
            "static.layout",
            "fail",
            f"no {', '.join(absent)}",
            evidence=absent,
            remediation=f"add {', '.join(absent)}",
        )
    return result("static.layout", "pass", "models, client, server, oracle and README")


def resource_declaration(subject: Subject, evidence: Any = None) -> CheckResult:
    spec = subject.spec
    ev = [f"{MANIFEST}: validation"]
    if not spec.declared:
        return result(
            "static.resource_declaration",
            "skip",
            "no `validation:` block: default resources assumed",
            evidence=ev,
            remediation="declare validation.reward and validation.resources in openenv.yaml",
            **spec.effective_resources.model_dump(),
        )
    problems = list(spec.errors)
    if spec.resources is None:
        problems.append("validation.resources is missing")
    if (spec.oracle_tolerance or 0.0) > MAX_ORACLE_TOLERANCE:
        problems.append(f"oracle_tolerance {spec.oracle_tolerance} > {MAX_ORACLE_TOLERANCE}")
    if spec.floor_margin is not None and spec.floor_margin < MIN_FLOOR_MARGIN:
        problems.append(f"floor_margin {spec.floor_margin} < {MIN_FLOOR_MARGIN}")
    timeout = spec.effective_resources.episode_timeout_s
    if timeout > MAX_EPISODE_TIMEOUT_S:
        problems.append(f"episode_timeout_s {timeout} > {MAX_EPISODE_TIMEOUT_S}")
    measured = spec.effective_resources.model_dump()
    if problems:
        return result(
            "static.resource_declaration",
            "fail",
            "; ".join(problems),
            evidence=ev,
            remediation="fix the validation block within the policy bounds",
            **measured,
        )
    return result(
        "static.resource_declaration", "pass", "declared within bounds", evidence=ev, **measured
    )


GRADERS = {
    "static.manifest": manifest,
    "static.layout": layout,
    "static.resource_declaration": resource_declaration,
}
