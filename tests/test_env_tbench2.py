"""tbench2_env: Terminal-Bench tasks in a terminal, scored by each task's own tests.

Local mode over real WebSockets with the typed client: every shipped task played with its
solution.sh to 1.0 (twice: same rewards), an untouched task to 0.0, bad actions as
observations. The task loaders: Terminal-Bench 2's layout downloaded from ``TB2_REPO_URL``
(a local HTTP server stands in for the repository's zip). Docker mode in the Docker lane's
way: without an engine and the base image it is reported as not run (failed when
``OPENENV_DOCKER_LANE=required``).
"""

from __future__ import annotations

import http.server
import io
import threading
import zipfile
from pathlib import Path

import pytest
from tbench2_env import Tbench2Action, Tbench2Env
from tbench2_env.server.environment import Tbench2Environment
from tbench2_env.server.taskset import SHIPPED

from openenv.core import InvalidAction
from openenv.testing import check_task_source
from tests.docker.lane import engine_with
from tests.servers import env_fixtures

url, env = env_fixtures("tbench2_env.server.app:app", Tbench2Env)
TASKS = ["count-errors", "csv-summary", "fix-wordcount", "hello-world"]
BASE_IMAGE = "python:3.11-slim"


def solution(task: str) -> str:
    return (SHIPPED / task / "solution.sh").read_text()


def test_every_shipped_task_is_solved_by_its_solution_and_replays_the_same(env) -> None:
    rewards = {}
    for task in [*TASKS, "hello-world"]:  # the last one twice: same seed, same rewards
        first = env.reset(seed=5, task_id=task)
        assert first.observation.instruction and first.observation.task_id == task
        ran = env.run(solution(task))
        assert ran.observation.success, ran.observation.output
        done = env.evaluate()
        tests = done.observation.info["tests"]
        assert tests and set(tests.values()) == {"passed"}, done.observation.output
        rewards.setdefault(task, []).append([ran.reward, done.reward, done.done])
    assert all(runs[0] == [0.0, 1.0, True] for runs in rewards.values())
    assert rewards["hello-world"][0] == rewards["hello-world"][1]


def test_an_untouched_task_fails_its_tests_and_the_stage_lists_them(env) -> None:
    env.reset(task_id="count-errors")
    done = env.evaluate()
    assert done.reward == 0.0 and done.done
    assert done.observation.info["tests"]["test_errors_file_exists"] == "failed"
    assert done.observation.metadata["reward_components"]["all_tests_pass"] == 0.0
    assert env.state().evaluated and env.state().reward == 0.0


def test_the_shell_keeps_its_directory_and_files_and_maps_app(env) -> None:
    env.reset()
    step = env.step(Tbench2Action(action_type="write_file", file_path="notes/a.txt", content="x"))
    assert step.observation.output == "Wrote 1 bytes to /app/notes/a.txt"
    moved = env.run("cd /app/notes && pwd && cat a.txt")
    assert moved.observation.output == "/app/notes\nx"
    assert moved.observation.info["cwd"] == "/app/notes"
    assert env.run("ls").observation.output == "a.txt"
    failed = env.run("exit 3")
    assert not failed.observation.success and failed.observation.info["exit_code"] == 3


def test_bad_actions_are_observations_and_the_episode_goes_on(env) -> None:
    env.reset(task_id="hello-world")
    cases = [
        (Tbench2Action(command="  "), "exec needs a command"),
        (Tbench2Action(action_type="view"), "needs a session_id"),
        (Tbench2Action(action_type="kill", session_id="nope"), "no session 'nope'"),
        (Tbench2Action(action_type="write_file", file_path="/etc/x", content="y"), "/app or /tmp"),
        (Tbench2Action(command="python3 -i", block=False), "need TB2_MODE=docker"),
    ]
    for action, message in cases:
        result = env.step(action)
        assert not result.observation.success and message in result.observation.error, message
        assert not result.done
    assert env.run("echo 'Hello, world!' > hello.txt").observation.success
    assert env.evaluate().reward == 1.0


def test_unknown_tasks_and_paths_outside_the_task_folders_are_refused() -> None:
    environment = Tbench2Environment()
    with pytest.raises(InvalidAction, match="shipped tasks are count-errors"):
        environment.reset(task_id="no-such-task")
    with pytest.raises(InvalidAction, match="outside the task folders"):
        environment.reset(task_path="/etc")


TB2_TASK = {
    "instruction.md": "Write the number 42 into /app/answer.txt.\n",
    "task.toml": '[metadata]\ndifficulty = "easy"\ncategory = "demo"\n\n'
    "[verifier]\ntimeout_sec = 30.0\n\n[agent]\ntimeout_sec = 60.0\n",
    "environment/Dockerfile": "FROM python:3.11-slim\nWORKDIR /app\nCOPY seed.txt /app/\n",
    "environment/seed.txt": "seed\n",
    "tests/test.sh": "#!/bin/bash\nmkdir -p /logs/verifier\n"
    'if [ "$(cat /app/answer.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; '
    "echo 'PASSED test.sh::answer'; else echo 0 > /logs/verifier/reward.txt; "
    "echo 'FAILED test.sh::answer'; exit 1; fi\n",
    "solution/solve.sh": "#!/bin/bash\necho 42 > /app/answer.txt\n",
}


