"""The in-process provider: collect a package's evidence once, for every grader to read.

Runtime evidence: ``check_env``; the typed client; the server app; two seeded episodes with
the same seed and one with another (seed control, determinism); two sessions played in lockstep
(isolation); files and memory before and after (containment, resource bounds). Semantic
evidence adds the oracle's episode, its replay from the JSON record (twice), random and null
policies, and the canaries, each recorded as an :class:`~openenv.validation.evidence.EpisodeRecord`.
Episodes use the env's own legal actions; free-text envs use their oracle's example actions.

With ``url`` (``openenv validate --docker``: the package's container), the runtime episodes,
the isolation pair and the server's HTTP answers come from the server at ``url``
(:mod:`openenv.validation.remote`); the oracle's, replays, random, null and canary episodes
still run in this process (an oracle may read the env's private state).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from openenv.core.errors import EnvUnavailable
from openenv.core.folders import make_importable
from openenv.core.registry import EnvPackage
from openenv.validation import probes
from openenv.validation.evidence import (
    EpisodeRecord,
    Evidence,
    HostRecord,
    OracleRecord,
    ServerRecord,
    declared_wall_clock,
    to_json,
)
from openenv.validation.oracle import Oracle, load_oracle
from openenv.validation.play import (
    null_chooser,
    oracle_chooser,
    play,
    play_lockstep,
    random_chooser,
    replay_chooser,
)
from openenv.validation.spec import ValidationSpec

SEED_A, SEED_B = 11, 12
RANDOM_SEEDS = (1, 2, 3)
NO_ORACLE = Oracle()  # the defaults (legal actions, first-choice null policy) when none ships


def collect(
    entry: EnvPackage, spec: ValidationSpec, level: str, url: str | None = None
) -> Evidence:
    """Run the package in this process (the runtime episodes on the server at ``url`` when
    given) and record what ``level``'s graders need."""
    make_importable(entry)
    client, client_error = probes.probe_client(entry)
    base: dict[str, Any] = {"package": entry.package, "client": client}
    base["client_error"] = client_error
    try:
        env_cls = entry.environment_class()
    except EnvUnavailable as exc:
        return Evidence(environment="?", episodes={}, skipped=str(exc), **base)
    except Exception as exc:  # an import error is the contract's finding
        error = f"importing server/environment.py raised {type(exc).__name__}: {exc}"
        return Evidence(environment="?", episodes={}, skipped=error, **base)
    clock = declared_wall_clock(env_cls.wire_types()[1].model_json_schema())
    oracle, oracle_record = _oracle(entry, spec, clock)
    base["environment"] = env_cls.__name__
    base["how_to_play"] = str(getattr(env_cls, "how_to_play", "") or "").strip()
    base["concurrent_sessions"] = bool(env_cls.SUPPORTS_CONCURRENT_SESSIONS)
    base["contract"] = probes.probe_contract(env_cls, oracle, oracle_record.wall_clock_fields)
    base["server"] = probes.probe_server(entry)
    if url is not None:
        base["server"] = _remote_server(base["server"], url)
    episodes, host, secrets = _episodes(entry, env_cls, oracle or NO_ORACLE, oracle, level, url)
    if oracle is not None:
        scores = {name: oracle.score_episode(ep) for name, ep in episodes.items()}
        oracle_record = _with(oracle_record, secrets=secrets, scores=scores)
    return Evidence(episodes=episodes, host=host, oracle=oracle_record, **base)


def _oracle(
    entry: EnvPackage, spec: ValidationSpec, clock: tuple[str, ...]
) -> tuple[Oracle | None, OracleRecord]:
    try:
        oracle = load_oracle(entry.package, spec.oracle_location)
    except Exception as exc:  # a broken oracle module is reported, never hidden
        reason = f"{spec.oracle_location}: {type(exc).__name__}: {exc}"
        return None, OracleRecord(False, reason, wall_clock_fields=clock)
    if oracle is None:
        reason = f"{entry.package} ships no {spec.oracle_location}"
        return None, OracleRecord(False, reason, wall_clock_fields=clock)
    # The episode score and its bounds are the oracle's; the manifest's reward range bounds
    # each step's reward (runtime.reward_well_formed).
    record = OracleRecord(
        present=True,
        reason=oracle.unavailable(),
        form=oracle.form,
        scope=oracle.scope,
        score_range=tuple(oracle.score_range),
        tolerance=oracle.tolerance,
        floor_margin=oracle.floor_margin,
        wall_clock_fields=tuple(dict.fromkeys((*clock, *oracle.wall_clock_fields))),
        canaries={c.name: c.description for c in oracle.canaries()},
    )
    return oracle, record


def _with(record: Any, **changes: Any) -> Any:
    from dataclasses import replace

    return replace(record, **changes)


