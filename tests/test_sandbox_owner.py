"""Nothing outlives its owner or hangs its finalizer.

One script plays a notebook that drives the five code-running envs in-process: it creates each env,
starts its sandbox (a step) and drops it without ``close()``, again and again (20 times each; 5 for
jupyter, whose kernel takes a second or more to start), collecting garbage and importing a module in
between (the moment a blocking finalizer would hang the process). Then it closes one env twice
(idempotent, bounded), keeps one of each running, and waits to be killed. The test SIGKILLs it and
checks that no process, kernel, cgroup or temporary directory of it is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from openenv.sandbox import cgroups

pytest.importorskip("jupyter_client")

OWNER = r"""
import gc, importlib, json, os, sys, time
from coding_env import CodeAction
from coding_env.server.environment import CodingEnvironment
from git_env import GitAction
from git_env.server.environment import GitEnvironment
from jupyter_env import CallToolAction
from jupyter_env.server.environment import JupyterEnvironment
from openenv.sandbox import SandboxLimits
from repl_env import REPLAction
from repl_env.server.environment import REPLEnvironment
from terminus_env.server.environment import TerminusEnvironment

LIMITS = SandboxLimits(memory_mb=256, timeout_s=30)


def cell(code):
    return CallToolAction(tool_name="add_and_execute_code_cell", arguments={"code": code})


def started(make, act):
    env = make()
    env.reset()
    env.step(act)
    return env


KINDS = {
    "coding": (20, lambda: started(lambda: CodingEnvironment(LIMITS), CodeAction(code="x = 1"))),
    "repl": (20, lambda: started(lambda: REPLEnvironment(LIMITS), REPLAction(code="x = 1"))),
    "terminus": (20, lambda: started(
        lambda: TerminusEnvironment(LIMITS),
        CallToolAction(tool_name="terminal", arguments={"command": "true"}),
    )),
    "git": (20, lambda: started(
        lambda: GitEnvironment(LIMITS), GitAction(action_type="run_command", command="true")
    )),
    "jupyter": (5, lambda: started(lambda: JupyterEnvironment(LIMITS), cell("1 + 1"))),
}


def launchers():
    # the sandboxes' launchers are this process's children
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            if int(fields[1]) == os.getpid() and fields[0] not in (b"Z", b"X"):
                found.append(int(pid))
        except OSError:
            continue
    return found


report = {"owner": os.getpid(), "drops": {}}
for name, (times, make) in KINDS.items():
    started_at = time.monotonic()
    for _ in range(times):
        env = make()
        del env  # dropped without close()
        gc.collect()
        importlib.import_module("json.decoder")  # where a blocking finalizer would hang
    report["drops"][name] = round(time.monotonic() - started_at, 2)
deadline = time.monotonic() + 30
while launchers() and time.monotonic() < deadline:
    time.sleep(0.05)
report["left_after_drops"] = launchers()
env = KINDS["coding"][1]()
started_at = time.monotonic()
env.close()
env.close()
report["close_twice_s"] = round(time.monotonic() - started_at, 2)
kept = [make() for _, make in KINDS.values()]  # running when the owner is killed
report["kept"] = launchers()
print(json.dumps(report), flush=True)
time.sleep(600)
"""


def _cmd_children(pids: list[int]) -> list[int]:
    """Which of ``pids`` still run (not zombies)."""
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    alive.append(pid)
        except OSError:
            continue
    return alive


def _namespaces(pids: list[int]) -> set[str]:
    found = set()
    for pid in pids:
        try:
            found.add(os.readlink(f"/proc/{pid}/ns/pid_for_children"))
            found.add(os.readlink(f"/proc/{pid}/ns/mnt"))
        except OSError:
            continue
    return found


def _members(namespaces: set[str]) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            links = {os.readlink(f"/proc/{pid}/ns/{k}") for k in ("mnt", "pid")}
        except OSError:
            continue
        if links & namespaces:
            found.append(int(pid))
    return found


def _cgroups_of(owner: int) -> list[str]:
    layout = cgroups._layout()
    if layout is None:
        return []
    found = []
    for base in layout[1].values():
        found += [n for n in os.listdir(base) if n.startswith(f"{cgroups.PREFIX}{owner}-")]
    return found


def test_dropped_envs_free_everything_and_an_owner_s_death_leaves_nothing() -> None:
    tmp_before = {n for n in os.listdir("/tmp") if n.startswith("openenv-")}
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = owner.stdout.readline()  # the script prints once everything is running
        if not line:
            owner.wait(timeout=30)
            pytest.fail(f"the owner script ended early: {owner.stderr.read()[-3000:]}")
        report = json.loads(line)
        print(report)
        assert report["left_after_drops"] == []  # every dropped sandbox ended by itself
        assert report["close_twice_s"] < 10
        kept = report["kept"]
        assert len(kept) == 5  # one running sandbox per env
        namespaces = _namespaces(kept)
        assert _members(namespaces)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=30)
        deadline = time.monotonic() + 30
        while (_cmd_children(kept) or _members(namespaces)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _cmd_children(kept) == [] and _members(namespaces) == []
        while _cgroups_of(report["owner"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _cgroups_of(report["owner"]) == []
        tmp_after = {n for n in os.listdir("/tmp") if n.startswith("openenv-")}
        assert not {n for n in tmp_after - tmp_before if n.startswith("openenv-code-")}
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait(timeout=30)
