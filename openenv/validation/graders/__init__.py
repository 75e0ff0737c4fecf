"""Graders: pure functions of (subject, evidence) -> CheckResult, one per check id.

A grader never steps an environment; it reads what :mod:`openenv.validation.runner` recorded.
Adding a check adds a grader here and a row in :mod:`openenv.validation.checks`.
"""

from __future__ import annotations

from collections.abc import Callable

from openenv.validation.graders import runtime, semantic, static
from openenv.validation.graders.common import Subject
from openenv.validation.report import CheckResult

Grader = Callable[..., CheckResult]

GRADERS: dict[str, Grader] = {
    **static.GRADERS,
    **runtime.GRADERS,
    **semantic.GRADERS,
}

__all__ = ["GRADERS", "Grader", "Subject"]
