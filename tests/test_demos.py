"""Human demonstrations (openenv.datasets.demos, openenv.web.stage.demos): the bounded store,
and a grid world server with ``OPENENV_DEMOS=1`` driven through the stage's own routes (what
the page's script sends): finished episodes kept, an opted-out one not, a mark with its note,
the operator's download as results.jsonl and as a dataset ``datasets`` opens, the push to a
fake Hub, and nothing of it on a server that did not turn demos on."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import serve
from fake_hub import HF_TOKEN

from openenv.datasets.demos import DemoSettings, DemoStore
from openenv.datasets.records import EpisodeRecord

WALK = ["Down"] * 4 + ["Right"] * 4  # the grid world's shortest way to its goal


def record(n: int, size: int = 10) -> EpisodeRecord:
    message = {"role": "user", "content": "x" * size}
    return EpisodeRecord(episode_id=f"demo-{n}", messages=[message], reward=1.0, done=True)


def test_the_store_drops_the_oldest_over_its_count_and_its_bytes() -> None:
    store = DemoStore(DemoSettings(enabled=True, max_episodes=3, max_bytes=10_000))
    for n in range(5):
        assert store.keep(record(n))
    assert [r.episode_id for r in store.records()] == ["demo-2", "demo-3", "demo-4"]
    assert store.dropped == 2
    big = record(9, size=4000)
    store.keep(big)
    store.keep(record(10, size=4000))
    # 2 x 4 KB and one small one fit in 10 KB; a third 4 KB one pushes the oldest out
    store.keep(record(11, size=4000))
    assert [r.episode_id for r in store.records()] == ["demo-10", "demo-11"]
    assert store.bytes <= 10_000
    assert not store.keep(record(12, size=20_000))  # larger than the bound alone: not kept
    assert store.discard("demo-10") and [r.episode_id for r in store.records()] == ["demo-11"]
    assert store.mark("demo-11", "  reward looks wrong " + "!" * 1000)
    (marked,) = store.records()
    assert marked.extra["marked"] is True and marked.extra["note"].startswith("reward looks wrong")
    assert len(marked.extra["note"]) == 500
    assert not store.mark("demo-10", "gone")


class Stage:
    """One playground tab, through the stage routes the page's script calls."""

    def __init__(self, base: str) -> None:
        self.base = base
        answer = self.post("open", {})
        self.tab, self.html = answer["tab"], answer["html"]

    def post(self, route: str, body: dict) -> dict:
        answer = httpx.post(f"{self.base}/web/stage/{route}", json=body, timeout=60).json()
        self.html = answer.get("html", getattr(self, "html", ""))
        return answer

    def press(self, label: str) -> dict:
        index = re.search(rf'data-i="(\d+)"[^>]*>[^<]*{label}', self.html).group(1)
        return self.post("act", {"tab": self.tab, "index": int(index)})

    def play(self, moves: list[str]) -> None:
        for move in moves:
            assert self.press(move)["ok"]

    def reset(self) -> None:
        self.post("reset", {"tab": self.tab})


@pytest.fixture(scope="module")
def demo_server() -> Iterator[str]:
    env = {"OPENENV_DEMOS": "1", "OPENENV_DEMOS_MAX_EPISODES": "3"}
    with serve("grid_world_env.server.app:app", env=env) as url:
        yield url


def kept(base: str) -> list[dict]:
    text = httpx.get(f"{base}/web/demos/results.jsonl", timeout=60).text
    return [json.loads(line) for line in text.splitlines()]


def test_finished_episodes_are_kept_and_an_opted_out_one_is_not(demo_server: str) -> None:
    tab = Stage(demo_server)
    assert "Demo collection is on" in tab.html
    assert "🚫 Don't keep this episode" in tab.html
    before = {r["episode_id"] for r in kept(demo_server)}
    tab.play(WALK)  # finished: kept
    tab.reset()
    assert tab.post("demo", {"tab": tab.tab, "keep": False})["ok"]  # this one is left out
    assert "✅ Keep this episode after all" in tab.html and "will not be kept" in tab.html
    tab.play(WALK)
    tab.reset()
    tab.play(["Down", "Up"])  # unfinished: not kept
    records = [r for r in kept(demo_server) if r["episode_id"] not in before]
    assert len(records) == 1
    (demo,) = records
    assert demo["extra"]["source"] == "demo" and demo["extra"]["policy"] == "human"
    assert demo["extra"]["env"] == "grid_world" and demo["done"] is True
    assert demo["reward"] == 1.0 and demo["metrics"]["steps"] == 8
    labels = [s["result"]["metadata"]["label"] for s in demo["tool_trace"]]
    assert labels == ["↓ Down"] * 4 + ["→ Right"] * 4
    assert [s["arguments"] for s in demo["tool_trace"][:1]] == [{"action": "DOWN"}]
    assert demo["messages"][0]["role"] == "system" and '"x": 0' in demo["messages"][1]["content"]


