"""QED math over the wire: solutions marked item by item on a 0–7 rubric, several attempts.

The server here grades proofs with KeywordGrader (the deterministic stand-in); the judge path is
tested in-process against a local fake of an OpenAI-compatible endpoint.
"""

from __future__ import annotations

import pytest

pytest.importorskip("math_verify", reason="needs the qed_math extra")

from fastapi import FastAPI
from qed_math_env import QedMathAction, QedMathEnv

from openenv.core import ClientError
from openenv.core.llm import LLMEndpoint
from openenv.server import create_app
from openenv.testing import check_task_source
from tests.servers import served

SQRT2_PROOF = (
    "Suppose sqrt(2) = p/q in lowest terms. Then p^2 = 2q^2, so p is even; writing p = 2r "
    "gives q^2 = 2r^2, so q is even: a contradiction."
)
DIVIDES_PARTIAL = "n^2 + 2 = (n + 2)(n - 2) + 6. So the answer is \\boxed{\\{1, 4\\}}."
DIVIDES_FULL = DIVIDES_PARTIAL + " Hence n + 2 divides 6, so n = 1 or n = 4."


@pytest.fixture(scope="module")
def url():
    from qed_math_env.server.environment import QedMathEnvironment

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("QED_MATH_GRADER", "keyword")
        with served(create_app(QedMathEnvironment)) as base:
            yield base


@pytest.fixture
def env(url):
    with QedMathEnv(base_url=url).sync() as client:
        yield client


def send(env, text: str):
    # model_construct: an over-long text reaches the server, which must refuse it itself
    return env.step(QedMathAction.model_construct(proof=text))


def test_a_wrong_answer_then_an_equivalent_form_of_the_right_one(env):
    obs = env.reset(seed=1, problem_id="sine-75").observation
    assert obs.problem_type == "answer" and "sin 75" in obs.problem
    assert "Final answer (7 pt)" in obs.grading_guidelines and obs.reference_solution is None
    wrong = send(env, "Roughly \\boxed{0.9659}.")
    assert wrong.reward == 0.0 and not wrong.done
    assert wrong.observation.answer_correct is False and wrong.observation.final_answer == "0.9659"
    assert (
        wrong.observation.attempts_remaining == 2 and "2 attempts left" in wrong.observation.message
    )
    right = send(env, "sin(45+30) = \\boxed{\\frac{\\sqrt{2}(1+\\sqrt{3})}{4}}")
    assert right.done and right.reward == pytest.approx(1.0) and right.observation.is_correct
    assert right.observation.marks[0].graded_by == "math-verify"
    assert "sin 75 = sin(45 + 30)" in right.observation.reference_solution


def test_marks_per_item_and_a_better_second_attempt(env):
    env.reset(seed=2, problem_id="divides-n-squared-plus-two")
    first = send(env, DIVIDES_PARTIAL)
    marks = {m.title: m.points for m in first.observation.marks}
    assert marks == {"Division with remainder": 2, "Reduction": 0, "Cases checked": 0,
                     "Final answer": 2}  # fmt: skip
    assert first.observation.score == 4 and first.reward == pytest.approx(4 / 7)
    assert first.observation.metadata["reward_components"] == pytest.approx(
        {"answer": 2 / 7, "proof": 2 / 7}
    )
    assert "KeywordGrader" in first.observation.grader and not first.done
    metrics = first.observation.metadata["verifier_metrics"]
    assert metrics["reward/score_raw"] == 4 and metrics["verifier/answer/verified"] == 1
    assert metrics["episode/attempt_number"] == 1 and metrics["episode/is_correct"] == 0
    second = send(env, DIVIDES_FULL)
    assert second.observation.score == 7 and second.done and second.reward == pytest.approx(1.0)
    assert env.state().best_score == 7 and env.state().attempts == 2