def _remote_server(local: ServerRecord, url: str) -> ServerRecord:
    """The server record with what the server at ``url`` answered; its call time limit and
    session cap are not on the wire, so they are read from the app in-process (None when it
    does not import here)."""
    from openenv.server.limits import max_message_bytes
    from openenv.validation.remote import probe_remote

    limit = local.message_limit or max_message_bytes()
    try:
        found = probe_remote(url, limit)
    except Exception as exc:  # the server going away mid-probe is the finding
        return _with(local, app=f"{local.app} at {url}", error=f"{type(exc).__name__}: {exc}")
    return _with(local, app=f"{local.app} at {url}", error=None, message_limit=limit, **found)


def _episodes(
    entry: EnvPackage,
    env_cls: type,
    policy: Oracle,
    oracle: Oracle | None,
    level: str,
    url: str | None = None,
) -> tuple[dict[str, EpisodeRecord], HostRecord, dict[str, tuple[str, ...]]]:
    roots = [entry.path]
    before_files = probes.listing(roots)
    rss_before = probes.rss_mb()
    episodes: dict[str, EpisodeRecord] = {}
    secrets: dict[str, tuple[str, ...]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="openenv-validate-") as scratch,
        probes.quiet_cwd(Path(scratch)),
    ):
        env, other = env_cls(), env_cls()
        if url is not None:
            from openenv.validation.remote import remote_class

            remote = remote_class(env_cls)
            served, served_other = remote(url), remote(url)
        else:
            served, served_other = env, other
        try:
            _runtime_episodes(served, served_other, policy, episodes)
            if level == "semantic" and oracle is not None and oracle.unavailable() is None:
                _semantic_episodes(env, oracle, episodes, secrets)
        finally:
            for each in {id(e): e for e in (env, other, served, served_other)}.values():
                each.close()
        left = sorted(str(Path(scratch) / p) for p in probes.listing([Path(scratch)]))
    new = sorted(probes.listing(roots) - before_files) + left
    host = HostRecord(
        new_files=tuple(new[:50]),
        rss_growth_mb=round(max(0.0, probes.rss_mb() - rss_before), 1),
        longest_step_s=max((s.seconds for e in episodes.values() for s in e.steps), default=0.0),
        longest_episode_s=max((e.seconds for e in episodes.values()), default=0.0),
    )
    return episodes, host, secrets


def _runtime_episodes(env: Any, other: Any, policy: Oracle, out: dict) -> None:
    budget, options = policy.probe_steps, dict(policy.reset_options)

    def run(name: str, seed: int, target: Any = env) -> EpisodeRecord:
        chooser = random_chooser(policy, seed)
        return play(target, name, "legal", chooser, seed=seed, options=options, budget=budget)

    out["seed_a"] = run("seed_a", SEED_A)
    out["seed_a_again"] = run("seed_a_again", SEED_A)
    out["seed_b"] = run("seed_b", SEED_B)
    out["isolation_a"], out["isolation_b"] = _lockstep(env, other, policy, options, budget)


def _lockstep(env: Any, other: Any, policy: Oracle, options: dict, budget: int) -> tuple:
    """Two sessions stepped alternately, each with the seed and policy of a solo episode."""
    return play_lockstep(
        (env, "isolation_a", SEED_A, random_chooser(policy, SEED_A)),
        (other, "isolation_b", SEED_B, random_chooser(policy, SEED_B)),
        options=options,
        budget=budget,
    )


def _semantic_episodes(env: Any, oracle: Oracle, out: dict, secrets: dict) -> None:
    options = dict(oracle.reset_options)

    def run(name: str, policy: str, chooser: Any, seed: int, budget: int) -> None:
        def remember(env_: Any) -> None:  # the answer of this episode, read right after reset
            secrets[name] = tuple(str(s) for s in oracle.secrets(env_) if str(s).strip())

        out[name] = play(
            env,
            name,
            policy,
            chooser,
            seed=seed,
            options=options,
            budget=budget,
            on_reset=remember,
        )

    run("oracle", "oracle", oracle_chooser(oracle), 0, oracle.max_steps)
    record = json.loads(json.dumps(to_json(out["oracle"])))  # what a trajectory file holds
    actions = [step["action"] for step in record["steps"]]
    run("replay", "replay", replay_chooser(actions), record["seed"], len(actions))
    run("replay_again", "replay", replay_chooser(actions), record["seed"], len(actions))
    for seed in RANDOM_SEEDS:
        run(f"random_{seed}", "random", random_chooser(oracle, seed), seed, oracle.max_steps)
    for seed in RANDOM_SEEDS:  # a policy's expected score: over the same seeds as random's
        run(f"null_{seed}", "null", null_chooser(oracle), seed, oracle.max_steps)
    for canary in oracle.canaries():
        run(f"canary_{canary.name}", f"canary:{canary.name}", canary.act, 0, oracle.max_steps)