def test_a_marked_episode_keeps_its_note_and_opting_out_after_the_end_removes_it(
    demo_server: str,
) -> None:
    tab = Stage(demo_server)
    tab.play(WALK)
    answer = tab.post("demo", {"tab": tab.tab, "mark": "<b>reward</b> of the goal looks low"})
    assert answer["ok"] and "🚩 marked: &lt;b&gt;reward&lt;/b&gt; of the goal looks low" in tab.html
    (mine,) = [r for r in kept(demo_server) if r["extra"]["note"]]
    assert mine["extra"]["marked"] is True
    assert mine["extra"]["note"] == "<b>reward</b> of the goal looks low"
    tab.post("demo", {"tab": tab.tab, "keep": False})
    assert mine["episode_id"] not in {r["episode_id"] for r in kept(demo_server)}


def test_the_store_is_bounded_and_the_dataset_opens(demo_server: str, tmp_path: Path) -> None:
    import datasets

    tab = Stage(demo_server)
    for _ in range(4):
        tab.reset()
        tab.play(WALK)
    summary = httpx.get(f"{demo_server}/web/demos").json()
    assert summary["episodes"] == 3 and summary["max_episodes"] == 3 and summary["dropped"] >= 1
    archive = httpx.get(f"{demo_server}/web/demos/dataset.zip", timeout=120)
    assert archive.headers["content-type"] == "application/zip"
    zipfile.ZipFile(io.BytesIO(archive.content)).extractall(tmp_path / "ds")
    ds = datasets.load_dataset(str(tmp_path / "ds"), split="train", cache_dir=str(tmp_path / "c"))
    assert ds["episode_id"] == [r["episode_id"] for r in kept(demo_server)]
    assert set(ds["source"]) == {"demo"} and ds["reward"] == [1.0] * 3
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "`grid_world`" in card and "**Sources:** demo" in card


def test_only_the_operator_reads_the_demos(demo_server: str) -> None:
    proxied = {"X-Forwarded-For": "203.0.113.9"}
    for route in ("", "/results.jsonl", "/dataset.zip"):
        assert httpx.get(f"{demo_server}/web/demos{route}", headers=proxied).status_code == 403


def test_the_demos_are_pushed_to_the_hub(tmp_path: Path, hub) -> None:
    env = {
        "OPENENV_DEMOS": "1",
        "OPENENV_DEMOS_KEY": "operator-key",
        "OPENENV_DEMOS_REPO": "tester/grid-demos",
        "HF_ENDPOINT": hub.url,
        "HF_TOKEN": HF_TOKEN,
        "HF_HOME": str(tmp_path / "hf"),
    }
    with serve("grid_world_env.server.app:app", env=env) as base:
        Stage(base).play(WALK)
        assert httpx.post(f"{base}/web/demos/push").status_code == 401  # the key is needed
        key = {"Authorization": "Bearer operator-key"}
        answer = httpx.post(f"{base}/web/demos/push", headers=key, timeout=120).json()
    assert answer == {"ok": True, "url": f"{hub.url}/datasets/tester/grid-demos", "episodes": 1}
    assert set(hub.files) == {"README.md", "data/train-00000-of-00001.parquet"}
    assert hub.created[0]["type"] == "dataset"


def test_a_server_without_demos_keeps_nothing_and_says_nothing(grid_server: str) -> None:
    tab = Stage(grid_server)
    assert "Demo collection" not in tab.html
    assert not tab.post("demo", {"tab": tab.tab, "keep": False})["ok"]
    assert httpx.get(f"{grid_server}/web/demos").status_code == 404


def test_demonstrations_and_rollouts_mix_in_one_dataset(tmp_path: Path) -> None:
    import datasets

    from openenv.datasets.hf_dataset import write_dataset
    from openenv.datasets.records import EpisodeBuilder, record_from_steps

    rollout = EpisodeBuilder("grid_world")
    rollout.observe({"x": 0, "y": 0}, ["↓ Down"])
    rollout.act({"action": "DOWN"}, {"x": 1, "y": 0}, -0.1, False, "↓ Down")
    step = {"action": {"action": "DOWN"}, "observation": {"x": 1}, "reward": 1.0, "done": True}
    demo = record_from_steps(
        "demo-1", "grid_world", {"x": 0}, [step], extra={"source": "demo", "note": "ok"}
    )
    records = [rollout.record("ep-000000", extra={"source": "collect", "seed": 3}), demo]
    write_dataset(records, tmp_path / "ds", {"env": "grid_world"})
    ds = datasets.load_dataset(str(tmp_path / "ds"), split="train", cache_dir=str(tmp_path / "c"))
    assert ds["source"] == ["collect", "demo"] and ds["seed"] == [3, None]
    assert ds["reward"] == [-0.1, 1.0] and ds["note"] == ["", "ok"]
    assert [len(m) for m in ds["messages"]] == [3, 3]  # system, observation, action


def test_an_episode_marked_before_its_end_is_kept_as_it_stands_then_in_full(
    demo_server: str,
) -> None:
    tab = Stage(demo_server)
    tab.play(["Down", "Down"])
    tab.post("demo", {"tab": tab.tab, "mark": "the wall at row 2?"})
    assert "kept" in tab.html and "finished or not" in tab.html

    def mine() -> dict:
        (record,) = [r for r in kept(demo_server) if r["extra"]["note"] == "the wall at row 2?"]
        return record

    partial = mine()
    assert partial["done"] is False and partial["metrics"]["steps"] == 2
    tab.play(["Down", "Down", "Right"])
    tab.reset()  # left unfinished: kept as it was left
    assert mine()["episode_id"] == partial["episode_id"] and mine()["metrics"]["steps"] == 5
    assert mine()["done"] is False