def test_attempts_run_out_and_the_reference_solution_is_shown(env):
    env.reset(seed=3, problem_id="sqrt-two-irrational", max_attempts=2)
    assert not send(env, "It is irrational.").done
    last = send(env, "Because it is.")
    assert last.done and last.reward == 0.0 and "No attempts left" in last.observation.message
    assert "lowest terms" in last.observation.reference_solution
    with pytest.raises(ClientError) as err:
        send(env, SQRT2_PROOF)
    assert err.value.server_code == "SESSION_ERROR"


def test_the_same_seed_gives_the_same_problem_and_rewards(env):
    def episode(seed: int) -> tuple[str, list[float]]:
        problem = env.reset(seed=seed).observation.problem_id
        rewards = [send(env, text).reward for text in ("\\boxed{2}", SQRT2_PROOF)]
        return problem, rewards

    assert episode(7) == episode(7)
    assert len({env.reset(seed=s).observation.problem_id for s in range(12)}) > 3


def test_bad_input_is_refused_and_the_session_goes_on(env):
    env.reset(seed=4, problem_id="two-power-mod-seven")
    for text, expected in [("   ", "solution is empty"), ("x" * 20_001, "20000")]:
        with pytest.raises(ClientError) as err:
            send(env, text)
        assert err.value.server_code == "VALIDATION_ERROR" and expected in str(err.value)
    for options, expected in [
        ({"problem_id": "nope"}, "divisor-sum-360"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"problem_type": "essay"}, "problem_type"),
    ]:
        with pytest.raises(ClientError) as err:
            env.reset(seed=0, **options)
        assert err.value.server_code == "VALIDATION_ERROR" and expected in str(err.value)
    env.reset(seed=4, problem_id="two-power-mod-seven")
    assert send(env, "\\boxed{2}").reward == pytest.approx(1.0)


def test_a_boxed_answer_too_long_to_parse_is_not_verified(env):
    env.reset(seed=5, problem_id="divisor-sum-360")
    result = send(env, "\\boxed{" + "1+" * 300 + "1}")
    assert result.reward == 0.0 and "longer than 400" in result.observation.marks[0].note


# -- the judge path (in process) ------------------------------------------------------------


