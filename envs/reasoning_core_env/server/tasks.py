"""Which reasoning-core tasks this env offers, and the area each belongs to.

The roster is reasoning-core's own (``list_tasks()``, read without importing a generator), less
the tasks that fetch data from the network when they generate (Metamath's databases): the
server is offline. ``DEFAULT_MIX`` is what a reset without ``task`` draws from: logic,
mathematics and planning, a few of each.
"""

from __future__ import annotations

import difflib
import functools

from reasoning_core import list_tasks
from reasoning_core.registry import AREAS

from openenv.core import InvalidAction

MAX_NAME_CHARS = 64  # a longer name is refused before it is compared with the roster
NEEDS_NETWORK = frozenset({"metamath_entailment", "metamath_core_select"})
DEFAULT_MIX = (
    "logic_qa", "multistep_nli", "logic_derivation",  # logic
    "arithmetics", "equation_system", "combinatorics_formula",  # mathematics
    "planning", "graph_pathfinding", "grid_navigation",  # planning
)  # fmt: skip


@functools.cache
def offered() -> tuple[str, ...]:
    """Every task a reset may ask for."""
    return tuple(name for name in list_tasks() if name not in NEEDS_NETWORK)


def area_of(task: str) -> str:
    """The capability area reasoning-core files ``task`` under ("" when it files it nowhere)."""
    return next((area for area, names in AREAS.items() if task in names), "")


def check_task(task: str) -> str:
    """``task`` when it is offered; InvalidAction with close names otherwise."""
    if task in offered():
        return task
    if len(task) > MAX_NAME_CHARS:
        raise InvalidAction(f"a task name has at most {MAX_NAME_CHARS} characters")
    if task in NEEDS_NETWORK:
        raise InvalidAction(f"{task} downloads its data when it generates; this server is offline")
    close = difflib.get_close_matches(task, offered(), n=3)
    hint = f"did you mean {', '.join(close)}?" if close else f"e.g. {', '.join(DEFAULT_MIX[:4])}"
    raise InvalidAction(f"unknown reasoning-core task {task!r}: {hint}")
