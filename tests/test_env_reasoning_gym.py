"""Reasoning gym over the wire: questions from the seed, scored by the dataset's own scorer."""

from __future__ import annotations

import pytest

pytest.importorskip("reasoning_gym", reason="needs the reasoning_gym extra")

import reasoning_gym
from reasoning_gym_env import ReasoningGymAction, ReasoningGymEnv

from openenv.core import ClientError
from openenv.testing import check_env, check_task_source, played_in_state
from tests.conftest import env_fixtures

url, env = env_fixtures("reasoning_gym_env.server.app:app", ReasoningGymEnv)


def expected_entry(env) -> dict:
    """The entry the server drew, rebuilt from its state with reasoning-gym itself."""
    state = env.state()
    dataset = reasoning_gym.create_dataset(
        state.task_name, seed=state.dataset_seed, size=state.dataset_size, **state.task_config
    )
    return dataset[state.entry_index]


def test_a_correct_answer_scores_one_and_ends_the_episode(env):
    obs = env.reset(seed=1, task_name="leg_counting").observation
    assert obs.task == "leg_counting" and "legs" in obs.question and obs.score is None
    entry = expected_entry(env)
    assert entry["question"] == obs.question
    result = env.step(ReasoningGymAction(answer=entry["answer"]))
    assert result.done and result.reward == pytest.approx(1.0)
    assert result.observation.score == 1.0 and result.observation.correct_answer == entry["answer"]
    assert "Correct" in result.observation.message


def test_a_wrong_answer_scores_zero_and_reveals_the_answer(env):
    env.reset(seed=1, task_name="leg_counting")
    entry = expected_entry(env)
    result = env.step(ReasoningGymAction(answer="not a number"))
    assert result.done and result.reward == pytest.approx(0.0)
    assert result.observation.correct_answer == entry["answer"]
    with pytest.raises(ClientError) as err:  # one answer per episode
        env.step(ReasoningGymAction(answer=entry["answer"]))
    assert err.value.server_code == "SESSION_ERROR"


def test_task_config_and_difficulty_shape_the_question(env):
    config = {"min_animals": 6, "max_animals": 6}
    many = env.reset(seed=2, task_name="leg_counting", task_config=config).observation.question
    assert env.state().task_config == config
    assert many.split("you have")[1].count(",") == 5  # six kinds of animal
    easy = env.reset(seed=2, task_name="leg_counting", difficulty=0).observation.question
    assert easy.split("you have")[1].count(",") == 0  # level 0: one kind of animal
    assert env.state().difficulty == 0


def test_a_weighted_mix_of_tasks(env):
    tasks = set()
    for seed in range(8):
        obs = env.reset(
            seed=seed,
            task_specs=[{"name": "leg_counting", "weight": 1}, {"name": "chain_sum", "weight": 1}],
        ).observation
        tasks.add(obs.task)
    assert tasks == {"leg_counting", "chain_sum"}
    assert env.state().task_name == "composite"


def test_bad_options_are_refused_with_a_fix(env):
    for options, expected in [
        ({"task_name": "no_such_task"}, "unknown reasoning-gym task"),
        ({"task_config": {"bogus": 1}}, "task_config"),
        ({"task_name": "acre", "difficulty": 1}, "no difficulty levels"),
        ({"task_specs": [{"weight": 1}]}, "task_specs must be a list"),
    ]:
        with pytest.raises(ClientError) as err:
            env.reset(seed=0, **options)
        assert err.value.server_code == "VALIDATION_ERROR" and expected in str(err.value)


def test_the_same_seed_gives_the_same_question(env):
    first = env.reset(seed=5, task_name="chain_sum").observation.question
    assert env.reset(seed=5, task_name="chain_sum").observation.question == first
    others = {env.reset(seed=s, task_name="chain_sum").observation.question for s in range(6, 10)}
    assert first not in others


def test_text_view_shows_the_question_then_the_verdict():
    from reasoning_gym_env.server.environment import ReasoningGymEnvironment

    env = ReasoningGymEnvironment()
    obs = env.reset(seed=1)
    before = env.render().text
    assert " ".join(obs.question.split()) in " ".join(before.split())  # wrapped, same words
    assert max(len(line) for line in before.splitlines()) <= 48 and "Score" not in before
    assert env.legal_actions() == []  # answers are typed in the form
    env.step(ReasoningGymAction(answer="7"))
    assert "Your answer: 7" in env.render().text and "Score: 0" in env.render().text


def test_check_env_passes_with_typed_answers():
    from reasoning_gym_env.server.environment import ReasoningGymEnvironment

    check_env(ReasoningGymEnvironment(), actions=lambda env, rng: {"answer": str(rng.randrange(9))})


