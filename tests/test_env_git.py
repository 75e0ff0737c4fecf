"""The git environment: local repositories cloned, edited, committed and pushed in a sandbox
per session, over real WebSockets with the typed client, with the reference's actions.

Tasks are scored by the repository's original tests on what was committed; a bad action is a
failed observation and the episode goes on; pushes go to the session's own origin, never to
the shared repositories; one session cannot see another's workspace.
"""

from __future__ import annotations

import json
import os
import subprocess

from git_env import GitAction, GitEnv
from git_env.server.environment import GitEnvironment
from git_env.server.repos import CALC_V2
from git_env.server.store import shared_store
from websockets.sync.client import connect

from openenv.testing import check_env, check_task_source
from tests.servers import env_fixtures

url, env = env_fixtures("git_env.server.app:app", GitEnv)
FIXED = CALC_V2.replace("sum(values) // len(values)", "sum(values) / len(values)")


def act(env, **fields):
    return env.step(GitAction(**fields)).observation


def git(env, command: str, repo: str):
    return act(env, action_type="execute_git_command", command=command, working_dir=repo)


def test_git_honours_the_contract() -> None:
    check_env(GitEnvironment(), steps=6)


def test_the_reference_flow_lists_clones_and_runs_git(env) -> None:
    first = env.reset()
    assert first.observation.success and "calculator" in first.observation.output
    listed = act(env, action_type="list_repos")
    assert [r["name"] for r in listed.repos] == ["calculator", "greeter", "notes"]
    assert listed.repos[0]["clone_url"].startswith("file:///")
    cloned = act(env, action_type="clone_repo", repo_name="notes", target_dir="my-notes")
    assert cloned.success and cloned.output.startswith("Cloned to: ~/my-notes")
    status = git(env, "status", "my-notes")
    assert status.success and "On branch main" in status.output
    log = git(env, "git log --oneline", "my-notes")
    assert log.output.splitlines()[0].endswith("Add meeting notes")
    assert env.state().gitea_ready is True and env.state().cloned == ["my-notes"]


def test_fixing_the_bug_and_committing_scores_one(env) -> None:
    first = env.reset(task_id="fix_failing_test")
    assert "Workspace: ~/calculator" in first.observation.output
    tests = act(env, action_type="run_command", command="python3 run_tests.py",
                working_dir="calculator")  # fmt: skip
    assert not tests.success and "1 failed" in tests.output
    act(env, action_type="write_file", path="calc.py", content=FIXED, working_dir="calculator")
    uncommitted = env.step(GitAction(action_type="submit"))
    assert uncommitted.done and uncommitted.reward == 0.0  # only what is committed counts
    env.reset(task_id="fix_failing_test")
    act(env, action_type="write_file", path="calc.py", content=FIXED, working_dir="calculator")
    assert git(env, "commit -am 'Fix average'", "calculator").success
    done = env.step(GitAction(action_type="submit"))
    assert done.done and done.reward == 1.0
    assert "5 tests, 0 failed" in done.observation.message


def test_editing_the_tests_instead_gains_nothing(env) -> None:
    env.reset(task_id="fix_failing_test")
    loosen = "sed -i 's/1.5/1/' tests/test_calc.py && git commit -qam 'Loosen test'"
    act(env, action_type="run_command", command=loosen, working_dir="calculator")
    assert env.step(GitAction(action_type="submit")).reward == 0.0


def test_a_revert_keeps_history_and_a_reset_loses_half(env) -> None:
    env.reset(task_id="revert_commit")
    assert git(env, "revert --no-edit HEAD", "greeter").success
    assert env.step(GitAction(action_type="submit")).reward == 1.0
    env.reset(task_id="revert_commit")
    assert git(env, "reset --hard HEAD~1", "greeter").success
    assert env.step(GitAction(action_type="submit")).reward == 0.5


def test_a_pushed_branch_reaches_the_sessions_origin_not_the_shared_repository(env) -> None:
    env.reset(task_id="feature_branch")
    git(env, "checkout -b feature/todo", "notes")
    act(env, action_type="write_file", path="TODO.md", content="# TODO\n- more\n",
        working_dir="notes")  # fmt: skip
    git(env, "add TODO.md", "notes")
    git(env, "commit -m 'Add TODO'", "notes")
    pushed = git(env, "push -u origin feature/todo", "notes")
    assert pushed.success, pushed.error
    done = env.step(GitAction(action_type="submit"))
    assert done.reward == 1.0, done.observation.message
    shared = shared_store().repos["notes"].path
    branches = subprocess.run(["git", "--git-dir", shared, "branch"], capture_output=True,
                              text=True, check=True).stdout  # fmt: skip
    assert branches.split() == ["*", "main"]


