"""The coding environment in-process: cells share variables, reset clears them, state tracks."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from coding_env import CodeAction, CodeObservation
from coding_env.server.environment import CodingEnvironment

from openenv.core import Text
from openenv.sandbox.sandbox import SandboxLimits

LIMITS = SandboxLimits(timeout_s=20, cpu_s=10, memory_mb=256, file_size_mb=4, processes=16)


@pytest.fixture
def env() -> Iterator[CodingEnvironment]:
    environment = CodingEnvironment(LIMITS)
    environment.reset(seed=0)
    yield environment
    environment.close()


def run(env: CodingEnvironment, code: str) -> CodeObservation:
    return env.step(CodeAction(code=code))


def test_variables_persist_between_steps_of_an_episode(env: CodingEnvironment) -> None:
    assert run(env, "x = 5 + 3").exit_code == 0
    obs = run(env, "print(f'Result: {x}')")
    assert obs.stdout == "Result: 8\n" and obs.stderr == "" and obs.exit_code == 0
    assert obs.reward == 1.0


def test_reset_starts_a_fresh_interpreter(env: CodingEnvironment) -> None:
    run(env, "secret = 42")
    first = env.reset()
    assert (first.stdout, first.stderr, first.exit_code) == ("", "", 0)
    obs = run(env, "print(secret)")
    assert obs.exit_code == 1 and "NameError: name 'secret' is not defined" in obs.stderr


def test_an_exception_gives_a_traceback_and_exit_code_one(env: CodingEnvironment) -> None:
    obs = run(env, "def f():\n    return 1 / 0\nf()")
    assert obs.exit_code == 1 and obs.reward == 0.0
    assert "return 1 / 0" in obs.stderr and "ZeroDivisionError" in obs.stderr
    assert env.state.last_exit_code == 1


def test_system_exit_sets_the_exit_code_and_keeps_the_interpreter(env: CodingEnvironment) -> None:
    run(env, "kept = 'yes'")
    assert run(env, "raise SystemExit(3)").exit_code == 3
    assert run(env, "print(kept)").stdout == "yes\n"


def test_state_counts_steps_and_remembers_the_last_exit_code(env: CodingEnvironment) -> None:
    run(env, "import sys; sys.exit(2)")
    run(env, "pass")
    assert env.state.step_count == 2 and env.state.last_exit_code == 0


def test_output_of_child_processes_is_captured(env: CodingEnvironment) -> None:
    obs = run(env, "import os\nos.system('echo from-shell; echo oops >&2')")
    assert obs.stdout == "from-shell\n" and obs.stderr == "oops\n"


def test_long_output_is_cut_with_a_note() -> None:
    environment = CodingEnvironment(SandboxLimits(output_bytes=100))
    environment.reset()
    obs = environment.step(CodeAction(code="print('y' * 5000)"))
    environment.close()
    assert obs.stdout.startswith("y" * 100) and "more bytes of output not shown" in obs.stdout


def test_each_episode_works_in_a_private_directory_gone_at_close() -> None:
    environment = CodingEnvironment(LIMITS)
    environment.reset()
    code = "import os; print(os.getcwd(), oct(os.stat('.').st_mode & 0o777))"
    cwd, mode = environment.step(CodeAction(code=code)).stdout.split()
    assert mode == "0o700"
    assert not os.path.exists(cwd)  # on the sandbox's own disk, not the host's
    seen_from_server = environment._sandbox.host_path("")
    assert os.path.isdir(seen_from_server)
    environment.close()
    assert not os.path.exists(seen_from_server)


def test_render_shows_the_last_output(env: CodingEnvironment) -> None:
    run(env, "print('hello')")
    view = env.render()
    assert isinstance(view, Text) and view.text == "hello\nexit code 0"


def test_render_before_the_first_step_says_how_to_run_code(env: CodingEnvironment) -> None:
    env.reset(seed=0)
    view = env.render()
    assert isinstance(view, Text) and "fresh interpreter" in view.text
    assert "CodeAction(code=" in view.text
    run(env, "x = 1")
    assert env.render().text == "exit code 0"
