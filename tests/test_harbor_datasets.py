"""Harbor task datasets as splits: local folders in every layout (a broken task reported while the
others are served, bounds), and Hub datasets against the fake Hub (tests/fake_hub.py): checked
from the file list before download, downloaded to the cache, read offline, removed; listed by the
``harbor`` tag; ``openenv harbor info`` counting without downloading; every Hub failure named.
The Hub reader runs in a fresh process (``HF_ENDPOINT`` is read when huggingface_hub is imported).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_hub import HF_TOKEN, FakeHub, harbor_task_files, hub_environ, openenv_cli

from openenv.core.harness.loopback import free_port
from openenv.core.harness.tasks import MAX_TREE_BYTES, TaskError, datasets
from openenv.core.harness.tasks import hub_listing as listing
from openenv.core.harness.tasks.datasets import load_split, load_splits, split_specs
from openenv.core.harness.tasks.hub import parse_hub_spec
from openenv.core.harness.tasks.hub_listing import HubRef, Listing, plan

TOML = 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n[agent]\ntimeout_sec = 90\n'


def task_files(folder: str, instruction: str = "Do it.") -> dict[str, str]:
    return harbor_task_files(folder, instruction, TOML)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


# -- local folders ---------------------------------------------------------------------------


def test_flat_and_grouped_tasks_layouts_read_with_names_in_the_split(tmp_path: Path) -> None:
    write(tmp_path / "flat", {**task_files("tasks/b"), **task_files("tasks/a")})
    grouped = {**task_files("tasks/easy/a"), **task_files("tasks/hard/a"), "tasks/x.md": "-"}
    write(tmp_path / "grouped", grouped)
    flat, groups = load_splits(f"{tmp_path / 'flat'}, {tmp_path / 'grouped'}")
    assert (flat.name, flat.source) == (str(tmp_path / "flat"), "local")
    assert [t.name for t in flat.tasks] == ["a", "b"] and flat.problems == []
    assert [t.name for t in groups.tasks] == ["easy/a", "hard/a"]
    assert groups.task("hard/a").agent_timeout_s == 90.0
    with pytest.raises(TaskError, match="no task named 'c'"):
        groups.task("c")


def test_a_task_folder_and_a_folder_of_tasks_are_splits_too(tmp_path: Path) -> None:
    write(tmp_path, {**task_files("one"), **task_files("two")})
    assert [t.name for t in load_split(str(tmp_path)).tasks] == ["one", "two"]
    assert [t.name for t in load_split(str(tmp_path / "one")).tasks] == ["one"]


def test_a_broken_task_is_reported_while_the_others_are_served(tmp_path: Path) -> None:
    write(tmp_path, {**task_files("tasks/good"), **task_files("tasks/bad")})
    (tmp_path / "tasks/bad/task.toml").write_text("version = \n")
    (tmp_path / "tasks/empty").mkdir()
    write(tmp_path, {"tasks/half/task.toml": TOML})
    split = load_split(str(tmp_path))
    assert [t.name for t in split.tasks] == ["good"]
    reasons = {p.task: p.reason for p in split.problems}
    assert set(reasons) == {"bad", "half"}  # a folder without task.toml is no task
    assert reasons["bad"].startswith("bad/task.toml: not valid TOML")
    assert "no instruction.md" in reasons["half"]
    assert split.summary()["problems"][0]["task"] == "bad"


def test_a_folder_that_is_no_dataset_says_what_it_holds(tmp_path: Path) -> None:
    write(tmp_path, {"README.md": "hi", "data/x.parquet": ""})
    with pytest.raises(TaskError, match=r"not a Harbor dataset.*found: README.md, data/"):
        load_split(str(tmp_path))
    with pytest.raises(TaskError, match="no such task or dataset folder, and not a Hub"):
        load_split(str(tmp_path / "missing"))


def test_specs_and_task_counts_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TaskError, match="given twice"):
        split_specs("a/b, a/b")
    with pytest.raises(TaskError, match="no dataset given"):
        split_specs(" , ")
    with pytest.raises(TaskError, match="at most 32"):
        split_specs(",".join(f"o/d{i}" for i in range(33)))
    write(tmp_path, {**task_files("tasks/a"), **task_files("tasks/b"), **task_files("tasks/c")})
    monkeypatch.setattr(datasets, "MAX_TASKS", 2)
    with pytest.raises(TaskError, match="more than 2 tasks"):
        load_split(str(tmp_path))


def test_hub_specs_are_told_from_paths(tmp_path: Path) -> None:
    assert parse_hub_spec("org/name") == HubRef("org/name")
    assert parse_hub_spec("org/name@v1.0") == HubRef("org/name", "v1.0")
    assert parse_hub_spec("hf://datasets/org/name@main") == HubRef("org/name", "main")
    assert parse_hub_spec(str(tmp_path)) is None and parse_hub_spec("./x/y") is None
    with pytest.raises(TaskError, match="not a revision"):
        parse_hub_spec("org/name@../x")
    with pytest.raises(TaskError, match="Hub datasets"):
        parse_hub_spec("hf://spaces/org/name")


# -- the file list checked before download (pure) ------------------------------------------


def listed(files: dict[str, Any]) -> Listing:
    sizes = {p: v if isinstance(v, int) else len(v) for p, v in files.items()}
    return Listing(HubRef("org/ds"), "a" * 40, sizes, ("README.md", "tasks"))


def test_the_plan_leaves_out_tasks_over_their_limits_and_refuses_big_datasets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files: dict[str, Any] = {**task_files("tasks/ok"), **task_files("tasks/big")}
    files["tasks/big/environment/data.bin"] = MAX_TREE_BYTES + 1
    files.update({**task_files("tasks/g/x"), "tasks/g/x/solution/solve.sh": "s"})
    files["tasks/notests/task.toml"] = TOML
    files["tasks/notests/instruction.md"] = "x"
    checked = plan(listed(files))
    assert checked.tasks == ["g/x", "ok"]
    assert {p.task: p.reason.split(":")[0] for p in checked.problems} == {
        "big": "environment/",
        "notests": "no tests/test.sh (the verifier that writes the reward)",
    }
    assert "tasks/g/x/solution/solve.sh" in checked.files
    assert not any("big" in p for p in checked.files)
    monkeypatch.setattr(listing, "MAX_HUB_BYTES", 50)
    with pytest.raises(TaskError, match="bytes of tasks, over the limit of 50"):
        plan(listed(files))
    monkeypatch.setattr(listing, "MAX_TASKS", 1)
    with pytest.raises(TaskError, match="4 tasks, more than 1"):
        plan(listed(files))
    with pytest.raises(TaskError, match=r"no tasks/ folder; at the top: README.md, tasks"):
        plan(listed({}))


# -- the Hub, through the fake Hub, in fresh processes ---------------------------------------

READER = r"""
import json, sys
from openenv.core.harness.tasks import TaskError
from openenv.core.harness.tasks.datasets import load_splits
from openenv.core.harness.tasks.hub import list_hub_datasets, remove_cached

