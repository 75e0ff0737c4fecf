"""The startup heap is frozen once, when the process's first app starts (full collections skip
it), unless OPENENV_GC_FREEZE turns it off; frozen objects are still freed by reference
counting. Run in a fresh interpreter: the freeze is once per process."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import gc, os, weakref
from fastapi.testclient import TestClient
from grid_world_env.server.environment import GridWorldEnvironment
from openenv.server import create_app
from openenv.server.heap import freeze_startup_heap

class Thing:
    pass

thing = Thing()
gone = weakref.ref(thing)
app = create_app(GridWorldEnvironment, enable_web=False)
assert gc.get_freeze_count() == 0
with TestClient(app):  # the lifespan runs
    frozen = gc.get_freeze_count()
del thing  # reference counting frees it, frozen or not
print(frozen, gone() is None, freeze_startup_heap())
"""


def run(env_value: str | None) -> list[str]:
    env = dict(os.environ)
    env.pop("OPENENV_GC_FREEZE", None)
    if env_value is not None:
        env["OPENENV_GC_FREEZE"] = env_value
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_first_app_to_start_freezes_the_heap_once() -> None:
    frozen, freed, again = run(None)
    assert int(frozen) > 1000 and freed == "True" and again == "False"


def test_it_can_be_turned_off() -> None:
    frozen, _, again = run("0")
    assert frozen == "0" and again == "False"
