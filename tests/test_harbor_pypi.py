"""Harbor's own task model (the harbor package from PyPI, in its own Python >= 3.12 virtualenv)
reads our tasks too: the shipped ones agree, and a task Harbor refuses is reported with
Harbor's message, by ``check_tasks`` and by ``openenv harbor check`` / ``info``, for a local
folder and for a Hub dataset (the fake Hub, tests/fake_hub.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fake_hub import FakeHub, harbor_task_files, openenv_cli

from openenv.cli.main import main
from openenv.core.harness.harbor_pypi import (
    NOT_INSTALLED,
    HarborCheckError,
    check_split,
    check_tasks,
    find_python,
    harbor_problem,
)
from openenv.core.harness.harnesses import HarnessUnavailable, install_harness
from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.core.harness.tasks.datasets import read_folder

VERSION = "0.26.0"


@pytest.fixture(scope="module", autouse=True)
def harbor_installed() -> None:
    """The harbor package under the harness home, installed once per machine (from PyPI)."""
    if harbor_problem() is None:
        return
    try:
        find_python()
    except HarnessUnavailable as exc:
        pytest.skip(str(exc))
    install_harness("harbor")  # `openenv harbor install harbor`'s target
    assert harbor_problem() is None


def _dataset(tmp_path: Path) -> Path:
    """The shipped hello-file, and two copies of it that Harbor refuses and we read: one for
    Windows without a Windows verifier, one with a verifier mode Harbor does not know."""
    hello = shipped_tasks() / "hello-file"
    for name in ("hello-file", "windows", "sideways"):
        shutil.copytree(hello, tmp_path / name)
    _set(tmp_path / "windows", "[environment]", 'os = "windows"')
    _set(tmp_path / "sideways", "[verifier]", 'environment_mode = "sideways"')
    return tmp_path


def _set(task: Path, section: str, line: str) -> None:
    toml = task / "task.toml"
    text = toml.read_text()
    assert section in text
    toml.write_text(text.replace(section, f"{section}\n{line}", 1))


def test_the_shipped_tasks_agree_with_harbors_task_model() -> None:
    result = check_tasks(load_tasks(shipped_tasks()))
    assert (result.version, result.differ) == (VERSION, [])
    assert sorted(result.agree) == ["fix-add", "hello-file"]
    assert result.line() == f"checked with harbor {VERSION}: 2 tasks agree, 0 differ"


def test_a_task_harbor_refuses_is_reported_with_harbors_message(tmp_path: Path) -> None:
    split = read_folder(_dataset(tmp_path), name="mine")
    assert (len(split.tasks), split.problems) == (3, [])  # our loader reads all three
    result = check_tasks(split.tasks)
    assert result.agree == ["hello-file"]
    reasons = {p.task: p.reason for p in result.differ}
    assert reasons["windows"].startswith(f"harbor {VERSION} refuses it: FileNotFoundError: ")
    assert "[environment].os = 'windows' but does not contain tests/test.bat" in reasons["windows"]
    assert "verifier.environment_mode" in reasons["sideways"]
    assert "Input should be 'shared' or 'separate'" in reasons["sideways"]


def test_an_instruction_harbor_reads_otherwise_is_a_difference(tmp_path: Path) -> None:
    task = tmp_path / "canary"
    shutil.copytree(shipped_tasks() / "hello-file", task)
    text = (task / "instruction.md").read_text()
    (task / "instruction.md").write_text(f"<!-- canary GUID 26b5c67b -->\n{text}")
    [problem] = check_tasks(load_tasks(task)).differ
    assert "instruction.md" in problem.reason and "canary" in problem.reason


def test_a_task_we_refuse_is_checked_the_other_way(tmp_path: Path, capsys) -> None:
    """Both ways: a task we refuse (an agent timeout over our 24 h bound) that Harbor reads is a
    difference with our reason; one both refuse (its task.toml is not TOML) is counted, not a
    difference."""
    for name in ("hello-file", "long", "broken"):
        shutil.copytree(shipped_tasks() / "hello-file", tmp_path / name)
    toml = tmp_path / "long" / "task.toml"
    toml.write_text(toml.read_text().replace("timeout_sec = 120.0", "timeout_sec = 1e9"))
    (tmp_path / "broken" / "task.toml").write_text('version = "1.0"\n[agent\n')
    split = read_folder(tmp_path, name="mine")
    assert [t.name for t in split.tasks] == ["hello-file"] and len(split.problems) == 2
    result = check_split(split)
    assert result.agree == ["hello-file"] and result.both_refuse == ["broken"]
    [long] = result.differ
    assert long.task == "long"
    assert long.reason.startswith(f"harbor {VERSION} reads it, we refuse it: ")
    assert "agent.timeout_sec must be in (0, 86400]" in long.reason
    assert result.line().endswith("1 tasks agree, 1 differ, 1 refused by both")
    assert check_split(split, limit=2).unchecked == 1  # the limit counts both kinds
    assert main(["harbor", "check", "--dataset", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "differs: long: harbor" in out and "refused by both: broken" in out


def test_checks_are_bounded(tmp_path: Path) -> None:
    tasks = load_tasks(_dataset(tmp_path))
    result = check_tasks(tasks, limit=1)
    assert (len(result.agree) + len(result.differ), result.unchecked) == (1, 2)
    assert "2 over the limit" in result.line()
    with pytest.raises(HarborCheckError, match="took over"):
        check_tasks(tasks, timeout_s=0.001)


def test_harbor_check_prints_each_difference(tmp_path: Path, capsys) -> None:
    assert main(["harbor", "check", "--dataset", str(_dataset(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert f"checked with harbor {VERSION}: 1 tasks agree, 2 differ" in out
    assert f"differs: windows: harbor {VERSION} refuses it: FileNotFoundError" in out
    assert f"differs: sideways: harbor {VERSION} refuses it: ValidationError" in out
    assert main(["harbor", "check", "--dataset", str(shipped_tasks())]) == 0
    assert "2 tasks agree, 0 differ" in capsys.readouterr().out


def test_a_hub_dataset_is_checked_from_its_download(hub: FakeHub, tmp_path: Path) -> None:
    windows = 'version = "1.0"\n[environment]\nos = "windows"\n'
    files = {**harbor_task_files("tasks/a"), **harbor_task_files("tasks/b", toml=windows)}
    hub.add_harbor_dataset("org/mixed", files)
    done = openenv_cli(["harbor", "check", "--dataset", "org/mixed"], hub, tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"org/mixed: checked with harbor {VERSION}: 1 tasks agree, 1 differ" in done.stdout
    assert "differs: b: harbor" in done.stdout and "tests/test.bat" in done.stdout


def test_harbor_info_says_how_many_agree(tmp_path: Path, capsys) -> None:
    assert main(["harbor", "info", "--dataset", str(_dataset(tmp_path))]) == 0
    assert f"checked with harbor {VERSION}: 1 tasks agree, 2 differ" in capsys.readouterr().out


def test_without_the_package_nothing_is_checked_and_it_says_so(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    result = check_tasks(load_tasks(shipped_tasks()), home=tmp_path)
    assert (result.version, result.line()) == (None, NOT_INSTALLED)
    monkeypatch.setenv("OPENENV_HARNESS_HOME", str(tmp_path))
    assert main(["harbor", "info", "--dataset", str(shipped_tasks())]) == 0
    assert f"harbor    {NOT_INSTALLED}" in capsys.readouterr().out
    assert main(["harbor", "check", "--dataset", str(shipped_tasks())]) == 1
    captured = capsys.readouterr()
    assert "openenv harbor install harbor" in captured.out + captured.err
    with pytest.raises(HarnessUnavailable, match=r"needs Python >= 9\.9"):
        find_python((9, 9))
