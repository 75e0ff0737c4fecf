"""Reasoning Core over the wire: verifiable questions from the seed, scored by the task's own
verifier, generated in a helper process that any machine seeds the same way."""

from __future__ import annotations

import pytest

pytest.importorskip("reasoning_core", reason="needs the reasoning_core extra")

from reasoning_core_env import ReasoningCoreAction, ReasoningCoreEnv

from openenv.core import ClientError
from openenv.testing import check_task_source
from tests.conftest import env_fixtures

url, env = env_fixtures("reasoning_core_env.server.app:app", ReasoningCoreEnv)


def answer(env, text: str):
    # model_construct: an over-long answer reaches the server, which must refuse it itself
    return env.step(ReasoningCoreAction.model_construct(answer=text))


def test_the_reference_answer_scores_one_and_a_fresh_helper_rebuilds_the_question(env):
    from reasoning_core_env.server.generator import Generator

    obs = env.reset(seed=1, task="equation_system").observation
    assert obs.task == "equation_system" and obs.area == "Mathematics" and obs.score is None
    state = env.state()
    fresh = Generator()  # a new helper process: the question depends on the seed alone
    try:
        rebuilt = fresh.call("generate", "equation_system", 0, state.generation_seed)
    finally:
        fresh.stop()
    assert rebuilt["prompt"] == obs.question
    result = answer(env, rebuilt["answer"])
    assert result.done and result.reward == pytest.approx(1.0)
    assert result.observation.correct_answer == rebuilt["answer"]
    assert "Correct" in result.observation.message
    assert result.observation.metadata["reward_components"] == {"correctness": 1.0}


def test_a_wrong_answer_scores_zero_and_the_episode_is_over(env):
    env.reset(seed=2, task="arithmetics")
    result = answer(env, "not a number")
    assert result.done and result.reward == 0.0 and result.observation.correct_answer
    with pytest.raises(ClientError) as err:
        answer(env, "1")
    assert err.value.server_code == "SESSION_ERROR"


def test_difficulty_and_task_are_reset_options(env):
    easy = env.reset(seed=3, task="logic_qa", difficulty=0).observation
    hard = env.reset(seed=3, task="logic_qa", difficulty=4).observation
    assert hard.difficulty == 4 and env.state().difficulty == 4
    assert len(hard.question) > len(easy.question)  # more premises at a higher level
    drawn = {env.reset(seed=s).observation.area for s in range(8)}
    assert {"Logic & deduction", "Mathematics", "Graphs, games & planning"} <= drawn


def test_the_same_seed_gives_the_same_question_and_reward(env):
    def episode(seed: int) -> tuple[str, float | None]:
        question = env.reset(seed=seed, task="graph_pathfinding").observation.question
        return question, answer(env, "0 1").reward

    assert episode(5) == episode(5)
    assert episode(5)[0] != episode(6)[0]


def test_bad_options_and_answers_are_refused_with_a_fix(env):
    for options, expected in [
        ({"task": "logic_qaa"}, "did you mean logic_qa"),
        ({"task": "metamath_entailment"}, "offline"),
        ({"task": "x" * 100_000}, "at most 64 characters"),
        ({"task": "arithmetics", "difficulty": 7}, "difficulty"),
    ]:
        with pytest.raises(ClientError) as err:
            env.reset(seed=0, **options)
        assert err.value.server_code == "VALIDATION_ERROR" and expected in str(err.value)
    env.reset(seed=0, task="arithmetics")
    with pytest.raises(ClientError) as err:
        answer(env, "9" * 4001)
    assert err.value.server_code == "VALIDATION_ERROR"
    assert answer(env, "-1").done  # the session went on


def test_a_helper_that_is_too_slow_is_replaced():
    from reasoning_core_env.server.generator import GenerationError, Generator

    slow = Generator()
    try:
        with pytest.raises(GenerationError, match=r"no answer in 0\.001 s"):
            slow.call("generate", "arithmetics", 0, 1, timeout_s=0.001)
        assert slow._proc is None  # killed
        assert slow.call("tasks")  # a new helper answers
    finally:
        slow.stop()


TASK_FILE = "sample_tasks.jsonl"  # shipped in reasoning_core_env/tasks/


def shipped_rows() -> list[dict]:
    import json
    from pathlib import Path

    import reasoning_core_env

    path = Path(reasoning_core_env.__file__).parent / "tasks" / TASK_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_task_file_row_is_scored_by_its_tasks_verifier(env):
    rows = shipped_rows()
    for index, row in enumerate(rows):
        obs = env.reset(task_source=TASK_FILE, task_index=index).observation
        assert (obs.question, obs.task) == (row["prompt"], row["task"])
        state = env.state()
        assert (state.task_source, state.task_index) == (TASK_FILE, index)
        result = answer(env, row["answer"])
        assert result.done and result.reward == pytest.approx(1.0), row["task"]
    env.reset(task_source=TASK_FILE, task_index=0)
    assert answer(env, "no idea").reward == 0.0


def test_a_row_with_metadata_as_json_text_and_no_task_column_is_read(tmp_path, monkeypatch):
    import json
    import random

    from reasoning_core_env.server.environment import TASK_ROWS, row_question
    from reasoning_core_env.server.generator import Generator

    from openenv.core.task_source import TASK_DIR_ENV, TaskSourceError

    row = shipped_rows()[0]  # arithmetics, as the Hub datasets hold it: metadata as JSON text
    hub_like = {"prompt": row["prompt"], "answer": row["answer"]}
    hub_like["metadata"] = json.dumps(row["metadata"])
    rows = [hub_like, {"prompt": "2 + 2?", "answer": "4"}, {**hub_like, "metadata": "{"}]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv(TASK_DIR_ENV, str(tmp_path))

    def question(index: int):
        return row_question(TASK_ROWS.pick("rows.jsonl", index, random.Random(0)))

    first, name, level = question(0)
    assert (name, level) == ("arithmetics", 0)
    helper = Generator()
    try:
        assert helper.call("score", row["answer"], first["entry"]) == pytest.approx(1.0)
    finally:
        helper.stop()
    with pytest.raises(TaskSourceError, match=r"row 1 of rows.jsonl: it names no task"):
        question(1)
    with pytest.raises(TaskSourceError, match="metadata is text but not JSON"):
        question(2)


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from reasoning_core_env.server.environment import (
        TASK_ROWS,
        ReasoningCoreEnvironment,
        row_question,
    )

    check_task_source(
        ReasoningCoreEnvironment,
        TASK_ROWS,
        rows=len(shipped_rows()),
        gives="question",
        replaced={"task": "arithmetics", "difficulty": 2},
        read=row_question,
    )
