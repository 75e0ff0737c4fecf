"""Runtime graders: what the env and its server did in recorded episodes and probes."""

from __future__ import annotations

import json
import math

from openenv.validation.evidence import (
    ContainerRecord,
    EpisodeRecord,
    Evidence,
    comparable,
    to_json,
)
from openenv.validation.graders.common import Subject, result
from openenv.validation.report import CheckResult

NOT_RUN = "the environment did not run here"


def _skipped(check_id: str, evidence: Evidence) -> CheckResult | None:
    if evidence.skipped is None:
        return None
    return result(
        check_id,
        "skip",
        f"{NOT_RUN}: {evidence.skipped}",
        remediation="install what it needs, then validate again",
    )


def client(subject: Subject, evidence: Evidence) -> CheckResult:
    if evidence.client_error:
        return result(
            "runtime.client",
            "fail",
            evidence.client_error,
            remediation="export the typed client from the package's __init__.py",
        )
    return result("runtime.client", "pass", str(evidence.client))


def contract(subject: Subject, evidence: Evidence) -> CheckResult:
    if evidence.skipped is not None and evidence.environment == "?":
        status = "skip" if "unavailable" in evidence.skipped else "fail"
        return result(
            "runtime.contract",
            status,
            evidence.skipped,
            remediation="make server/environment.py importable",
        )
    record = evidence.contract
    assert record is not None
    ev = ["contract.json"]
    if record.error:
        return result(
            "runtime.contract",
            "fail",
            record.error,
            evidence=ev,
            remediation="fix the Environment contract breach named above",
        )
    detail = f"{evidence.environment} honours the contract"
    if record.notes:
        return result(
            "runtime.contract",
            "pass",
            f"{detail}; not checked: {'; '.join(record.notes)}",
            evidence=ev,
            notes=list(record.notes),
        )
    return result("runtime.contract", "pass", detail, evidence=ev)


def startup(subject: Subject, evidence: Evidence) -> CheckResult:
    box = evidence.container
    if box is not None and (box.startup_s is None or box.startup_s > box.startup_bound_s):
        took = (
            f"answered /health after {box.startup_s:g} s"
            if box.startup_s is not None
            else f"never answered /health ({box.error})"
        )
        return result(
            "runtime.startup",
            "fail",
            f"the container {took}; the bound is {box.startup_bound_s:g} s. Its log ends:\n"
            + _indent(box.logs_tail),
            evidence=["container.json"],
            remediation="make the image's server start faster (imports, model loads)",
            startup_s=box.startup_s,
        )
    if (skip := _skipped("runtime.startup", evidence)) is not None:
        return skip
    server = evidence.server
    assert server is not None
    ev = ["server.json"]
    if server.error:
        return result(
            "runtime.startup",
            "fail",
            f"{server.app}: {server.error}",
            evidence=ev,
            remediation="make server/app.py importable",
        )
    failing = [p for p in ("/health", "/metadata", "/schema") if server.statuses.get(p) != 200]
    measured = {"statuses": dict(server.statuses), "mcp": server.mcp_error or "tools/list"}
    if failing:
        return result(
            "runtime.startup",
            "fail",
            f"GET {', '.join(failing)} failed",
            evidence=ev,
            remediation="build the app with openenv.server.create_app",
            **measured,
        )
    web = "and /web/ answer" if server.statuses.get("/web/") == 200 else "answer (no /web/)"
    started = ""
    if box is not None:
        ev.insert(0, "container.json")
        measured["startup_s"] = box.startup_s
        started = (
            f"; the container answered /health {box.startup_s:g} s after it was started "
            f"(bound {box.startup_bound_s:g} s)"
        )
    return result(
        "runtime.startup",
        "pass",
        f"{server.app}: /health, /metadata, /schema {web}{started}",
        evidence=ev,
        **measured,
    )


def _indent(text: str, lines: int = 15) -> str:
    tail = text.strip().splitlines()[-lines:] or ["(nothing)"]
    return "\n".join(f"    | {line[:200]}" for line in tail)


