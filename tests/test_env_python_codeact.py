"""Python CodeAct over the wire: cells run in the sandbox and keep their variables, hidden tests
score the function, and the transforms shape the reward (concise bonus, syntax penalty, safety
penalty) as named components."""

from __future__ import annotations

import pytest
from python_codeact_env import PythonCodeactAction, PythonCodeactEnv
from python_codeact_env.server.tasks import TASKS
from python_codeact_env.server.transforms import violation

from openenv.core import ClientError
from openenv.testing import check_task_source
from tests.servers import env_fixtures

url, env = env_fixtures("python_codeact_env.server.app:app", PythonCodeactEnv)
SOLUTIONS = {t.task_id: t.solution for t in TASKS}


def run(env, code: str):
    return env.step(PythonCodeactAction(code=code))


def test_a_solution_built_over_two_cells_passes_every_test(env):
    first = env.reset(seed=0, task="gcd").observation
    assert first.task.startswith("Define gcd(a, b)") and first.tests_total == 5
    partial = run(env, "def step(a, b):\n    return b, a % b")
    assert partial.observation.tests_passed == 0 and not partial.done
    assert partial.observation.failures[0].startswith("gcd(")
    assert "NameError" in partial.observation.failures[0]
    assert partial.reward == pytest.approx(0.1)  # nothing passes; a concise cell
    done = run(env, "def gcd(a, b):\n    while b:\n        a, b = step(a, b)\n    return a")
    obs = done.observation
    assert done.done and obs.solved and obs.tests_passed == obs.tests_total == 5
    assert done.reward == pytest.approx(1.1)
    assert obs.metadata["reward_components"] == pytest.approx(
        {"tests": 1.0, "transform:code_act_shaping": 0.1}
    )


def test_a_long_correct_cell_earns_the_tests_alone(env):
    env.reset(seed=0, task="fib")
    result = run(env, SOLUTIONS["fib"] + "\n# " + "x" * 120)
    assert result.done and result.reward == pytest.approx(1.0)
    assert result.observation.metadata["quality"] == {}


def test_invalid_syntax_is_penalised_and_the_session_goes_on(env):
    env.reset(seed=0, task="fizzbuzz")
    result = run(env, "def fizzbuzz(n:")
    assert "SyntaxError" in result.observation.stderr and result.observation.exit_code == 1
    assert result.reward == pytest.approx(0.1 - 0.2)
    assert result.observation.metadata["quality"] == {"concise": 0.1, "syntax_error": -0.2}
    assert run(env, SOLUTIONS["fizzbuzz"]).observation.solved


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("import os\nprint(os.getcwd())", "import os"),
        ("from subprocess import run", "import subprocess"),
        ("print(eval('6 * 7'))", "eval()"),
        ("open('notes.txt', 'w').write('x')", "open()"),
        ("__import__('socket')", "__import__()"),
    ],
)
def test_unsafe_code_earns_the_safety_penalty_whatever_it_did(env, code, why):
    env.reset(seed=0, task="flatten")
    result = run(env, code)
    assert result.reward == pytest.approx(-1.0)
    assert result.observation.metadata["safety_violation"] == why


def test_the_safety_check_reads_the_syntax_tree_not_the_text():
    assert violation("text = 'import os and eval(x)'") is None
    assert violation("import os.path") == "import os"
    assert violation("x.open('f')") == "open()"


def test_an_endless_loop_hits_the_limit_and_the_next_cell_runs(env):
    env.reset(seed=0, task="gcd")
    stuck = run(env, "while True:\n    pass")
    assert "time limit" in stuck.observation.stderr and stuck.observation.exit_code != 0
    assert run(env, "print(6 * 7)").observation.stdout == "42\n"


def test_the_same_seed_gives_the_same_task_inputs_and_rewards(env):
    def play(seed: int) -> tuple:
        obs = env.reset(seed=seed).observation
        result = run(env, "def noop(): pass")
        return obs.task_id, result.reward, tuple(result.observation.failures)

    assert play(4) == play(4)
    assert len({play(seed)[0] for seed in range(6)}) > 1


def test_bad_input_is_refused_with_a_reason(env):
    with pytest.raises(ClientError, match="unknown task 'sort'"):
        env.reset(seed=0, task="sort")
    env.reset(seed=0, task="gcd")
    with pytest.raises(ClientError) as refused:
        env.step(PythonCodeactAction.model_construct(code="x" * 20_001))
    assert refused.value.server_code == "VALIDATION_ERROR"


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env):
    first = env.reset(seed=0, task_source="starter.jsonl", task_index=5).observation
    assert first.task_id == "gcd" and first.task.startswith("Define gcd(a, b)")
    state = env.state()
    assert (state.task_id, state.task_source, state.task_index) == ("gcd", "starter.jsonl", 5)
    done = run(env, SOLUTIONS["gcd"])  # our hidden tests check it
    assert done.done and done.observation.solved


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task": "sort"}, r"row 0 of bad.jsonl: unknown task 'sort'; known: fib, "),
    ({"task": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task": "t" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"prompt": "Define sort(xs)", "code": "import os"}, r"has no column for 'task'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from python_codeact_env.server.environment import TASK_ROWS, PythonCodeactEnvironment, row_task

    check_task_source(
        PythonCodeactEnvironment,
        TASK_ROWS,
        rows=6,
        gives="task",
        replaced={"task": "fib"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