def test_a_terminal_bench_2_task_is_downloaded_from_the_repo_url_and_scored(
    monkeypatch, tmp_path: Path
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for rel, text in TB2_TASK.items():
            archive.writestr(f"terminal-bench-2-main/answer-42/{rel}", text)
    served: list[str] = []

    class Repo(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(buffer.getvalue())

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Repo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.delenv("TB2_TASKS_DIR", raising=False)
    monkeypatch.setenv("TB2_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TB2_REPO_URL", f"http://127.0.0.1:{server.server_port}/main.zip")
    environment = Tbench2Environment()
    try:
        first = environment.reset(task_id="answer-42")
        assert first.instruction == "Write the number 42 into /app/answer.txt."
        assert first.info["layout"] == "tb2"
        assert environment.step(Tbench2Action(command="cat seed.txt")).output == "seed"
        environment.step(Tbench2Action(command="echo 41 > /app/answer.txt"))
        assert environment.step(Tbench2Action(action_type="evaluate")).reward == 0.0
        environment.reset(task_id="answer-42")  # from the cache now
        environment.step(Tbench2Action(command=TB2_TASK["solution/solve.sh"]))
        done = environment.step(Tbench2Action(action_type="evaluate"))
        assert done.reward == 1.0 and done.info["tests"] == {"answer": "passed"}
    finally:
        environment.close()
        server.shutdown()
    assert served == ["/main.zip"]
    monkeypatch.setenv("TB2_REPO_URL", "http://127.0.0.1:9/none.zip")  # nothing listens there
    with pytest.raises(InvalidAction, match="could not download the tasks"):
        Tbench2Environment().reset(task_id="another-task")


# -- Docker mode (the Docker lane) ------------------------------------------------------------


@pytest.fixture(scope="module")
def engine():
    return engine_with(BASE_IMAGE)


def test_docker_mode_plays_a_task_in_its_own_container_and_removes_it(engine) -> None:
    environment = Tbench2Environment(mode="docker")
    first = environment.reset(task_id="fix-wordcount")
    assert first.info["mode"] == "docker"
    label = {"label": "org.openenv.tbench2.task=fix-wordcount"}
    containers = engine.containers.list(filters=label)
    assert len(containers) == 1
    try:
        wrong = environment.step(Tbench2Action(command="./wordcount.sh notes.txt"))
        assert wrong.output == "3"  # lines, not words: the bug
        start = Tbench2Action(command="python3 -i -q", block=False, session_id="py")
        assert environment.step(start).session_id == "py"
        wrote = environment.step(Tbench2Action(action_type="write", session_id="py",
                                               command="print(6 * 7)\n"))  # fmt: skip
        seen = wrote.output
        for _ in range(50):  # the interpreter answers when it has read the line
            if "42" in seen:
                break
            seen += environment.step(
                Tbench2Action(action_type="wait", session_id="py", wait_seconds=0.2)
            ).output
        assert "42" in seen
        assert environment.step(Tbench2Action(action_type="kill", session_id="py")).success
        fixed = '#!/bin/bash\nwc -w < "$1"\n'
        environment.step(
            Tbench2Action(action_type="write_file", file_path="wordcount.sh", content=fixed)
        )
        environment.step(Tbench2Action(command="chmod +x wordcount.sh"))
        done = environment.step(Tbench2Action(action_type="evaluate"))
        assert done.reward == 1.0, done.output
        assert "PASSED test_outputs.py::test_counts_the_words_of_notes" in done.output
    finally:
        environment.close()
    assert not engine.containers.list(all=True, filters=label)


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_its_task_in_its_own_words(env) -> None:
    first = env.reset(task_source="starter.jsonl", task_index=1).observation
    assert first.task_id == "hello-world" and first.instruction.startswith("Put a one-line file")
    state = env.state()
    assert (state.task_source, state.task_index) == ("starter.jsonl", 1)
    assert env.run(solution("hello-world")).observation.success
    assert env.evaluate().reward == 1.0  # the task's own tests score it
    env.reset(task_source="starter.jsonl", task_index=3)
    assert env.state().task_id == "count-errors" and "three services" in env.state().instruction


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task_id": "no-such-task"}, r"row 0 of bad.jsonl: no task 'no-such-task'"),
    ({"task_id": "../../etc"}, r"row 0 of bad.jsonl: bad task id"),
    ({"task_id": 7}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task_id": "hello-world", "instruction": ["x"]}, r"row 0 of bad.jsonl: Input should"),
    ({"task_id": "hello-world", "instruction": "x" * 16_001}, r"at most 16000 characters"),
    ({"command": "rm -rf /"}, r"row 0 of bad.jsonl has no column for 'task_id'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from tbench2_env.server.environment import TASK_ROWS, row_task

    check_task_source(
        Tbench2Environment,
        TASK_ROWS,
        rows=6,
        gives="task",
        replaced={"task_id": "csv-summary"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
