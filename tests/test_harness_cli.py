"""``openenv harbor info`` against the shipped test engine: the capture level it prints, the
sandboxes with reasons, the task directories counted; and the documented import path."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openenv.cli.main import main
from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.loopback import free_port, serve_in_thread
from openenv.core.harness.training import TrainingTrace

SCRIPT = ScriptedPolicy.model_validate({"steps": [{"content": "hello"}]})


@pytest.fixture(scope="module")
def engine_url() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(script=SCRIPT))) as url:
        yield f"{url}/v1"


def test_info_against_the_shipped_engine_says_train(
    engine_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("count-files", "fix-bug"):
        (tmp_path / "tasks" / name / "tests").mkdir(parents=True)
        (tmp_path / "tasks" / name / "task.toml").write_text('version = "1.0"\n')
        (tmp_path / "tasks" / name / "instruction.md").write_text("Do it.\n")
        (tmp_path / "tasks" / name / "tests" / "test.sh").write_text("echo 1\n")
    assert main(["harbor", "info", "--llm-url", engine_url, "--dataset", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"llm       {engine_url}  [TRAIN] capture=tokens logprobs=processed" in out
    assert "tools=no_tool_call" in out  # the script answers with text: reported, not fatal
    sandboxes = out.split("sandboxes", 1)[1].split("datasets", 1)[0]
    for name in ("process", "docker", "e2b", "modal", "daytona"):
        assert name in sandboxes
    unusable = [line.split() for line in sandboxes.splitlines() if "[--]" in line]
    assert all(len(words) > 2 for words in unusable)  # every unusable sandbox says why
    assert "datasets  1 split(s), 2 tasks" in out
    assert f"[ok]   {tmp_path}" in out and "2 task(s) (local)" in out
    assert "harnesses" in out and "mini-swe-agent" in out


def test_info_with_an_unreachable_endpoint_fails_clearly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert main(["harbor", "info", "--llm-url", url, "--model", "m"]) != 0
    assert "unreachable" in capsys.readouterr().out


def test_training_trace_is_importable_from_the_documented_path() -> None:
    from openenv.core.harness import TrainingTrace

    assert TrainingTrace.model_validate_json('{"turns": []}').schema_version == 1


def test_harbor_proxy_probes_then_serves_sessions_minted_by_the_operator(engine_url: str) -> None:
    """`openenv harbor proxy` in its own process: [TRAIN] printed before it binds; the admin
    token mints a session whose key an agent uses; the capture comes back as a TrainingTrace."""
    port, token = free_port(), "operator-admin-token"
    cmd = [
        sys.executable,
        "-m",
        "openenv.cli",
        "harbor",
        "proxy",
        "--llm-url",
        engine_url,
        "--port",
        str(port),
        "--admin-token",
        token,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("[TRAIN] capture=tokens logprobs=processed")
        url = f"http://127.0.0.1:{port}"
        while "capture proxy at" not in proc.stdout.readline():
            assert proc.poll() is None
        admin = {"Authorization": f"Bearer {token}"}
        minted = _wait_post(f"{url}/capture/sessions", admin, {"label": "task-0"})
        sid = minted["session_id"]
        assert (
            httpx.post(
                f"{url}/capture/sessions", headers={"Authorization": f"Bearer {sid}"}, timeout=30
            ).status_code
            == 401
        )
        reply = httpx.post(
            f"{url}/v1/chat/completions",
            headers={"Authorization": f"Bearer {sid}"},
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            timeout=60,
        )
        assert reply.json()["choices"][0]["message"]["content"] == "hello"
        trace = httpx.get(f"{url}/capture/sessions/{sid}/training_trace", headers=admin, timeout=30)
        (turn,) = TrainingTrace.model_validate_json(trace.text).turns
        assert turn.completion_token_ids and len(turn.per_token_logps) == len(
            turn.completion_token_ids
        )
        closed = httpx.delete(f"{url}/capture/sessions/{sid}", headers=admin, timeout=30).json()
        assert closed["probe"]["rollout_type"] == "train" and closed["label"] == "task-0"
        again = httpx.post(
            f"{url}/v1/chat/completions",
            headers={"Authorization": f"Bearer {sid}"},
            json={"messages": [{"role": "user", "content": "hi"}]},
            timeout=30,
        )
        assert again.status_code == 401
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def _wait_post(url: str, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        try:
            return httpx.post(url, headers=headers, json=body, timeout=10).json()
        except httpx.ConnectError:
            assert time.monotonic() < deadline, "proxy did not come up"


def test_harbor_proxy_refuses_to_start_when_the_endpoint_cannot_be_probed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert main(["harbor", "proxy", "--llm-url", url, "--model", "m", "--port", "1"]) != 0
    assert "unreachable" in capsys.readouterr().out


def test_harbor_engine_serves_the_scripted_test_policy(tmp_path: Path) -> None:
    script = tmp_path / "steps.json"
    script.write_text('[{"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}]')
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "openenv.cli",
        "harbor",
        "engine",
        "--port",
        str(port),
        "--script",
        str(script),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        assert "scripted TEST policy" in proc.stdout.readline()
        body = {"messages": [{"role": "user", "content": "go"}], "return_token_ids": True}
        reply = _wait_post(f"http://127.0.0.1:{port}/v1/chat/completions", {}, body)
        assert reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "bash"
        assert reply["prompt_token_ids"] and reply["choices"][0]["token_ids"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
