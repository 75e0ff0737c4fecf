"""Runtime plans: the episode the reference's ``openenv validate PACKAGE`` plays over ``/ws``.

A plan (``validation/runtime.json`` in the package, ``plan_schema_version`` "1") is data: one
seeded reset and up to 100 actions, applied in order until the episode ends. It is made here by
playing the environment in this process from the same seed, each action one of the env's own
legal actions at that point (a seeded choice among them), so the plan replays exactly over the
wire against an environment whose ``reset(seed=...)`` makes episodes reproducible.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from openenv.core.registry import EnvPackage, read_package

PLAN_PATH = "validation/runtime.json"
PLAN_SCHEMA_VERSION = "1"
PLAN_SEED = 0
PLAN_ACTIONS = 12  # short: validation plays it inside every package's CI budget


class PlanError(Exception):
    """No plan can be played; the message says what the environment lacks."""


def episode_id(entry: EnvPackage) -> str:
    """The episode id a package's plan asks for (checked back through ``state``)."""
    return f"validation-{entry.name}"


def play_plan(entry: EnvPackage, *, seed: int = PLAN_SEED, limit: int = PLAN_ACTIONS) -> dict:
    """Play ``entry`` in this process from ``seed`` with its legal actions; return the plan."""
    env = entry.environment_class()()
    action_type = entry.action_class()
    rng = random.Random(seed)
    actions: list[dict[str, Any]] = []
    try:
        observation = env.reset(seed=seed, episode_id=episode_id(entry))
        while len(actions) < limit and not observation.done:
            choices = env.legal_actions()
            if not choices:
                break
            fields = choices[rng.randrange(len(choices))].fields()
            actions.append(fields)
            observation = env.step(action_type.model_validate(fields))
    finally:
        env.close()
    if not actions:
        raise PlanError(
            f"{entry.name} offers no legal action after reset(seed={seed}): implement "
            "legal_actions(), or write validation/runtime.json by hand"
        )
    return {
        "plan_schema_version": PLAN_SCHEMA_VERSION,
        "reset": {"episode_id": episode_id(entry), "seed": seed, "options": {}},
        "actions": actions,
    }


def write_plan(env_dir: Path, plan: dict | None = None) -> Path:
    """Write ``env_dir/validation/runtime.json`` (played here unless ``plan`` is given)."""
    entry = read_package(env_dir)
    path = Path(env_dir) / PLAN_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    plan = plan if plan is not None else play_plan(entry)
    path.write_text(json.dumps(plan, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
