"""KernRL over the wire: a Triton kernel written by the agent runs in the sandbox through
Triton's interpreter (CPU), is checked against the PyTorch reference and timed against the
task's baseline kernel; errors come back with their traceback and the episode goes on."""

from __future__ import annotations

import dataclasses

import pytest
from kernrl_env import KernrlAction, KernrlEnv
from kernrl_env.server.environment import KernrlEnvironment
from kernrl_env.server.oracle import TORCH_SHORTCUT
from kernrl_env.server.tasks import TASKS

from openenv.core import ClientError
from openenv.sandbox.sandbox import SandboxLimits
from openenv.testing import check_env, check_task_source
from tests.sandboxpy import sandbox_python_has
from tests.servers import api_app, served

# Kernels run on the sandbox's Python (Debian's python3 when the server is root, as here):
# that one needs torch and triton (tests/run.sh installs them), not this process, where
# libtriton loaded beside torch._dynamo and the other tests' native libraries crashed pytest.
if not sandbox_python_has("torch", "triton"):
    pytest.skip("the sandbox's Python lacks torch or triton", allow_module_level=True)
SOLUTIONS = {t.task_id: t.solution for t in TASKS}
STARTERS = {t.task_id: t.starter for t in TASKS}


@pytest.fixture(scope="module")
def url():
    with served(api_app("kernrl_env.server.app:app")) as base:
        yield base


@pytest.fixture
def env(url):
    # an attempt starts a sandbox, imports torch and Triton and runs kernels interpreted
    with KernrlEnv(base_url=url, message_timeout_s=600).sync() as client:
        yield client


def send(env, source: str):
    return env.step(KernrlAction(source=source))


def test_a_wrong_kernel_then_the_reference_kernel_reaches_full_reward(env):
    first = env.reset(seed=0, task="vector_add", max_attempts=3).observation
    assert first.signature == "solve(x, y)" and "x: (4096,)" in first.task
    assert first.starter == STARTERS["vector_add"] and first.attempt == 0
    wrong = send(env, STARTERS["vector_add"])  # the template stores nothing: wrong output
    obs = wrong.observation
    assert wrong.reward == 0.0 and not obs.correct and not wrong.done
    assert obs.max_abs_error is None and "never stored read NaN" in obs.message
    assert obs.timing_mode == "interpreter timings (CPU)" and obs.baseline_ms > 0
    right = send(env, SOLUTIONS["vector_add"])
    obs = right.observation
    assert obs.correct and obs.max_abs_error == 0.0 and obs.attempt == 2
    assert obs.timing_mode == "interpreter timings (CPU)"
    assert obs.kernel_ms > 0 and obs.speedup == pytest.approx(obs.baseline_ms / obs.kernel_ms, 0.05)
    assert "interpreter timings (CPU)" in obs.message and "speed-up" in obs.message
    # one program over the whole vector against 64 small ones: far past the 4x of full reward
    assert right.reward == pytest.approx(1.0) and right.done
    assert obs.metadata["reward_components"] == pytest.approx({"correct": 1.0, "speedup": 1.0})


def test_errors_come_back_with_a_traceback_and_the_session_goes_on(env):
    env.reset(seed=1, task="relu", max_attempts=4)
    syntax = send(env, "def solve(x:\n    pass")
    assert syntax.reward == 0.0 and syntax.observation.error.startswith("SyntaxError")
    assert "kernel.py, line 1" in syntax.observation.traceback
    runtime = send(env, SOLUTIONS["relu"].replace("tl.maximum(", "tl.no_such_op("))
    obs = runtime.observation
    assert runtime.reward == 0.0 and not obs.correct and "no_such_op" in obs.error
    assert "kernel.py" in obs.traceback and "/tmp/openenv-code" not in obs.traceback
    shortcut = send(env, TORCH_SHORTCUT)  # PyTorch computing the op: refused
    assert shortcut.reward == 0.0 and "outside a Triton kernel" in shortcut.observation.error
    last = send(env, SOLUTIONS["relu"])
    assert last.observation.correct and last.reward == pytest.approx(1.0) and last.done
    with pytest.raises(ClientError, match="episode is over"):
        send(env, SOLUTIONS["relu"])


def test_bad_input_is_refused_with_a_reason(env):
    with pytest.raises(ClientError, match="unknown task 'conv'"):
        env.reset(seed=0, task="conv")
    with pytest.raises(ClientError):
        env.reset(seed=0, max_attempts=11)
    env.reset(seed=0, task="relu", max_attempts=1)
    with pytest.raises(ClientError) as refused:
        env.step(KernrlAction.model_construct(source="x" * 20_001))
    assert refused.value.server_code == "VALIDATION_ERROR"
    empty = send(env, "   ")
    assert empty.reward == 0.0 and "empty source" in empty.observation.error and empty.done


def test_the_same_seed_gives_the_same_task_and_inputs():
    env = KernrlEnvironment()
    picks = [env.reset(seed=seed).task_id for seed in (3, 3, 4, 5, 6, 7, 8)]
    assert picks[0] == picks[1] and len(set(picks)) > 1
    env.reset(seed=3)
    first = env._input_seed
    env.reset(seed=3)
    assert env._input_seed == first


def test_the_env_honours_the_contract():
    # actions that never reach the sandbox (they are refused before it): the contract is cheap
    def pick(env, rng):
        return KernrlAction(source=rng.choice(["", "def solve(:", "   "]))

    assert check_env(KernrlEnvironment(), steps=3, actions=pick) == []


@pytest.mark.parametrize("task", [t.task_id for t in TASKS])
def test_each_reference_kernel_is_correct_and_beats_its_baseline(task):
    env = KernrlEnvironment()
    env.reset(seed=2, task=task, max_attempts=1)
    obs = env.step(KernrlAction(source=SOLUTIONS[task]))
    assert obs.correct, obs.error or obs.message
    assert obs.speedup is not None and obs.speedup > 1.0
    env.close()


def test_an_endless_kernel_hits_the_time_limit_and_the_next_attempt_runs():
    limits = SandboxLimits.for_package("kernrl_env")
    env = KernrlEnvironment(limits=dataclasses.replace(limits, timeout_s=30.0, cpu_s=30))
    env.reset(seed=0, task="relu", max_attempts=2)
    stuck = env.step(
        KernrlAction(
            source=SOLUTIONS["relu"].replace(
                "    out =", "    while True:\n        pass\n    out =", 1
            )
        )
    )
    assert stuck.reward == 0.0 and not stuck.correct and not stuck.done
    assert stuck.error.startswith("the sandbox ended the attempt") and "time" in stuck.error
    assert env.step(KernrlAction(source=SOLUTIONS["relu"])).correct
    env.close()


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env):
    first = env.reset(seed=0, task_source="starter.jsonl", task_index=1).observation
    assert first.starter == STARTERS["relu"]
    state = env.state()
    assert (state.task_id, state.task_source, state.task_index) == ("relu", "starter.jsonl", 1)
    right = send(env, SOLUTIONS["relu"])  # the task's own reference grades it
    assert right.observation.correct and right.reward >= 0.5


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task": "conv"}, r"row 0 of bad.jsonl: no task 'conv'; tasks: vector_add"),
    ({"task": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task": "t" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"source": "import os"}, r"has no column for 'task'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from kernrl_env.server.environment import TASK_ROWS, row_task

    check_task_source(
        KernrlEnvironment,
        TASK_ROWS,
        rows=5,
        gives="task",
        replaced={"task": "relu"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
