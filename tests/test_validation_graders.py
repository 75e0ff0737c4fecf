"""The validator's graders judge recorded evidence: each check passes on good evidence and
fails, naming its evidence, on the bad behaviour it exists to catch."""

from __future__ import annotations

from pathlib import Path

from openenv.core.manifest import Manifest
from openenv.validation.evidence import (
    EpisodeRecord,
    Evidence,
    HostRecord,
    OracleRecord,
    StepRecord,
    comparable,
    declared_wall_clock,
    masked,
    write_bundle,
)
from openenv.validation.graders import GRADERS, Subject
from openenv.validation.spec import read_spec

SUBJECT = Subject(
    "toy", "toy_env", Path("."), Manifest(name="toy"), read_spec(Path("/nonexistent"))
)


def episode(name: str, rewards: list[float], obs: list[dict] | None = None, **kw) -> EpisodeRecord:
    obs = obs or [{"x": i} for i in range(len(rewards))]
    steps = tuple(
        StepRecord({"a": i}, {**o, "done": i == len(rewards) - 1}, r, i == len(rewards) - 1)
        for i, (r, o) in enumerate(zip(rewards, obs, strict=True))
    )
    return EpisodeRecord(name, kw.get("policy", "legal"), kw.get("seed", 0), {}, {"x": -1}, steps)


def evidence(**episodes: EpisodeRecord) -> Evidence:
    base = {n: episode(n, [0.0, 1.0]) for n in ("seed_a", "seed_a_again", "seed_b")}
    base["isolation_a"], base["isolation_b"] = base["seed_a"], base["seed_b"]
    base.update(episodes)
    scores = {n: (e.rewards[-1] if e.rewards else 0.0) for n, e in base.items()}
    oracle = OracleRecord(present=True, canaries={"bad": "a bad move"}, scores=scores)
    return Evidence("toy_env", "ToyEnvironment", base, oracle=oracle, host=HostRecord())


def grade(check_id: str, ev: Evidence):
    return GRADERS[check_id](SUBJECT, ev)


def test_a_run_that_differs_on_the_same_seed_fails_determinism_and_names_the_step() -> None:
    again = episode("seed_a_again", [0.0, 0.5])
    found = grade("runtime.episode_determinism", evidence(seed_a_again=again))
    assert found.status == "fail" and "step 1 differs" in found.summary
    assert found.evidence == ["episodes/seed_a.json", "episodes/seed_a_again.json"]
    assert grade("runtime.episode_determinism", evidence()).status == "pass"


def test_declared_wall_clock_fields_are_not_compared_and_the_report_names_them() -> None:
    a = episode("seed_a", [1.0], [{"took": 0.12, "out": "ok"}])
    b = episode("seed_a_again", [1.0], [{"took": 0.57, "out": "ok"}])
    plain = evidence(seed_a=a, seed_a_again=b)
    assert grade("runtime.episode_determinism", plain).status == "fail"
    clocked = Evidence(
        **{**plain.__dict__, "oracle": OracleRecord(True, wall_clock_fields=("took",))}
    )
    found = grade("runtime.episode_determinism", clocked)
    assert found.status == "pass" and "wall-clock fields not compared: took" in found.summary


def test_masking_reaches_nested_fields_only() -> None:
    data = {"result": {"execution_time": 0.3, "stdout": "1"}, "metadata": {"execution_time": 1}}
    out = masked(data, ["result.execution_time"])
    assert out["result"] == {"execution_time": "<wall-clock>", "stdout": "1"}
    assert out["metadata"] == {"execution_time": 1}
    assert declared_wall_clock({"x-wall-clock": ["a.b"]}) == ("a.b",)


def test_a_session_that_moves_another_fails_isolation() -> None:
    moved = episode("isolation_b", [0.0, 0.0])
    found = grade("runtime.episode_isolation", evidence(isolation_b=moved))
    assert found.status == "fail" and "isolation_b" in found.summary


def test_an_oracle_below_the_max_fails_and_a_winning_random_policy_fails_the_floor_gap() -> None:
    good = {"oracle": episode("oracle", [0.0, 1.0], policy="oracle")}
    randoms = {f"random_{s}": episode(f"random_{s}", [0.0, 0.0]) for s in (1, 2, 3)}
    nulls = {f"null_{s}": episode(f"null_{s}", [0.0, 0.0]) for s in (1, 2, 3)}
    assert grade("semantic.oracle_max", evidence(**good)).status == "pass"
    assert grade("semantic.floor_gap", evidence(**good, **randoms, **nulls)).status == "pass"
    weak = {"oracle": episode("oracle", [0.0, 0.4])}
    found = grade("semantic.oracle_max", evidence(**weak))
    assert found.status == "fail" and "scored 0.4" in found.summary
    lucky = {f"random_{s}": episode(f"random_{s}", [1.0]) for s in (1, 2, 3)}
    assert grade("semantic.floor_gap", evidence(**good, **lucky, **nulls)).status == "fail"


def test_a_canary_that_earns_reward_fails_and_a_refused_one_passes() -> None:
    refused = EpisodeRecord(
        "canary_bad", "canary:bad", 0, {}, {}, (StepRecord({"a": 9}, refused="no"),)
    )
    ok = evidence(oracle=episode("oracle", [1.0]), canary_bad=refused)
    assert grade("semantic.canary_floor", ok).status == "pass"
    paid = evidence(oracle=episode("oracle", [1.0]), canary_bad=episode("canary_bad", [1.0]))
    found = grade("semantic.canary_floor", paid)
    assert found.status == "fail" and "bad scored 1" in found.summary


def test_an_observation_carrying_the_answer_is_a_leak_but_the_agents_own_guess_is_not() -> None:
    leaky = episode("random_1", [0.0, 0.0], [{"hint": "the word is crane"}, {"hint": "no"}])
    ev = evidence(oracle=episode("oracle", [1.0]), random_1=leaky)
    ev = Evidence(**{**ev.__dict__, "oracle": OracleRecord(True, secrets={"random_1": ("crane",)})})
    found = grade("semantic.no_solution_leakage", ev)
    assert found.status == "fail" and "crane" in found.evidence[0]
    echo = EpisodeRecord(
        "random_1",
        "random",
        0,
        {},
        {"x": 0},
        (StepRecord({"guess": "crane"}, {"guesses": ["crane"]}, 0.0, False),),
    )
    ev2 = Evidence(**{**ev.__dict__, "episodes": {**ev.episodes, "random_1": echo}})
    assert grade("semantic.no_solution_leakage", ev2).status == "pass"


def test_a_replay_that_diverges_fails_replayability_and_verifier_determinism() -> None:
    runs = {
        "oracle": episode("oracle", [0.0, 1.0]),
        "replay": episode("replay", [0.0, 0.0]),
        "replay_again": episode("replay_again", [0.0, 1.0]),
    }
    assert grade("semantic.replayability", evidence(**runs)).status == "fail"
    assert grade("semantic.verifier_determinism", evidence(**runs)).status == "fail"


def test_the_bundle_lists_every_file_with_its_digest(tmp_path: Path) -> None:
    ev = evidence(oracle=episode("oracle", [1.0]))
    files = write_bundle(tmp_path, ev, {"verdict": "pass"})
    sums = (tmp_path / "SHA256SUMS").read_text()
    assert "episodes/oracle.json" in files and "  episodes/oracle.json" in sums
    assert (tmp_path / "report.json").is_file() and len(comparable(ev.episodes["oracle"], ())) == 2
