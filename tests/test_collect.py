"""``openenv collect`` run as a user runs it, against a running grid world server: the
reference's files (results.jsonl, metadata.json), --resume, --episode-id-prefix, the random,
scripted and teacher policies, a Hugging Face dataset that ``datasets`` opens, and
--push-to-hub against a fake Hub (tests/fake_hub.py)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import run_cli, serve
from fake_hub import HF_TOKEN, hub_environ

REFERENCE_FIELDS = {
    "episode_id", "messages", "reward", "done", "tool_trace", "metrics", "verify_metrics",
    "artifacts", "task", "extra",
}  # fmt: skip
REFERENCE_METADATA = {
    "env", "env_base_url", "provider", "model", "llm_endpoint", "llm_port",
    "num_episodes_requested", "temperature", "keep_losses",
}  # fmt: skip
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def collect(tmp_path: Path, url: str, *extra: str, out: str = "run"):
    done = run_cli(
        "collect", "grid_world", "--base-url", url, "-o", str(tmp_path / out), *extra,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_ten_random_episodes_become_results_metadata_and_a_dataset_datasets_loads(
    grid_server: str, tmp_path: Path
) -> None:
    import datasets

    done = collect(
        tmp_path, grid_server, "-n", "10", "--max-turns", "12", "--provider", "random",
        "--keep-losses", "--seed", "100", "--dataset", str(tmp_path / "ds"),
    )  # fmt: skip
    assert "Collecting" in done.stderr and "10/10" in done.stderr  # the progress bar
    assert "collected=10 skipped=0 dropped=0 failed=0" in done.stdout
    records = lines(tmp_path / "run" / "results.jsonl")
    assert [r["episode_id"] for r in records] == [f"ep-{i:06d}" for i in range(10)]
    assert all(set(r) == REFERENCE_FIELDS for r in records)
    first = records[0]
    assert first["extra"] == {
        "env": "grid_world",
        "seed": 100,
        "source": "collect",
        "policy": "random",
    }
    assert first["task"] == {"seed": 100}
    steps = first["tool_trace"]
    assert 1 <= len(steps) <= 12 and first["metrics"]["steps"] == len(steps)
    assert steps[0]["arguments"]["action"] in {"UP", "DOWN", "LEFT", "RIGHT"}
    assert {"x", "y", "message"} <= set(steps[0]["result"]["data"])
    rewards = [s["result"]["metadata"]["reward"] for s in steps]
    assert first["reward"] == rewards[-1]  # the env's last reward, as the reference keeps it
    assert first["metrics"]["return"] == pytest.approx(sum(rewards))
    roles = [m["role"] for m in first["messages"]]
    assert roles[0] == "system" and roles[1::2] == ["user"] * len(steps)
    assert roles[2::2] == ["assistant"] * len(steps)
    assert "Legal actions: 0: " in first["messages"][1]["content"]

    metadata = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert set(metadata) >= REFERENCE_METADATA
    assert metadata["provider"] == "random" and metadata["env_name"] == "grid_world"
    assert metadata["num_episodes_requested"] == 10 and metadata["env_version"]

    ds = datasets.load_dataset(str(tmp_path / "ds"), split="train", cache_dir=str(tmp_path / "c"))
    assert ds.num_rows == 10
    assert ds["episode_id"] == [r["episode_id"] for r in records]
    assert ds["reward"] == pytest.approx([r["reward"] for r in records])
    assert ds["seed"] == list(range(100, 110)) and set(ds["source"]) == {"collect"}
    assert ds[0]["messages"] == first["messages"]
    assert json.loads(ds[0]["tool_trace"]) == steps
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "`grid_world`" in card and f"**Environment version:** {metadata['env_version']}" in card
    assert "100–109 (10 seeds)" in card
    mean = sum(r["reward"] for r in records) / 10
    assert f"| mean | {mean:.4g} |" in card


def test_resume_skips_what_is_on_disk_and_no_resume_sets_it_aside(
    grid_server: str, tmp_path: Path
) -> None:
    args = ("--provider", "scripted", "--keep-losses", "--episode-id-prefix", "walk")
    collect(tmp_path, grid_server, "-n", "2", *args)
    done = collect(tmp_path, grid_server, "-n", "3", *args)
    assert "collected=1 skipped=2" in done.stdout
    results = tmp_path / "run" / "results.jsonl"
    assert [r["episode_id"] for r in lines(results)] == [
        "walk-000000",
        "walk-000001",
        "walk-000002",
    ]
    # scripted: the first legal action every turn, the same each episode
    assert len({json.dumps(r["tool_trace"]) for r in lines(results)}) == 1
    done = collect(tmp_path, grid_server, "-n", "1", "--no-resume", *args)
    assert "collected=1 skipped=0" in done.stdout
    assert len(lines(results)) == 1
    (backup,) = (tmp_path / "run").glob("results.*.bak.jsonl")
    assert len(lines(backup)) == 3


def test_losses_are_dropped_unless_kept(grid_server: str, tmp_path: Path) -> None:
    # The grid world costs a little each step: 3 steps never reach the goal, a loss.
    done = collect(tmp_path, grid_server, "-n", "2", "--max-turns", "3")
    assert "collected=0 skipped=0 dropped=2" in done.stdout


class FakeTeacher(ThreadingHTTPServer):
    """An OpenAI-compatible endpoint on loopback that always answers legal action number 1."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _TeacherHandler)
        self.requests: list[dict] = []


