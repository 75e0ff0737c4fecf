"""The REPL environment: a persistent interpreter per session, tasks checked by the env.

Over /ws with the typed client where a user would drive it; in-process where a test needs
limits of its own (a short time-out)."""

from __future__ import annotations

import pytest
from repl_env import REPLAction, REPLEnv
from repl_env.server.environment import REPLEnvironment
from repl_env.server.tasks import BUILDERS

from openenv.core import ClientError
from openenv.sandbox import SandboxLimits
from openenv.testing import check_task_source
from tests.conftest import env_fixtures

url, env = env_fixtures("repl_env.server.app:app", REPLEnv)


def run(env, code: str):
    return env.execute(code)


def expected(task: str, seed: int) -> str:
    import random

    return BUILDERS[task](random.Random(seed)).expected


def test_variables_persist_between_steps(env):
    env.reset(seed=0)
    first = run(env, "x = 6 * 7")
    assert first.observation.result.success and first.observation.result.locals_snapshot == {
        "x": "42"
    }
    shown = run(env, "x + 1").observation
    assert shown.result.stdout == "43\n"  # a last expression is printed, as in a REPL
    assert "x" in shown.available_variables and "x" in env.list_variables()
    assert shown.iteration == 2 and not shown.done


def test_reset_starts_a_fresh_interpreter(env):
    env.reset(seed=0)
    run(env, "secret = 1")
    env.reset(seed=0)
    obs = run(env, "secret").observation
    assert not obs.result.success and "NameError" in obs.result.stderr


def test_a_task_solved_gives_reward_one(env):
    first = env.reset(seed=3, task="sum_primes").observation
    n = int(first.metadata["task_prompt"].rstrip("?").split()[-1])
    run(env, "from math import isqrt")
    run(env, f"total = sum(p for p in range(2, {n}) if all(p % d for d in range(2, isqrt(p) + 1)))")
    done = run(env, "FINAL(total)")
    assert done.done and done.reward == pytest.approx(1.0)
    assert done.observation.metadata["final_answer"] == expected("sum_primes", 3)
    assert done.observation.metadata["correct"] is True
    assert env.state().final_answer == expected("sum_primes", 3)


def test_a_wrong_answer_gives_reward_zero(env):
    env.reset(seed=3, task="sum_primes")
    done = env.submit_final_answer("12")
    assert done.done and done.reward == 0.0
    assert done.observation.metadata["correct"] is False
    assert done.observation.metadata["expected_answer"] == expected("sum_primes", 3)


def test_a_context_task_is_answered_through_the_answer_dict(env):
    first = env.reset(seed=5, task="word_count").observation
    word = first.metadata["task_prompt"].split("'")[1]
    assert first.context_length > 1000 and first.context_preview
    assert "context" in first.available_variables
    run(env, f"import re\nn = re.findall(r'[a-z]+', context.lower()).count({word!r})")
    done = run(env, "answer['content'] = n\nanswer['ready'] = True")
    assert done.done and done.reward == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("body", "reward", "tests"),
    [
        ("return ''.join(f'{k}{len(list(g))}' for k, g in itertools.groupby(s))", 1.0, "12/12"),
        ("return s", 0.0, "1/12"),
    ],
)
def test_a_function_task_is_scored_by_hidden_tests_in_the_sandbox(env, body, reward, tests):
    env.reset(seed=1, task="run_length")
    run(env, f"import itertools\ndef encode(s):\n    {body}")
    done = run(env, "print('FINAL(done)')")
    assert done.done and done.reward == pytest.approx(reward)
    assert done.observation.metadata["tests"] == tests


def test_a_missing_function_fails_its_tests(env):
    env.reset(seed=1, task="fizzbuzz")
    done = run(env, "FINAL('done')").observation
    assert done.done and done.reward == 0.0 and "no function named fizzbuzz" in done.metadata["why"]


def test_final_var_submits_a_variable(env):
    env.reset(seed=0, context="hello world", expected_answer="11")
    done = run(env, "n = len(context)\nFINAL_VAR('n')")
    assert done.done and done.reward == pytest.approx(1.0)
    assert done.observation.metadata["final_answer"] == "11"


def test_an_exception_is_shown_and_the_session_goes_on(env):
    env.reset(seed=0)
    run(env, "kept = 'yes'")
    failed = run(env, "def f():\n    return 1 / 0\nf()")
    result = failed.observation.result
    assert not result.success and not failed.done
    assert "return 1 / 0" in result.stderr and result.exception == (
        "ZeroDivisionError: division by zero"
    )
    assert failed.reward == pytest.approx(-0.05)
    assert run(env, "kept").observation.result.stdout == "'yes'\n"
    syntax = run(env, "def broken(:").observation.result
    assert not syntax.success and "SyntaxError" in syntax.stderr
    assert run(env, "kept").observation.result.success