def reward_well_formed(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.reward_well_formed", evidence)) is not None:
        return skip
    span = subject.spec.reward_range
    bad = []
    count = 0
    for episode in evidence.episodes.values():
        for i, step in enumerate(episode.played):
            count += 1
            r = step.reward
            if r is not None and (not math.isfinite(r) or (span and not span[0] <= r <= span[1])):
                bad.append(f"{episode.file} step {i}: reward {r}")
    where = f"in the declared range {list(span)}" if span else "finite (no range declared)"
    if bad:
        return result(
            "runtime.reward_well_formed",
            "fail",
            f"{len(bad)} rewards not {where}",
            evidence=bad[:5],
            remediation="keep every reward finite and in range",
            steps=count,
        )
    return result(
        "runtime.reward_well_formed", "pass", f"{count} step rewards, all {where}", steps=count
    )


def seed_control(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.seed_control", evidence)) is not None:
        return skip
    a, again, b = (evidence.episodes[n] for n in ("seed_a", "seed_a_again", "seed_b"))
    clock = evidence.oracle.wall_clock_fields
    ev = [a.file, again.file, b.file]
    if a.error or again.error:
        return result(
            "runtime.seed_control",
            "fail",
            a.error or again.error or "",
            evidence=ev,
            remediation="reset(seed=...) must start an episode",
        )
    same = comparable(a, clock)[0] == comparable(again, clock)[0]
    sensitive = comparable(a, clock) != comparable(b, clock)
    if not same:
        return result(
            "runtime.seed_control",
            "fail",
            f"reset(seed={a.seed}) twice differs",
            evidence=ev,
            remediation="draw all randomness from self.rng / np_random",
            seed_sensitive=sensitive,
        )
    detail = (
        "a different seed changes the episode"
        if sensitive
        else (
            "no seed-dependent randomness observed (the same episode for seeds "
            f"{a.seed} and {b.seed})"
        )
    )
    return result(
        "runtime.seed_control",
        "pass",
        f"reset(seed) reproduces; {detail}",
        evidence=ev,
        seed_sensitive=sensitive,
    )


def episode_determinism(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.episode_determinism", evidence)) is not None:
        return skip
    a, again = evidence.episodes["seed_a"], evidence.episodes["seed_a_again"]
    clock = list(evidence.oracle.wall_clock_fields)
    ev = [a.file, again.file]
    measured = {"steps": len(a.steps), "wall_clock_fields": clock}
    if not a.steps:
        return result(
            "runtime.episode_determinism",
            "fail",
            "no action to play: not checked",
            evidence=ev,
            remediation="offer legal_actions(), or example_actions() in server/oracle.py",
            **measured,
        )
    diff = _first_difference(comparable(a, clock), comparable(again, clock))
    if diff:
        return result(
            "runtime.episode_determinism",
            "fail",
            diff,
            evidence=ev,
            remediation="seed every random draw; declare timing fields in Oracle.wall_clock_fields",
            **measured,
        )
    note = f"; wall-clock fields not compared: {', '.join(clock)}" if clock else ""
    return result(
        "runtime.episode_determinism",
        "pass",
        f"seed {a.seed}: {len(a.steps)} steps replayed identically{note}",
        evidence=ev,
        **measured,
    )


def _first_difference(a: list, b: list) -> str | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            where = "the reset observation" if i == 0 else f"step {i - 1}"
            return (
                f"{where} differs: {json.dumps(x, default=str)[:160]} vs "
                f"{json.dumps(y, default=str)[:160]}"
            )
    if len(a) != len(b):
        return f"episodes of different lengths ({len(a) - 1} vs {len(b) - 1} steps)"
    return None


def episode_isolation(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.episode_isolation", evidence)) is not None:
        return skip
    if not evidence.concurrent_sessions:
        return result(
            "runtime.episode_isolation",
            "pass",
            "SUPPORTS_CONCURRENT_SESSIONS = False: a server hosts one session at a time",
        )
    clock = evidence.oracle.wall_clock_fields
    pairs = (("isolation_a", "seed_a"), ("isolation_b", "seed_b"))
    ev = [evidence.episodes[n].file for pair in pairs for n in pair]
    for mixed, alone in pairs:
        diff = _first_difference(
            comparable(evidence.episodes[mixed], clock), comparable(evidence.episodes[alone], clock)
        )
        if diff:
            return result(
                "runtime.episode_isolation",
                "fail",
                f"{mixed} (stepped alternately with another session) vs {alone}: {diff}",
                evidence=ev,
                remediation="keep episode state on the instance, never in module or class globals",
            )
    steps = len(evidence.episodes["isolation_a"].steps)
    return result(
        "runtime.episode_isolation",
        "pass",
        f"two sessions stepped alternately ({steps} steps each) match their solo runs",
        evidence=ev,
    )


def host_containment(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.host_containment", evidence)) is not None:
        return skip
    box = evidence.container
    if box is not None:
        return _container_containment(evidence, box)
    files = list(evidence.host.new_files)
    if files:
        return result(
            "runtime.host_containment",
            "fail",
            f"episodes left {len(files)} files in the package or working directory",
            evidence=["host.json", *files[:5]],
            remediation="write scratch files under tempfile.mkdtemp() and remove them",
        )
    return result(
        "runtime.host_containment",
        "pass",
        f"{len(evidence.episodes)} episodes left no file in the package or the working directory",
        evidence=["host.json"],
    )


def _container_containment(evidence: Evidence, box: ContainerRecord) -> CheckResult:
    outside, files = list(box.outside_tmp), list(evidence.host.new_files)
    root = box.enforced.get("read_only_root")
    user = box.enforced.get("user")
    measured = {
        "docker_diff": list(box.changes),
        "read_only_root": root,
        "user": user,
        "host_files": files,
    }
    problems = []
    if outside:
        problems.append(f"docker diff lists {len(outside)} changes outside /tmp")
    if not root or user != box.declared.get("user"):
        problems.append(f"the container ran with read_only_root={root}, user={user!r}")
    if files:
        problems.append(f"the in-process episodes left {len(files)} files")
    ev = ["container.json", "host.json", *outside[:3], *files[:3]]
    if problems:
        return result(
            "runtime.host_containment",
            "fail",
            "; ".join(problems),
            evidence=ev,
            remediation="write scratch files under /tmp (tempfile.mkdtemp()) and remove them",
            **measured,
        )
    return result(
        "runtime.host_containment",
        "pass",
        f"docker diff: nothing written outside /tmp (the engine's docker-init aside) by the "
        f"container on a read-only root as {user}; the in-process episodes left no file",
        evidence=ev,
        **measured,
    )


def _container_limits(box: ContainerRecord) -> list[str]:
    """Each declared limit ``docker inspect`` does not report as enforced."""
    keys = ("memory_bytes", "memory_swap_bytes", "nano_cpus", "pids_limit", "network_mode")
    return [
        f"{key}: declared {box.declared.get(key)}, the container runs with {box.enforced.get(key)}"
        for key in keys
        if box.enforced.get(key) != box.declared.get(key)
    ]


def resource_bounds(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.resource_bounds", evidence)) is not None:
        return skip
    server, declared = evidence.server, subject.spec.effective_resources
    assert server is not None
    problems = []
    if server.call_timeout_s is None or server.call_timeout_s > declared.episode_timeout_s:
        problems.append(
            f"the server lets one call run {server.call_timeout_s} s, longer than "
            f"episode_timeout_s {declared.episode_timeout_s}"
        )
    if server.oversize_status != 413:
        problems.append(f"a body past {server.message_limit} bytes got {server.oversize_status}")
    if not server.max_sessions:
        problems.append("the server has no session cap")
    box = evidence.container
    if box is not None:
        problems.extend(_container_limits(box))
    measured = {
        "call_timeout_s": server.call_timeout_s,
        "max_sessions": server.max_sessions,
        "message_limit": server.message_limit,
        "oversize_status": server.oversize_status,
        "declared": declared.model_dump(),
    }
    ev = ["server.json"]
    caps = "cpu and memory caps need the Docker provider (--docker)"
    if box is not None:
        ev.insert(0, "container.json")
        measured["container"] = {"declared": dict(box.declared), "enforced": dict(box.enforced)}
        caps = (
            f"docker inspect: the container runs with the declared {declared.memory_mb} MiB "
            f"memory (no swap beyond it), {declared.cpu:g} CPU, {declared.pids} pids and the "
            f"{box.enforced.get('network_mode')} network"
        )
    if problems:
        return result(
            "runtime.resource_bounds",
            "fail",
            "; ".join(problems),
            evidence=ev,
            remediation="set CALL_TIMEOUT_S within the declared episode timeout",
            **measured,
        )
    return result(
        "runtime.resource_bounds",
        "pass",
        f"calls end after {server.call_timeout_s:g} s (declared episode timeout "
        f"{declared.episode_timeout_s:g} s), {server.max_sessions} sessions at most, "
        f"bodies past {server.message_limit} bytes refused (413); {caps}",
        evidence=ev,
        **measured,
    )


def trajectory_record(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.trajectory_record", evidence)) is not None:
        return skip
    episode: EpisodeRecord = evidence.episodes["seed_a"]
    data = to_json(episode)
    back = json.loads(json.dumps(data))
    missing = [
        i
        for i, s in enumerate(back["steps"])
        if s["refused"] is None and (s["observation"] is None or "done" not in s["observation"])
    ]
    if back != data or missing:
        return result(
            "runtime.trajectory_record",
            "fail",
            "the episode record does not survive JSON or lacks observations",
            evidence=[episode.file],
            remediation="keep observations JSON-friendly",
        )
    return result(
        "runtime.trajectory_record",
        "pass",
        f"{len(back['steps'])} steps recorded with action, observation, reward, done",
        evidence=[episode.file],
        steps=len(back["steps"]),
    )


def tool_declaration_accuracy(subject: Subject, evidence: Evidence) -> CheckResult:
    if (skip := _skipped("runtime.tool_declaration_accuracy", evidence)) is not None:
        return skip
    server = evidence.server
    assert server is not None
    listed = set(server.tools or ())
    declared = subject.spec.declared_tools
    ev = ["server.json", "openenv.yaml: validation.capabilities.declared_tools"]
    measured = {"listed": sorted(listed), "declared": None if declared is None else list(declared)}
    if declared is None:
        if not listed:
            return result(
                "runtime.tool_declaration_accuracy",
                "pass",
                f"no tools: /mcp tools/list answers {server.mcp_error or 'none'}",
                evidence=ev,
                **measured,
            )
        return result(
            "runtime.tool_declaration_accuracy",
            "skip",
            f"/mcp lists {len(listed)} tools; none declared",
            evidence=ev,
            remediation="declare validation.capabilities.declared_tools",
            **measured,
        )
    if set(declared) != listed:
        extra, absent = sorted(listed - set(declared)), sorted(set(declared) - listed)
        return result(
            "runtime.tool_declaration_accuracy",
            "fail",
            f"undeclared: {extra or 'none'}; declared but not listed: {absent or 'none'}",
            evidence=ev,
            remediation="make declared_tools equal /mcp tools/list",
            **measured,
        )
    return result(
        "runtime.tool_declaration_accuracy",
        "pass",
        f"declared tools == /mcp tools/list ({len(listed)})",
        evidence=ev,
        **measured,
    )


def how_to_play(subject: Subject, evidence: Evidence) -> CheckResult:
    skipped = _skipped("runtime.how_to_play", evidence)
    if skipped is not None:
        return skipped
    if not evidence.how_to_play:
        return result(
            "runtime.how_to_play",
            "fail",
            f"{evidence.environment} declares no how_to_play: the playground's header says "
            "nothing about what to do",
            remediation='set how_to_play = "one line: what to do and how" on the Environment',
        )
    line = evidence.how_to_play
    return result("runtime.how_to_play", "pass", line if len(line) <= 120 else line[:117] + "...")


GRADERS = {
    "runtime.client": client,
    "runtime.contract": contract,
    "runtime.startup": startup,
    "runtime.reward_well_formed": reward_well_formed,
    "runtime.seed_control": seed_control,
    "runtime.episode_determinism": episode_determinism,
    "runtime.episode_isolation": episode_isolation,
    "runtime.host_containment": host_containment,
    "runtime.resource_bounds": resource_bounds,
    "runtime.trajectory_record": trajectory_record,
    "runtime.tool_declaration_accuracy": tool_declaration_accuracy,
    "runtime.how_to_play": how_to_play,
}