class _TeacherHandler(BaseHTTPRequestHandler):
    server: FakeTeacher

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, **body})
        reply = {"choices": [{"message": {"role": "assistant", "content": "1"}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def teacher() -> Iterator[FakeTeacher]:
    server = FakeTeacher()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_the_teacher_is_one_openai_compatible_endpoint(
    grid_server: str, tmp_path: Path, teacher: FakeTeacher
) -> None:
    url = f"http://127.0.0.1:{teacher.server_address[1]}"
    done = collect(
        tmp_path, grid_server, "-n", "1", "--max-turns", "4", "--keep-losses",
        "--provider", "openai", "--llm-endpoint", url, "--model", "tiny-teacher",
    )  # fmt: skip
    (record,) = lines(tmp_path / "run" / "results.jsonl")
    assert [r["path"] for r in teacher.requests] == ["/v1/chat/completions"] * 4
    assert {r["model"] for r in teacher.requests} == {"tiny-teacher"}
    # the teacher saw the conversation the record keeps, up to its turn
    assert teacher.requests[1]["messages"] == record["messages"][:4]
    assert [m["content"] for m in record["messages"][2::2]] == ["1"] * 4
    assert {s["result"]["metadata"]["label"] for s in record["tool_trace"]} == {"↓ Down"}
    metadata = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert metadata["provider"] == "openai-compatible" and metadata["model"] == "tiny-teacher"
    assert metadata["llm_endpoint"] == url + "/v1"
    assert "Teacher: openai-compatible/tiny-teacher" in done.stdout


def test_a_teacher_without_an_endpoint_is_refused_with_the_setting_to_make(
    grid_server: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("OPENENV_LLM")}
    done = run_cli(
        "collect", "grid_world", "--base-url", grid_server, "-o", "x", "--provider", "openai",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 1 and "OPENENV_LLM_URL" in done.stdout


def test_push_to_hub_uploads_the_dataset_card_and_shards(
    grid_server: str, tmp_path: Path, hub
) -> None:
    done = run_cli(
        "collect", "grid_world", "--base-url", grid_server, "-o", "run", "-n", "2",
        "--keep-losses", "--provider", "random", "--push-to-hub", "tester/grid-rollouts",
        "--private",
        cwd=tmp_path, env=hub_environ(hub, tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (created,) = hub.created
    assert created["name"] == "grid-rollouts" and created["organization"] == "tester"
    assert created["type"] == "dataset" and created["visibility"] == "private"
    shards = {"data/train-00000-of-00001.parquet"}
    assert set(hub.files) == {"README.md", "metadata.json", "results.jsonl", *shards}
    assert b'path: "data/train-*.parquet"' in hub.files["README.md"]
    writes = [(path, auth) for method, path, auth in hub.calls if path.endswith(("create", "main"))]
    assert [p for p, _ in writes] == [
        "/api/repos/create",
        "/api/datasets/tester/grid-rollouts/preupload/main",
        "/api/datasets/tester/grid-rollouts/commit/main",
    ]
    assert {auth for _, auth in writes} == {f"Bearer {HF_TOKEN}"}
    assert f"Dataset at: {hub.url}/datasets/tester/grid-rollouts" in done.stdout


@pytest.fixture(scope="module")
def openspiel_server() -> Iterator[str]:
    with serve("openspiel_env.server.app:app", env={"ENABLE_WEB_INTERFACE": "0"}) as url:
        yield url


def test_a_variant_is_the_envs_reset_option(openspiel_server: str, tmp_path: Path) -> None:
    done = run_cli(
        "collect", "openspiel:tic_tac_toe", "--base-url", openspiel_server, "-o", "ttt",
        "-n", "3", "--provider", "random", "--keep-losses",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    games = lines(tmp_path / "ttt" / "results.jsonl")
    assert [g["task"] for g in games] == [{"game_name": "tic_tac_toe", "seed": n} for n in range(3)]
    assert all(g["done"] and g["reward"] in (-1.0, 0.0, 1.0) for g in games)
    assert all(set(s["arguments"]) == {"action_id"} for g in games for s in g["tool_trace"])
    unknown = run_cli(
        "collect", "grid_world:big", "--base-url", openspiel_server, "-o", "x", cwd=tmp_path
    )
    assert unknown.returncode == 1 and "--variant-option" in unknown.stdout


def test_a_server_with_an_api_token_is_collected_with_the_token(tmp_path: Path) -> None:
    env = {"ENABLE_WEB_INTERFACE": "0", "OPENENV_API_TOKEN": "s3cret-token"}
    args = ["collect", "grid_world", "-o", "run", "-n", "2", "--keep-losses", "--provider"]
    clean = {k: v for k, v in os.environ.items() if k != "OPENENV_API_TOKEN"}
    with serve("grid_world_env.server.app:app", env=env) as url:
        refused = run_cli(*args, "random", "--base-url", url, cwd=tmp_path, env=clean)
        assert refused.returncode == 1 and "failed=2" in refused.stdout
        assert "failed ep-000000: ServerUnauthorized" in refused.stdout
        assert "$OPENENV_API_TOKEN" in refused.stdout and "✗ collected=0" in refused.stdout
        done = run_cli(
            *args, "random", "--base-url", url, cwd=tmp_path,
            env={**clean, "OPENENV_API_TOKEN": "s3cret-token"},
        )  # fmt: skip
    assert done.returncode == 0 and "collected=2" in done.stdout, done.stdout + done.stderr
    assert "s3cret-token" not in (tmp_path / "run" / "metadata.json").read_text()
    assert "s3cret-token" not in (tmp_path / "run" / "results.jsonl").read_text()