def test_running_out_of_steps_ends_the_episode_with_a_penalty(env):
    env.reset(seed=0, max_iterations=2)
    assert not run(env, "a = 1").done
    last = run(env, "a")
    assert last.done and last.reward == pytest.approx(-0.1)
    assert last.observation.metadata["final_answer"] is None
    with pytest.raises(ClientError) as refused:
        run(env, "a")
    assert refused.value.server_code == "SESSION_ERROR"


def test_reset_options_are_checked(env):
    with pytest.raises(ClientError, match="brings its own context"):
        env.reset(task="sum_primes", context="text")
    with pytest.raises(ClientError) as refused:
        env.reset(task="no_such_task")
    assert refused.value.server_code == "VALIDATION_ERROR"
    with pytest.raises(ClientError, match="max_iterations"):
        env.reset(max_iterations=0)
    assert env.reset(seed=0).observation.iteration == 0


def test_the_same_seed_draws_the_same_task(env):
    prompts = {
        env.reset(seed=9, task="word_count").observation.metadata["task_prompt"] for _ in "12"
    }
    assert len(prompts) == 1
    other = env.reset(seed=10, task="sum_primes").observation.metadata["task_prompt"]
    assert other != env.reset(seed=11, task="sum_primes").observation.metadata["task_prompt"]


def test_a_session_cannot_read_another_sessions_files(url):
    with REPLEnv(base_url=url).sync() as a, REPLEnv(base_url=url).sync() as b:
        a.reset()
        b.reset()
        where = run(a, "import os\nopen('note.txt', 'w').write('x')\nos.path.abspath('note.txt')")
        path = where.observation.result.stdout.strip().strip("'")
        assert run(a, f"open({path!r}).read()").observation.result.stdout == "'x'\n"
        peek = run(b, f"open({path!r}).read()").observation.result
        assert not peek.success
        assert "FileNotFoundError" in peek.stderr or "PermissionError" in peek.stderr


def test_the_code_does_not_see_the_servers_environment(env, monkeypatch):
    monkeypatch.setenv("REPL_TEST_SECRET", "s3cret")  # the server's, set before the sandbox starts
    env.reset()
    names = run(env, "import os\nsorted(os.environ)").observation.result.stdout
    assert "PATH" in names and "REPL_TEST_SECRET" not in names and "PYTHONPATH" not in names
    assert (
        "s3cret" not in run(env, "print(open('/proc/1/environ').read())").observation.result.stdout
    )


def test_a_time_out_is_bounded_and_the_session_goes_on():
    environment = REPLEnvironment(SandboxLimits(timeout_s=2, cpu_s=30))
    environment.reset(seed=0, context="kept context")
    environment.step(REPLAction(code="x = 1"))
    stuck = environment.step(REPLAction(code="while True:\n    pass"))
    assert not stuck.result.success and not stuck.done
    assert "wall-clock time limit of 2 s exceeded" in stuck.result.stderr
    assert "restarted" in stuck.result.stderr
    after = environment.step(REPLAction(code="len(context)"))  # helpers and context come back
    assert after.result.stdout == "12\n"
    assert environment.step(REPLAction(code="FINAL(len(context))")).done
    environment.close()


def test_the_playground_draws_a_transcript():
    environment = REPLEnvironment()
    environment.reset(seed=2, task="sum_primes")
    environment.step(REPLAction(code="y = 2\ny ** 10"))
    text = environment.render().text
    environment.close()
    assert "# Task (sum_primes): What is the sum" in text
    assert ">>> y = 2\n... y ** 10\n1024" in text


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env):
    first = env.reset(seed=3, task_source="starter.jsonl", task_index=1).observation
    n = int(first.metadata["task_prompt"].rstrip("?").split()[-1])  # the seed's sum_primes
    assert first.metadata["task_prompt"] == f"What is the sum of all prime numbers below {n}?"
    state = env.state()
    assert (state.task, state.task_source, state.task_index) == ("sum_primes", "starter.jsonl", 1)
    done = run(env, f"FINAL({expected('sum_primes', 3)})")  # our task's answer scores it
    assert done.done and done.reward == pytest.approx(1.0)
    # context stays a reset option, held to the task as the task option is
    with pytest.raises(ClientError, match="brings its own context"):
        env.reset(task_source="starter.jsonl", task_index=0, context="text")


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task": "sort"}, r"row 0 of bad.jsonl: Input should be 'free', 'word_count'"),
    ({"task": 2}, r"row 0 of bad.jsonl: Input should be 'free'"),
    ({"context": "a b c", "code": "print(1)"}, r"has no column for 'task'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from repl_env.server.environment import TASK_ROWS, row_task

    from openenv.web.forms import reset_fields

    check_task_source(
        REPLEnvironment,
        TASK_ROWS,
        rows=4,
        gives="task",
        replaced={"task": "fizzbuzz"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
    options = {spec.name for spec in reset_fields(REPLEnvironment)}
    assert {"context", "task"} <= options  # both stay options of their own