def fake_judge(reply: str) -> FastAPI:
    """A local stand-in of an OpenAI-compatible endpoint that always answers ``reply``."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    def complete(body: dict) -> dict:
        assert "<proof>" in body["messages"][-1]["content"]
        return {"choices": [{"message": {"role": "assistant", "content": reply}}]}

    return app


def judged_env(base_url: str | None):
    from qed_math_env.server.environment import QedMathEnvironment
    from qed_math_env.server.graders import JudgeGrader

    endpoint = LLMEndpoint(base_url=f"{base_url}/v1") if base_url else None
    env = QedMathEnvironment(JudgeGrader(endpoint))
    env.reset(seed=0, problem_id="sqrt-two-irrational")
    return env


def test_the_judge_marks_each_item_through_the_endpoint():
    reply = '<points item="1">2</points><points item="2">2</points><points item="3">1</points>'
    with served(fake_judge(reply + "<feedback>Finish the parity step.</feedback>")) as base:
        obs = judged_env(base).step(QedMathAction(proof=SQRT2_PROOF))
    assert obs.score == 5 and obs.reward == pytest.approx(5 / 7)
    assert [m.points for m in obs.marks] == [2, 2, 1] and obs.marks[0].graded_by == "judge model"
    assert obs.feedback == "Finish the parity step." and obs.attempt_number == 1


def test_an_unusable_or_missing_judge_grades_nothing():
    with served(fake_judge('<points item="1">2</points><points item="2">9</points>')) as base:
        env = judged_env(base)
        obs = env.step(QedMathAction(proof=SQRT2_PROOF))
    assert obs.score is None and obs.reward == 0.0 and obs.attempt_number == 0
    assert "judge gave item 2 9 of 2" in obs.message and "not counted" in obs.message
    assert "ATTEMPT NOT GRADED" in env.render().text
    with pytest.MonkeyPatch.context() as mp:
        for name in ("OPENENV_LLM_URL", "OPENENV_LLM_JUDGE_URL"):
            mp.delenv(name, raising=False)
        obs = judged_env(None).step(QedMathAction(proof=SQRT2_PROOF))
    assert obs.score is None and "OPENENV_LLM_URL" in obs.message
    assert obs.metadata["verifier_metrics"]["verifier/failures/no_judge"] == 1


def test_the_stage_shows_the_problem_rubric_marks_and_feedback():
    from qed_math_env.server.environment import QedMathEnvironment
    from qed_math_env.server.graders import KeywordGrader

    env = QedMathEnvironment(KeywordGrader())
    env.reset(seed=0, problem_id="divides-n-squared-plus-two")
    before = env.render().text
    assert "PROBLEM" in before and "RUBRIC (7 points)" in before and "ATTEMPT" not in before
    env.step(QedMathAction(proof=DIVIDES_PARTIAL))
    after = env.render().text
    assert "ATTEMPT 1: 4/7" in after and "✗ Reduction: 0/2" in after
    assert "Your final answer: \\{1, 4\\}" in after and "FEEDBACK" in after
    assert max(len(line) for line in after.splitlines()) <= 64 + 4


def test_a_math_verify_check_past_its_time_is_not_verified_and_the_helper_restarts():
    from qed_math_env.server.answers import AnswerChecker

    checker = AnswerChecker(timeout_s=0.001)
    try:
        late = checker.check("1170", "1170")
        assert not late.correct and "no verdict in 0.001 s" in late.note
        checker.timeout_s = 60.0
        assert checker.check("1170", "2 \\cdot 585").correct  # a new helper answers
    finally:
        checker.close_helper()


TASK_FILE = "answer_problems.jsonl"  # shipped in qed_math_env/tasks/


def shipped_rows() -> list[dict]:
    import json
    from pathlib import Path

    import qed_math_env

    path = Path(qed_math_env.__file__).parent / "tasks" / TASK_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_task_file_row_is_an_answer_problem_checked_by_math_verify(env):
    rows = shipped_rows()
    for index, row in enumerate(rows):
        obs = env.reset(task_source=TASK_FILE, task_index=index).observation
        assert (obs.problem_id, obs.problem_type, obs.dataset_source) == (
            row["id"],
            "answer",
            TASK_FILE,
        )
        assert obs.problem == row["problem"]
        assert send(env, "\\boxed{999999}").reward == 0.0
        result = send(env, f"So the answer is \\boxed{{{row['answer']}}}.")
        assert result.done and result.reward == pytest.approx(1.0), row


def test_seeds_pick_rows_and_a_named_problem_still_plays_after_a_task_file(env):
    first = env.reset(seed=3, task_source=TASK_FILE).observation.problem_id
    assert env.reset(seed=3, task_source=TASK_FILE).observation.problem_id == first
    assert (
        len({env.reset(seed=s, task_source=TASK_FILE).observation.problem_id for s in range(8)}) > 1
    )
    assert env.reset(seed=0, problem_id="divisor-sum-360").observation.problem_id == (
        "divisor-sum-360"
    )


def played_row(env, obs) -> tuple:
    """The file and row a reset plays: the problem's source and its row's id."""
    return obs.dataset_source, [row["id"] for row in shipped_rows()].index(obs.problem_id)


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from qed_math_env.server.environment import TASK_ROWS, QedMathEnvironment, row_problem
    from qed_math_env.server.graders import KeywordGrader

    check_task_source(
        lambda: QedMathEnvironment(KeywordGrader()),
        TASK_ROWS,
        rows=len(shipped_rows()),
        gives="problem",
        replaced={"problem_id": "divisor-sum-360", "problem_type": "proof"},
        played=played_row,
        read=row_problem,
    )
