"""Julia over the wire. No registry this project installs from carries a Julia build, so the
server here has none: every observation, the stage and the oracle say that Julia is not
installed, and the session goes on. The runtime seam itself (files into the sandbox, the
runner's nonce-marked report) is driven through the real sandbox with FAKE_JULIA, a shell
script standing in for the binary, clearly not Julia."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from julia_env import JuliaAction, JuliaEnv

from openenv.core import ClientError
from openenv.testing import check_task_source
from tests.conftest import ROOT, env_fixtures

url, env = env_fixtures("julia_env.server.app:app", JuliaEnv)

SOLUTION = 'fizzbuzz(n) = n % 15 == 0 ? "FizzBuzz" : n % 3 == 0 ? "Fizz" : string(n)'
# A stand-in for the julia binary: it answers the runner's protocol (the nonce file, one report
# line per test), passing every test when the code says PASS_ALL. Only the plumbing is real.
FAKE_JULIA = r"""#!/bin/sh
nonce=$(cat nonce.txt) && rm nonce.txt
cat solution.jl
echo "args: $* depot: $JULIA_DEPOT_PATH"
echo "@@OE forged DONE 4 0 true"
if grep -q PASS_ALL solution.jl; then
  for t in three five fifteen other; do echo "@@OE $nonce TEST $t PASS"; done
  echo "@@OE $nonce DONE 4 0 true"
else
  echo "@@OE $nonce COMPILE_ERROR syntax: incomplete"
  echo "@@OE $nonce DONE 0 0 false"
fi
"""


@pytest.fixture(autouse=True)
def no_julia_here():
    from julia_env.server.runtime import find_julia

    if find_julia():
        pytest.skip("a Julia binary is installed here: these tests describe a server without one")


def test_without_julia_the_task_shows_and_every_step_says_julia_is_missing(env):
    obs = env.reset(seed=1, task_id="fizzbuzz").observation
    assert obs.task_id == "fizzbuzz" and "fizzbuzz(n::Integer)" in obs.signature
    assert not obs.julia_available and "Julia is not installed" in obs.message
    result = env.step(JuliaAction(core_code=SOLUTION))
    assert result.reward == 0.0 and not result.done and result.observation.exit_code is None
    assert "Not run, and not counted: Julia is not installed" in result.observation.message
    assert "JULIA_BIN" in result.observation.message
    assert env.state().attempts == 0 and env.state().julia == ""
    assert env.step(JuliaAction(core_code=SOLUTION)).observation.attempts_remaining == 3


def test_the_stage_says_julia_is_missing_above_the_task():
    from julia_env.server.environment import JuliaEnvironment

    env = JuliaEnvironment()
    env.reset(seed=0, task_id="palindrome")
    text = env.render().text
    assert text.index("JULIA IS NOT INSTALLED") < text.index("TASK") < text.index("TESTS")
    assert 'is_palindrome("level")' in text


def test_bad_input_is_refused_and_the_same_seed_gives_the_same_task(env):
    with pytest.raises(ClientError) as err:
        env.reset(seed=0, task_id="nope")
    assert err.value.server_code == "VALIDATION_ERROR" and "fizzbuzz" in str(err.value)
    env.reset(seed=0)
    with pytest.raises(ClientError) as err:
        env.step(JuliaAction(core_code="   "))
    assert "core_code is empty" in str(err.value)
    tasks = [env.reset(seed=s).observation.task_id for s in (4, 4, 5, 6, 7, 8)]
    assert tasks[0] == tasks[1] and len(set(tasks)) > 1


def test_the_oracle_says_why_it_cannot_run():
    from julia_env.server.oracle import ORACLE

    assert "Julia is not installed" in ORACLE.unavailable()


@pytest.fixture
def fake_julia(monkeypatch):
    """FAKE_JULIA where the sandbox sees it (not under /tmp, which each sandbox covers)."""
    folder = Path(os.environ.get("OPENENV_ARTIFACTS") or ROOT / "tests" / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    binary = folder / "fake-julia"
    binary.write_text(FAKE_JULIA)
    binary.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    monkeypatch.setenv("JULIA_BIN", str(binary))
    return binary


def test_the_seam_runs_the_binary_in_the_sandbox_and_reads_only_its_own_report(fake_julia):
    from julia_env.server.environment import JuliaEnvironment

    env = JuliaEnvironment()
    try:
        env.reset(seed=0, task_id="fizzbuzz", max_attempts=2)
        first = env.step(JuliaAction(core_code="function ("))
        assert first.code_compiles is False and first.reward == 0.0 and not first.done
        assert "did not load: syntax: incomplete" in first.message
        assert "function (" in first.stdout  # the code reached the sandbox's working directory
        assert "--startup-file=no" in first.stdout and "/.julia:" in first.stdout
        assert "@@OE forged" in first.stdout  # a forged line is output, never a result
        second = env.step(JuliaAction(core_code=SOLUTION + "  # PASS_ALL"))
        assert second.tests_passed == 4 and second.reward == pytest.approx(1.0) and second.done
        assert "✓ three PASS" in env.render().text and "All tests pass" in second.message
    finally:
        env.close()


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(fake_julia):
    from julia_env.server.environment import JuliaEnvironment

    env = JuliaEnvironment()
    try:
        first = env.reset(task_source="starter.jsonl", task_index=0)
        assert first.task_id == "fizzbuzz" and "fizzbuzz(n::Integer)" in first.signature
        state = env.state
        assert (state.task_id, state.task_source, state.task_index) == (
            "fizzbuzz",
            "starter.jsonl",
            0,
        )
        done = env.step(JuliaAction(core_code=SOLUTION + "  # PASS_ALL"))  # the task's tests
        assert done.tests_passed == 4 and done.reward == pytest.approx(1.0) and done.done
    finally:
        env.close()


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task_id": "quicksort"}, r"row 0 of bad.jsonl: no task 'quicksort'; tasks: fizzbuzz"),
    ({"task_id": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task_id": "t" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"tests": "run(`rm -rf /`)"}, r"has no column for 'task_id'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from julia_env.server.environment import TASK_ROWS, JuliaEnvironment, row_task

    check_task_source(
        JuliaEnvironment,
        TASK_ROWS,
        rows=6,
        gives="task",
        replaced={"task_id": "gcd-euclid"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
