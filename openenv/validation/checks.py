"""The RFC 008 check list: every check id, its level and what its failure costs.

This table is our severity policy, written once: graders only say *pass*, *fail*, *skip* or
*error*; whether a failure blocks validation (``fail``) or only warns (``warn``) is decided here.
Levels nest: ``static`` reads files only, ``runtime`` plays episodes, ``semantic`` judges them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["fail", "warn"]
LEVELS = ("static", "runtime", "semantic")


@dataclass(frozen=True)
class Check:
    """One check of the list: its id (``level.name``), level, severity and a one-line purpose."""

    id: str
    severity: Severity
    purpose: str

    @property
    def level(self) -> str:
        return self.id.split(".", 1)[0]


CHECKS: tuple[Check, ...] = (
    # warn: openenv 0.10's manifests (spec_version, name, app, port) name no version or description
    Check("static.manifest", "warn", "openenv.yaml names the env, its version and description"),
    Check("static.layout", "warn", "the package has the files of an env package"),
    Check("static.resource_declaration", "fail", "declared resources are within policy bounds"),
    Check("runtime.client", "fail", "the typed client subclasses EnvClient[Action, Obs, State]"),
    Check("runtime.contract", "fail", "check_env: the Environment contract holds"),
    Check("runtime.startup", "fail", "the server app answers /health, /metadata, /schema, /mcp"),
    Check("runtime.reward_well_formed", "fail", "every reward is finite and in the declared range"),
    Check("runtime.seed_control", "fail", "reset(seed) controls the episode's randomness"),
    Check("runtime.episode_determinism", "fail", "same seed and actions: same trajectory"),
    Check("runtime.episode_isolation", "fail", "two sessions cannot see or move each other"),
    Check("runtime.host_containment", "fail", "episodes write nothing outside their sandbox"),
    Check("runtime.resource_bounds", "fail", "declared limits are what the server enforces"),
    Check("runtime.trajectory_record", "warn", "an episode is recorded step by step as JSON"),
    Check("runtime.tool_declaration_accuracy", "fail", "declared tools == /mcp tools/list"),
    Check("runtime.how_to_play", "warn", "the env tells a visitor what to do in one line"),
    Check("semantic.oracle_max", "fail", "the env's oracle reaches the declared maximum"),
    Check("semantic.floor_gap", "fail", "random and null policies score floor_margin below it"),
    Check("semantic.canary_floor", "fail", "known-bad behaviours score at the floor"),
    Check("semantic.no_solution_leakage", "fail", "observations never carry the answer"),
    Check("semantic.verifier_determinism", "fail", "the same episode is always scored the same"),
    Check("semantic.resource_envelope", "fail", "measured time and memory fit the declaration"),
    Check("semantic.replayability", "fail", "a recorded episode replays to the same rewards"),
)

BY_ID = {check.id: check for check in CHECKS}


def checks_up_to(level: str) -> tuple[Check, ...]:
    """The checks a run at ``level`` performs (each level includes those before it)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    allowed = LEVELS[: LEVELS.index(level) + 1]
    return tuple(check for check in CHECKS if check.level in allowed)
