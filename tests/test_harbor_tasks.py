"""Harbor tasks from local folders: the shipped ones load; a folder that is not a task, or a task
that is broken, is refused with an error naming the file and the fault; reads are bounded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from openenv.core.harness.tasks import (
    MAX_INSTRUCTION_BYTES,
    TaskError,
    load_task,
    load_tasks,
    shipped_tasks,
)

TOML = """version = "1.0"
[metadata]
difficulty = "easy"
tags = ["x"]
[verifier]
timeout_sec = 30.0
[agent]
timeout_sec = 90
"""


def make_task(root: Path, name: str = "t", toml: str = TOML, instruction: str = "Do it.") -> Path:
    task = root / name
    (task / "tests").mkdir(parents=True)
    (task / "task.toml").write_text(toml)
    (task / "instruction.md").write_text(instruction)
    (task / "tests" / "test.sh").write_text("echo 1 > $LOGS_DIR/verifier/reward.txt\n")
    return task


def test_the_shipped_tasks_load_with_their_settings() -> None:
    tasks = {t.name: t for t in load_tasks(shipped_tasks())}
    assert set(tasks) == {"fix-add", "hello-file"}
    fix = tasks["fix-add"]
    assert "add(2, 3)" in fix.instruction
    assert fix.agent_timeout_s == 120.0 and fix.verifier_timeout_s == 60.0
    assert fix.metadata["difficulty"] == "easy" and "python" in fix.metadata["tags"]
    assert fix.files("environment/app") == {
        "calc.py": (fix.path / "environment/app/calc.py").read_bytes()
    }
    assert set(fix.files("tests")) == {"test.sh"}
    assert (fix.path / "solution" / "solve.sh").is_file()
    assert (fix.path / "environment" / "Dockerfile").is_file()
    assert tasks["hello-file"].summary()["category"] == "file-operations"


def test_a_dataset_folder_reads_every_task_in_it_by_name(tmp_path: Path) -> None:
    for name in ("b-task", "a-task"):
        make_task(tmp_path, name)
    (tmp_path / "notes").mkdir()  # not a task: skipped
    tasks = load_tasks(tmp_path)
    assert [t.name for t in tasks] == ["a-task", "b-task"]
    assert tasks[0].agent_timeout_s == 90.0 and tasks[0].verifier_timeout_s == 30.0
    assert [t.name for t in load_tasks(tmp_path / "a-task")] == ["a-task"]  # one task too


def test_an_unknown_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no such task directory"):
        load_task(tmp_path / "missing")
    with pytest.raises(TaskError, match="no such task or dataset directory"):
        load_tasks(tmp_path / "missing")
    with pytest.raises(TaskError, match=r"neither a task .* nor a dataset"):
        load_tasks(tmp_path)
    with pytest.raises(TaskError, match=r"no task\.toml"):
        load_task(tmp_path)


def test_a_task_without_an_instruction_says_so(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    (task / "instruction.md").unlink()
    with pytest.raises(TaskError, match=r"no instruction.md \(what the agent is told\)"):
        load_task(task)
    (task / "instruction.md").write_text("  \n")
    with pytest.raises(TaskError, match="empty"):
        load_task(task)


def test_bad_toml_names_the_file_and_the_fault(tmp_path: Path) -> None:
    task = make_task(tmp_path, toml="version = \n")
    with pytest.raises(TaskError, match=r"task.toml: not valid TOML"):
        load_task(task)
    for toml, fault in [
        ("verifier = 3\n", r"\[verifier\] must be a table"),
        ("[agent]\ntimeout_sec = 'long'\n", "agent.timeout_sec must be a number"),
        ("[agent]\ntimeout_sec = -1\n", r"agent.timeout_sec must be in \(0, 86400\]"),
        ("[verifier]\ntimeout_sec = true\n", "verifier.timeout_sec must be a number"),
        ("[verifier.env]\nA = 1\n", "verifier.env must be a table of strings"),
        ("[environment]\ndocker_image = 5\n", "docker_image must be a string"),
    ]:
        (task / "task.toml").write_text(toml)
        with pytest.raises(TaskError, match=fault):
            load_task(task)


def test_a_task_without_a_verifier_is_refused(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    shutil.rmtree(task / "tests")
    with pytest.raises(TaskError, match=r"no tests/test\.sh"):
        load_task(task)


def test_reads_are_bounded(tmp_path: Path) -> None:
    task = make_task(tmp_path, instruction="x" * (MAX_INSTRUCTION_BYTES + 1))
    with pytest.raises(TaskError, match="over the limit"):
        load_task(task)
    (task / "instruction.md").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(TaskError, match="not UTF-8"):
        load_task(task)


def test_a_symlink_in_a_task_is_refused(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    (task / "tests" / "secret").symlink_to("/etc/hostname")
    loaded = load_task(task)
    with pytest.raises(TaskError, match="symlinks are not allowed"):
        loaded.files("tests")