def test_the_shared_repositories_cannot_be_written(env) -> None:
    env.reset(task_id="fix_failing_test")
    shared = shared_store().repos["calculator"].path
    git(env, "commit --allow-empty -m 'Sneaky'", "calculator")
    pushed = git(env, f"push file://{shared} main", "calculator")
    assert not pushed.success and "failed to push" in pushed.error
    main = subprocess.run(["git", "--git-dir", shared, "rev-parse", "main"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    assert main.strip() == shared_store().repos["calculator"].head


def test_bad_actions_fail_clearly_and_the_episode_goes_on(env) -> None:
    env.reset()
    unknown = act(env, action_type="clone_repo", repo_name="nope")
    assert not unknown.success and "available: calculator, greeter, notes" in unknown.error
    assert not act(env, action_type="read_file").success  # no path
    outside = act(env, action_type="read_file", path="../../etc/passwd")
    assert "inside ~" in outside.error
    assert not git(env, "'unclosed", "").success
    assert not git(env, "status", "missing-dir").success
    assert act(env, action_type="list_repos").success
    assert env.state().step_count == 6


def test_an_unknown_action_type_is_refused_by_the_server_and_the_session_lives(url) -> None:
    with connect(url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {}}))
        assert json.loads(ws.recv(timeout=60))["type"] == "observation"
        ws.send(json.dumps({"type": "step", "data": {"action_type": "rm_rf"}}))
        refused = json.loads(ws.recv(timeout=60))
        assert refused["type"] == "error" and refused["data"]["code"] == "VALIDATION_ERROR"
        assert "list_repos" in refused["data"]["message"]
        ws.send(json.dumps({"type": "step", "data": {"action_type": "list_repos"}}))
        assert json.loads(ws.recv(timeout=60))["data"]["observation"]["success"] is True


def test_the_same_actions_give_the_same_commit_ids(url) -> None:
    ids = []
    for _ in range(2):
        with GitEnv(base_url=url).sync() as client:
            client.reset(task_id="fix_failing_test")
            act(client, action_type="write_file", path="calc.py", content=FIXED,
                working_dir="calculator")  # fmt: skip
            git(client, "commit -am 'Fix average'", "calculator")
            ids.append(git(client, "rev-parse HEAD", "calculator").output)
    assert ids[0] == ids[1] and len(ids[0].strip()) == 40


def test_a_session_cannot_see_another_sessions_workspace(url) -> None:
    with GitEnv(base_url=url).sync() as a, GitEnv(base_url=url).sync() as b:
        a.reset(task_id="fix_failing_test")
        b.reset()
        theirs = act(a, action_type="run_command", command="pwd | rev").output.strip()[::-1]
        peek = act(b, action_type="run_command", command=f"ls {theirs}/calculator")
        assert not peek.success and "No such file or directory" in peek.error
        tmp = act(b, action_type="run_command", command="ls /tmp").output.split()
        assert len(tmp) == 1 and theirs.rsplit("/", 1)[1] not in tmp  # its own directory only
        environ = act(b, action_type="read_file", path=f"../../proc/{os.getpid()}/environ")
        assert not environ.success
        server = act(b, action_type="run_command", command=f"cat /proc/{os.getpid()}/environ")
        assert not server.success and "PATH=" not in server.output


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env) -> None:
    first = env.reset(task_source="starter.jsonl", task_index=0)
    assert "Workspace: ~/calculator" in first.observation.output
    state = env.state()
    assert (state.task_id, state.task_source, state.task_index) == (
        "fix_failing_test",
        "starter.jsonl",
        0,
    )
    act(env, action_type="write_file", path="calc.py", content=FIXED, working_dir="calculator")
    assert git(env, "commit -am 'Fix average'", "calculator").success
    done = env.step(GitAction(action_type="submit"))  # the task's own checker scores
    assert done.done and done.reward == 1.0


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task_id": "rm_rf"}, r"row 0 of bad.jsonl: no task 'rm_rf'; tasks: fix_failing_test"),
    ({"task_id": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task_id": "t" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"command": "git push --force"}, r"has no column for 'task_id'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from git_env.server.environment import TASK_ROWS, row_task

    check_task_source(
        GitEnvironment,
        TASK_ROWS,
        rows=3,
        gives="task",
        replaced={"task_id": "revert_commit"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