action, arg = sys.argv[1], sys.argv[2]
try:
    if action == "load":
        seen = []
        splits = load_splits(arg, progress=lambda done, total: seen.append([done, total]))
        out = {"progress": seen, "splits": [
            {**s.summary(), "root": str(s.root), "names": [t.name for t in s.tasks],
             "instructions": [t.instruction for t in s.tasks]} for s in splits]}
    elif action == "list":
        out = {"found": [d.__dict__ for d in list_hub_datasets(arg)]}
    else:
        out = {"removed": remove_cached(arg)}
except TaskError as exc:
    out = {"error": str(exc)}
print(json.dumps(out))
"""


def read(hub: FakeHub, tmp_path: Path, action: str, arg: str, **env: str) -> dict[str, Any]:
    environ = {**hub_environ(hub, tmp_path, env.pop("token", HF_TOKEN) or None), **env}
    done = subprocess.run(
        [sys.executable, "-c", READER, action, arg],
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def downloads(hub: FakeHub) -> list[str]:
    return [path for method, path, _ in hub.calls if method == "GET" and "/resolve/" in path]


def test_a_hub_dataset_downloads_what_was_checked_then_reads_offline_until_removed(
    hub: FakeHub, tmp_path: Path
) -> None:
    files: dict[str, Any] = {**task_files("tasks/b", "Second."), **task_files("tasks/a", "First.")}
    files["tasks/huge/task.toml"] = TOML
    files["tasks/huge/instruction.md"] = b"x" * (MAX_TREE_BYTES + 1)
    files.update({"tasks/half/task.toml": TOML, "README.md": "# tasks", "data/x.bin": "x"})
    hub.add_harbor_dataset("org/ds", files)
    out = read(hub, tmp_path, "load", "org/ds")
    (split,) = out["splits"]
    assert split["source"] == "hub" and split["names"] == ["a", "b"]
    assert split["instructions"] == ["First.", "Second."] and split["revision"] == "a" * 40
    assert [p["task"] for p in split["problems"]] == ["half", "huge"]
    assert "over the limit" in split["problems"][1]["reason"]
    assert Path(split["root"]).is_relative_to(tmp_path / "hf-home")
    assert not any(p.is_symlink() for p in Path(split["root"]).rglob("*"))  # plain files
    fetched = downloads(hub)
    assert len(fetched) == 8 and not any(
        "huge" in p or "half" in p or "data/" in p for p in fetched
    )
    assert out["progress"][0] == [0, 8] and out["progress"][-1] == [8, 8]

    hub.calls.clear()
    offline = read(hub, tmp_path, "load", "org/ds", HF_HUB_OFFLINE="1")["splits"][0]
    assert offline["names"] == ["a", "b"] and "offline" in offline["note"] and not hub.calls
    assert [p["task"] for p in offline["problems"]] == ["half", "huge"]
    assert read(hub, tmp_path, "remove", "org/ds") == {"removed": True}
    gone = read(hub, tmp_path, "load", "org/ds", HF_HUB_OFFLINE="1")["error"]
    assert "offline (HF_HUB_OFFLINE=1), and not downloaded before" in gone
    assert read(hub, tmp_path, "remove", "org/ds") == {"removed": False}


def test_grouped_hub_datasets_by_revision_and_uri_are_splits(hub: FakeHub, tmp_path: Path) -> None:
    hub.add_harbor_dataset("org/train", {**task_files("tasks/g1/t"), **task_files("tasks/g2/t")})
    hub.add_harbor_dataset("org/eval", task_files("tasks/only"))
    hub.add_harbor_dataset("org/broken", {"tasks/[x]/task.toml": TOML})
    out = read(hub, tmp_path, "load", "org/train@main, hf://datasets/org/eval,org/broken")
    train, evaluation, broken = out["splits"]
    assert (train["name"], train["names"]) == ("org/train@main", ["g1/t", "g2/t"])
    assert (evaluation["name"], evaluation["names"]) == ("hf://datasets/org/eval", ["only"])
    assert broken["names"] == [] and [p["task"] for p in broken["problems"]] == ["[x]"]
    assert not any("broken" in path for path in downloads(hub))


def test_hub_failures_say_which_they_are(hub: FakeHub, tmp_path: Path) -> None:
    hub.unknown_is_not_found = True
    hub.add_harbor_dataset("org/secret", task_files("tasks/a"), private=True)
    hub.add_harbor_dataset("org/plain", {"README.md": "hi", "data/train.csv": "a,b\n"})
    missing = read(hub, tmp_path, "load", "org/nothing")["error"]
    assert missing == "org/nothing: no such dataset on the Hub"
    private = read(hub, tmp_path, "load", "org/secret", token="")["error"]
    assert "private or gated and no token was given (set HF_TOKEN" in private
    assert read(hub, tmp_path, "load", "org/secret")["splits"][0]["names"] == ["a"]
    plain = read(hub, tmp_path, "load", "org/plain")["error"]
    assert "not a Harbor dataset" in plain and "at the top: README.md, data" in plain
    closed = f"http://127.0.0.1:{free_port()}"
    down = read(hub, tmp_path / "other", "load", "org/secret", HF_ENDPOINT=closed)["error"]
    assert f"the Hub at {closed} could not be reached (ConnectError" in down
    assert "not downloaded before" in down
    cached = read(hub, tmp_path, "load", "org/secret", HF_ENDPOINT=closed)["splits"][0]
    assert cached["names"] == ["a"] and "could not be reached" in cached["note"]
    search = read(hub, tmp_path, "list", "", HF_ENDPOINT=closed)["error"]
    assert search.startswith("Hub search: the Hub could not be reached (ConnectError")


def test_datasets_tagged_harbor_are_listed_with_task_count_and_size(
    hub: FakeHub, tmp_path: Path
) -> None:
    files = {**task_files("tasks/a"), **task_files("tasks/b"), "README.md": "# two tasks"}
    hub.add_harbor_dataset("org/two", files)
    hub.add_harbor_dataset("org/flat-csv", {"data.csv": "a\n"})
    hub.add_harbor_dataset("org/untagged", task_files("tasks/a"), tags=("other",))
    hub.add_harbor_dataset("org/hidden", task_files("tasks/a"), private=True)
    found = {d["id"]: d for d in read(hub, tmp_path, "list", "")["found"]}
    assert set(found) == {"org/two", "org/flat-csv"}
    size = sum(len(v) for k, v in files.items() if k.startswith("tasks/"))
    assert (found["org/two"]["tasks"], found["org/two"]["size_bytes"]) == (2, size)
    assert found["org/two"]["problem"] == "" and "not a Harbor" in found["org/flat-csv"]["problem"]
    assert [d["id"] for d in read(hub, tmp_path, "list", "two")["found"]] == ["org/two"]
    assert not downloads(hub)


def test_harbor_info_counts_splits_from_the_file_list_without_downloading(
    hub: FakeHub, tmp_path: Path
) -> None:
    hub.unknown_is_not_found = True
    hub.add_harbor_dataset("org/train", {**task_files("tasks/a"), **task_files("tasks/b")})
    hub.add_harbor_dataset("org/eval", {**task_files("tasks/c"), "tasks/d/task.toml": TOML})
    done = openenv_cli(["harbor", "info", "--dataset", "org/train,org/eval"], hub, tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "datasets  2 split(s), 3 tasks" in out
    assert "[ok]   org/train      2 task(s)" in out and "(hub @aaaaaaaaaaaa)" in out
    assert "not read: d: no instruction.md" in out
    assert not downloads(hub)
    done = openenv_cli(["harbor", "info", "--dataset", "org/none"], hub, tmp_path)
    assert "datasets  1 split(s), 0 tasks (1 unreadable)" in done.stdout
    assert "[--]   org/none       no such dataset on the Hub" in done.stdout
