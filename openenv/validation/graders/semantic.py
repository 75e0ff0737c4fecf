"""Semantic graders: do the rewards mean what the env says? (oracle, floor, canaries, leaks)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from openenv.validation.evidence import Evidence, comparable
from openenv.validation.graders.common import Subject, result
from openenv.validation.report import CheckResult

ORACLE_FILE = "server/oracle.py"
SOLVERS = ("oracle", "replay", "replay_again")


def _unready(check_id: str, evidence: Evidence) -> CheckResult | None:
    """A skip or a fail when there is no oracle evidence to judge."""
    if evidence.skipped is not None:
        return result(
            check_id,
            "skip",
            f"the environment did not run here: {evidence.skipped}",
            remediation="install what it needs, then validate again",
        )
    oracle = evidence.oracle
    if not oracle.present:
        return result(
            check_id,
            "fail",
            oracle.reason or "no oracle",
            evidence=[ORACLE_FILE],
            remediation=f"ship {ORACLE_FILE} defining ORACLE (openenv.validation.oracle)",
        )
    if oracle.reason is not None:
        return result(
            check_id,
            "skip",
            f"the oracle cannot run here: {oracle.reason}",
            evidence=[ORACLE_FILE],
            remediation="install what it needs",
        )
    if "oracle" not in evidence.episodes:
        return result(check_id, "skip", "no semantic episodes were played")
    return None


def oracle_max(subject: Subject, evidence: Evidence) -> CheckResult:
    if (stop := _unready("semantic.oracle_max", evidence)) is not None:
        return stop
    o, episode = evidence.oracle, evidence.episodes["oracle"]
    score, high = o.scores["oracle"], o.score_range[1]
    measured = {
        "oracle_score": score,
        "max": high,
        "tolerance": o.tolerance,
        "steps": len(episode.steps),
        "done": episode.done,
        "scope": o.scope or "the whole env",
    }
    ev = [episode.file, "oracle.json"]
    scope = f"; declared for {o.scope}" if o.scope else ""
    if episode.error or score < high - o.tolerance - 1e-9:
        why = episode.error or f"the oracle scored {score:g}, below {high:g} - {o.tolerance:g}"
        why += scope
        return result(
            "semantic.oracle_max",
            "fail",
            why,
            evidence=ev,
            remediation="fix the oracle, or the reward if no play reaches the max",
            **measured,
        )
    return result(
        "semantic.oracle_max",
        "pass",
        f"the {o.form} oracle scored {score:g} (max {high:g}, tolerance {o.tolerance:g}) "
        f"in {len(episode.steps)} steps{scope}",
        evidence=ev,
        **measured,
    )


def floor_gap(subject: Subject, evidence: Evidence) -> CheckResult:
    if (stop := _unready("semantic.floor_gap", evidence)) is not None:
        return stop
    o = evidence.oracle
    if o.floor_margin <= 0:
        return result(
            "semantic.floor_gap",
            "skip",
            "the oracle declares floor_margin 0: this "
            "env's reward ranks no behaviour above another",
            evidence=["oracle.json"],
            remediation="give the env a task whose reward separates policies",
        )
    random, null = _mean(o.scores, "random_"), _mean(o.scores, "null_")
    ceiling = o.score_range[1] - o.floor_margin
    measured = {
        "random_mean": random,
        "null_mean": null,
        "max": o.score_range[1],
        "floor_margin": o.floor_margin,
    }
    ev = [evidence.episodes[k].file for k in o.scores if k.startswith(("random_", "null_"))]
    worst = max(random, null)
    if worst > ceiling + 1e-9:
        return result(
            "semantic.floor_gap",
            "fail",
            f"a random or null policy scores {worst:g} on average, above max - margin "
            f"= {ceiling:g}",
            evidence=ev,
            remediation="make the reward hard to earn without solving",
            **measured,
        )
    return result(
        "semantic.floor_gap",
        "pass",
        f"random {random:g}, null {null:g} on average: at least {o.floor_margin:g} "
        f"below the max {o.score_range[1]:g}",
        evidence=ev,
        **measured,
    )


def _mean(scores: Mapping[str, float], prefix: str) -> float:
    found = [v for k, v in scores.items() if k.startswith(prefix)]
    return round(sum(found) / len(found), 4) if found else 0.0


def canary_floor(subject: Subject, evidence: Evidence) -> CheckResult:
    if (stop := _unready("semantic.canary_floor", evidence)) is not None:
        return stop
    o = evidence.oracle
    if not o.canaries:
        return result(
            "semantic.canary_floor",
            "fail",
            "the oracle declares no canaries",
            evidence=[ORACLE_FILE],
            remediation="add Oracle.canaries(): illegal moves, empty answers, format hacks",
        )
    floor, lines, above = o.score_range[0], [], []
    for name in o.canaries:
        episode = evidence.episodes[f"canary_{name}"]
        refused = sum(s.refused is not None for s in episode.steps)
        score = o.scores[f"canary_{name}"]
        at_floor = not episode.played or score <= floor + o.tolerance + 1e-9
        lines.append(f"{episode.file}: {name} scored {score:g} ({refused} refused)")
        if not at_floor or episode.error:
            above.append(
                f"{name} scored {score:g}" + (f" ({episode.error})" if episode.error else "")
            )
    if above:
        return result(
            "semantic.canary_floor",
            "fail",
            f"above the floor {floor:g}: {'; '.join(above)}",
            evidence=lines,
            remediation="score known-bad behaviour at the floor, or refuse it",
        )
    return result(
        "semantic.canary_floor",
        "pass",
        f"{len(o.canaries)} canaries at the floor {floor:g} or refused: {', '.join(o.canaries)}",
        evidence=lines,
        floor=floor,
    )


def no_solution_leakage(subject: Subject, evidence: Evidence) -> CheckResult:
    if (stop := _unready("semantic.no_solution_leakage", evidence)) is not None:
        return stop
    secrets = evidence.oracle.secrets
    if not any(secrets.values()):
        return result(
            "semantic.no_solution_leakage",
            "pass",
            "the env has no hidden answer (Oracle.secrets is empty)",
            evidence=["oracle.json"],
        )
    leaks = []
    for name, answers in secrets.items():
        if name in SOLVERS:  # the oracle computes the answer itself: its output is no leak
            continue
        episode = evidence.episodes[name]
        for where, text in _before_done(episode):
            hit = next((a for a in answers if _contains(text, a)), None)
            if hit is not None:
                leaks.append(f"{episode.file}: {where} carries the answer {hit!r}")
                break
    checked = sum(bool(a) for n, a in secrets.items() if n not in SOLVERS)
    ev = leaks[:5] or [f"episodes/{n}.json" for n in secrets if n not in SOLVERS]
    if leaks:
        return result(
            "semantic.no_solution_leakage",
            "fail",
            f"{len(leaks)} episodes leak",
            evidence=ev,
            remediation="keep the answer out of observations and metadata until the episode ends",
        )
    return result(
        "semantic.no_solution_leakage",
        "pass",
        f"{checked} episodes: no observation carries the answer before the end",
        evidence=ev,
        episodes=checked,
    )


def _before_done(episode: Any) -> Iterator[tuple[str, str]]:
    """Each observation before the end, as lower-case text without the agent's own words
    (a guess echoed back is not a leak)."""
    said: list[str] = []
    if episode.reset_observation is not None:
        yield "the reset observation", _text(episode.reset_observation, said)
    for i, step in enumerate(episode.steps):
        said.extend(_strings(step.action))
        if step.observation is None or step.done:
            continue
        yield f"step {i}", _text(step.observation, said)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip().lower()] if len(value.strip()) >= 3 else []
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _text(obs: Mapping[str, Any], said: list[str]) -> str:
    text = json.dumps(obs, default=str).lower()
    for words in sorted(set(said), key=len, reverse=True):
        text = text.replace(words, "")
    return text


def _contains(text: str, answer: str) -> bool:
    needle = answer.strip().lower()
    if len(needle) < 3:  # "4" is in every number: compare short answers as whole JSON values
        return f'": "{needle}"' in text or f'": {needle},' in text
    return re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", text) is not None


def verifier_determinism(subject: Subject, evidence: Evidence) -> CheckResult:
    if (stop := _unready("semantic.verifier_determinism", evidence)) is not None:
        return stop
    runs = [evidence.episodes[n] for n in ("oracle", "replay", "replay_again")]
    rewards = [run.rewards for run in runs]
    ev = [run.file for run in runs]
    if not (rewards[0] == rewards[1] == rewards[2]):
        return result(
            "semantic.verifier_determinism",
            "fail",
            "the same actions from the same seed were scored differently",
            evidence=ev,
            remediation="make the reward a function of the episode only",
            rewards=rewards,
        )
    return result(
        "semantic.verifier_determinism",
        "pass",
        f"the oracle's episode scored the same three times ({len(rewards[0])} rewards)",
        evidence=ev,
    )


def replayability(subject: Subject, evidence: Evidence) -> CheckResult:
    if (stop := _unready("semantic.replayability", evidence)) is not None:
        return stop
    clock = evidence.oracle.wall_clock_fields
    oracle, replay = evidence.episodes["oracle"], evidence.episodes["replay"]
    ev = [oracle.file, replay.file]
    same = comparable(oracle, clock) == comparable(replay, clock)
    if not same or replay.error:
        return result(
            "semantic.replayability",
            "fail",
            replay.error or "replaying the recorded actions from the recorded seed diverged",
            evidence=ev,
            remediation="make reset(seed) and step deterministic",
        )
    return result(
        "semantic.replayability",
        "pass",
        f"the recorded episode ({len(replay.steps)} actions, read back from JSON) "
        f"replays to the same observations and rewards {sum(replay.rewards):g}",
        evidence=ev,
    )


def resource_envelope(subject: Subject, evidence: Evidence) -> CheckResult:
    if evidence.skipped is not None:
        return result(
            "semantic.resource_envelope",
            "skip",
            f"the environment did not run here: {evidence.skipped}",
        )
    host, declared = evidence.host, subject.spec.effective_resources
    limit = evidence.server.call_timeout_s if evidence.server else None
    measured = {
        "rss_growth_mb": host.rss_growth_mb,
        "longest_step_s": round(host.longest_step_s, 3),
        "longest_episode_s": round(host.longest_episode_s, 3),
        "declared_memory_mb": declared.memory_mb,
        "declared_episode_timeout_s": declared.episode_timeout_s,
    }
    problems = []
    if host.rss_growth_mb > declared.memory_mb:
        problems.append(f"memory grew {host.rss_growth_mb:g} MiB > {declared.memory_mb} MiB")
    if host.longest_episode_s > declared.episode_timeout_s:
        problems.append(f"an episode took {host.longest_episode_s:.1f} s")
    if limit and host.longest_step_s > limit:
        problems.append(f"a step took {host.longest_step_s:.1f} s > the call limit {limit:g} s")
    if problems:
        return result(
            "semantic.resource_envelope",
            "fail",
            "; ".join(problems),
            evidence=["host.json"],
            remediation="declare what the env needs",
            **measured,
        )
    return result(
        "semantic.resource_envelope",
        "pass",
        f"memory +{host.rss_growth_mb:g} MiB (declared {declared.memory_mb}), longest "
        f"episode {host.longest_episode_s:.2f} s, step {host.longest_step_s:.2f} s",
        evidence=["host.json"],
        **measured,
    )


GRADERS = {
    "semantic.oracle_max": oracle_max,
    "semantic.floor_gap": floor_gap,
    "semantic.canary_floor": canary_floor,
    "semantic.no_solution_leakage": no_solution_leakage,
    "semantic.verifier_determinism": verifier_determinism,
    "semantic.resource_envelope": resource_envelope,
    "semantic.replayability": replayability,
}