def test_the_reward_is_the_weighted_sum_of_its_components_over_seeded_episodes(env):
    for seed, task, right in [(1, "leg_counting", True), (2, "basic_arithmetic", False)]:
        env.reset(seed=seed, task_name=task)
        answer = str(expected_entry(env)["answer"]) if right else "no idea"
        result = env.step(ReasoningGymAction(answer=answer))
        meta = result.observation.metadata
        assert meta["reward_components"] == {"correctness": result.observation.score}
        assert meta["reward_weights"] == {"correctness": 1.0}
        assert result.reward == pytest.approx(result.observation.score) == (1.0 if right else 0.0)


TASK_FILE = "sample_tasks.jsonl"  # shipped in reasoning_gym_env/tasks/


def shipped_rows() -> list[dict]:
    import json
    from pathlib import Path

    import reasoning_gym_env

    path = Path(reasoning_gym_env.__file__).parent / "tasks" / TASK_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_task_file_row_is_played_and_scored_by_its_dataset(env):
    rows = shipped_rows()
    for index, row in enumerate(rows):
        obs = env.reset(task_source=TASK_FILE, task_index=index).observation
        assert obs.question == row["question"]
        state = env.state()
        assert (state.task_source, state.entry_index, state.dataset_size) == (
            TASK_FILE,
            index,
            len(rows),
        )
        source = row.get("metadata", {}).get("source_dataset")
        assert obs.task == (source or "task_source")
        result = env.step(ReasoningGymAction(answer=row["answer"]))
        assert result.done and result.reward == pytest.approx(1.0), (index, row)
    env.reset(task_source=TASK_FILE, task_index=0)
    assert env.step(ReasoningGymAction(answer="no idea")).reward == 0.0


def test_a_seeded_reset_picks_the_same_row_of_a_task_file(env):
    picks = {env.reset(seed=s, task_source=TASK_FILE).observation.question for s in range(8)}
    assert len(picks) > 1
    first = env.reset(seed=4, task_source=TASK_FILE).observation.question
    assert env.reset(seed=4, task_source=TASK_FILE).observation.question == first


def test_a_named_task_still_plays_after_a_task_file(env):
    env.reset(seed=1, task_source=TASK_FILE)
    assert env.reset(seed=1, task_name="leg_counting").observation.task == "leg_counting"


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from reasoning_gym_env.server.environment import (
        TASK_ROWS,
        ReasoningGymEnvironment,
        row_entry,
    )

    check_task_source(
        ReasoningGymEnvironment,
        TASK_ROWS,
        rows=len(shipped_rows()),
        gives="question",
        replaced={"difficulty": 2, "task_config": {"size": 1}},
        played=played_in_state(index="entry_index"),
        read=lambda picked: row_entry(picked.task),
    )


def test_an_operator_directory_lets_visitors_name_its_files_and_nothing_outside(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tests.servers import serve

    rows = [{"prompt": "What is 6 times 7?", "target": "42"}, {"prompt": "2 + 2?", "target": "4"}]
    (tmp_path / "ops").mkdir()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "ops" / "mine.parquet")
    (tmp_path / "outside.jsonl").write_text('{"question": "no", "answer": "no"}\n')
    with (
        serve(
            "reasoning_gym_env.server.app:app", env={"OPENENV_TASK_DIR": str(tmp_path / "ops")}
        ) as base,
        ReasoningGymEnv(base_url=base).sync() as client,
    ):
        obs = client.reset(task_source="mine.parquet", task_index=0).observation
        assert obs.question == "What is 6 times 7?" and obs.task == "task_source"
        assert client.step(ReasoningGymAction(answer="42")).reward == pytest.approx(1.0)
        shipped = client.reset(seed=1, task_source=TASK_FILE).observation.question
        assert shipped in {row["question"] for row in shipped_rows()}
        for name in ("../outside.jsonl", str(tmp_path / "outside.jsonl"), "hf://owner/tasks"):
            with pytest.raises(ClientError) as err:
                client.reset(task_source=name)
            assert "OPENENV_TASK" in str(err.value), err.value


def test_with_the_hub_allowed_a_visitor_plays_a_row_of_a_hub_dataset(tmp_path):
    from fake_hub import fake_hub

    from tests.servers import serve

    rows = [
        {"question": "Capital of France?", "answer": "Paris"},
        {"question": "1+1?", "answer": "2"},
    ]
    (tmp_path / "hf").mkdir()
    with fake_hub() as hub:
        hub.add_dataset("owner/quiz", {"train": rows})
        settings = {
            "OPENENV_TASK_HUB": "1",
            "HF_ENDPOINT": hub.url,
            "HF_HOME": str(tmp_path / "hf"),
        }
        with (
            serve("reasoning_gym_env.server.app:app", env=settings) as base,
            ReasoningGymEnv(base_url=base).sync() as client,
        ):
            obs = client.reset(task_source="hf://owner/quiz", task_index=0).observation
            assert obs.question == "Capital of France?"
            assert client.step(ReasoningGymAction(answer="Paris")).reward == pytest.approx(1.0)
            assert client.state().task_source == "hf://owner/quiz"
            with pytest.raises(ClientError) as err:
                client.reset(task_source="hf://owner/none")
            assert "could not read the Hub dataset owner/none@train" in str(err.value)
