"""Reading an ORS source (``module:Class``): its splits, tasks, tools and first prompt."""

from __future__ import annotations

import asyncio
import importlib.util
from dataclasses import dataclass

from openenv.importers import SourceError
from openenv.importers.aio import resolve, run_on
from openenv.importers.ors_env import blocks_text, ors_class, split_names


@dataclass(frozen=True)
class OrsDescription:
    """What ``openenv import --type ors`` learned about a source."""

    module: str
    cls: str
    splits: dict[str, int]  # split -> number of tasks
    tools: list[tuple[str, str]]  # (name, description)
    first_prompt: str


def parse_source(source: str, env_class: str = "") -> tuple[str, str]:
    """``module:Class`` (or ``module`` with ``--env-class Class``) as (module, class)."""
    module, _, name = source.partition(":")
    name = name or env_class
    if not name:
        raise SourceError(
            f"name the ORS Environment class: {source}:ClassName (or --env-class ClassName)"
        )
    if not all(p.isidentifier() for p in module.split(".")) or not name.isidentifier():
        raise SourceError(f"{source!r} is not module:Class")
    if importlib.util.find_spec("ors") is None and importlib.util.find_spec("openreward") is None:
        raise SourceError(
            "importing ORS environments needs the `ors-sdk` package (or `openreward`), which "
            "is not installed here: pip install ors-sdk"
        )
    return module, name


def describe(source: str, env_class: str = "") -> OrsDescription:
    module, name = parse_source(source, env_class)
    cls = ors_class(module, name)
    loop = asyncio.new_event_loop()
    try:
        splits = {s: len(run_on(loop, resolve(cls.list_tasks(s)))) for s in split_names(cls)}  # type: ignore[attr-defined]
        if not any(splits.values()):
            raise SourceError(f"{source} has no tasks in any split")
        first = next(s for s, n in splits.items() if n)
        task = run_on(loop, resolve(cls.list_tasks(first)))[0]  # type: ignore[attr-defined]
        env = cls(task_spec=task, secrets={})
        prompt = blocks_text(run_on(loop, resolve(env.get_prompt())))
    finally:
        loop.close()
    tools = [(t.name, t.description) for t in cls.list_tools().tools]  # type: ignore[attr-defined]
    return OrsDescription(module, name, splits, tools, prompt)
