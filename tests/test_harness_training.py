"""TrainingTrace is wire-compatible with openenv 0.10's: a trace captured here loads in the
reference package (in its own virtualenv), a trace it writes loads here, and both refuse the same
malformed traces."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openenv.core.harness.capture import CaptureLevel, CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.training import TrainingTrace

sys.path.insert(0, str(Path(__file__).parent / "compat"))
from refvenv import ensure_ref_venv

pytestmark = pytest.mark.compat
SCRIPT = ScriptedPolicy.model_validate(
    {
        "steps": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]},
            {"content": "ok"},
        ]
    }
)
TRAIN = CaptureLevel(capture_level="tokens", rollout_type="train", logprobs_mode="processed")

# Run once in the reference's interpreter, from a directory without our package: load each
# file given and report; then write a trace of its own with the reference's from_entries.
REFERENCE = """
import json, sys
from openenv.core.harness import TrainingTrace
loaded = []
for path in sys.argv[1:]:
    try:
        t = TrainingTrace.model_validate_json(open(path).read())
        loaded.append({"ok": True, "entries": t.to_trace_entries(), "json": t.model_dump_json()})
    except Exception as exc:
        loaded.append({"ok": False, "error": type(exc).__name__})
entries = [{"prompt_token_ids": [5, 6, 7], "completion_token_ids": [8, 9],
            "per_token_logps": [-0.5, -1.25], "loss_mask": [0, 0, 0, 1, 0],
            "request": {"messages": []}, "response": {"content": "x"},
            "metadata": {"node_id": "a1", "harness": "opencode"}}]
written = TrainingTrace.from_entries(entries).model_dump_json()
print(json.dumps({"loaded": loaded, "written": written}))
"""


@pytest.fixture(scope="module")
def captured() -> Iterator[TrainingTrace]:
    """A two-call conversation captured through the proxy from the scripted test engine."""
    with serve_in_thread(create_engine_app(Engine(script=SCRIPT))) as engine:
        capture = CaptureProxy(Upstream(f"{engine}/v1"), TRAIN)
        with serve_in_thread(create_capture_app(capture)) as url:
            sid = capture.open_session()
            headers = {"Authorization": f"Bearer {sid}"}
            messages: list[dict[str, Any]] = [{"role": "user", "content": "look around"}]
            for _ in range(2):
                body = {"model": "m", "messages": messages, "max_tokens": 64}
                reply = httpx.post(f"{url}/v1/chat/completions", json=body, headers=headers,
                                   timeout=60).json()  # fmt: skip
                messages.append(reply["choices"][0]["message"])
                messages.append({"role": "tool", "tool_call_id": "x", "content": "file.txt"})
        yield capture.close_session(sid).to_training_trace()


@pytest.fixture(scope="module")
def reference(captured: TrainingTrace, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the reference package made of our captured trace and of MALFORMED, and the trace it
    wrote itself."""
    where = tmp_path_factory.mktemp("ref")
    paths = []
    for i, doc in enumerate([captured.model_dump_json(), *map(json.dumps, MALFORMED.values())]):
        paths.append(where / f"trace{i}.json")
        paths[-1].write_text(doc)
    done = subprocess.run([str(ensure_ref_venv()), "-c", REFERENCE, *map(str, paths)], cwd=where,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_a_trace_captured_here_loads_in_the_reference(
    reference: dict[str, Any], captured: TrainingTrace
) -> None:
    assert len(captured.turns) == 2
    loaded = reference["loaded"][0]
    assert loaded["ok"]
    assert loaded["entries"] == captured.to_trace_entries()
    assert TrainingTrace.model_validate_json(loaded["json"]) == captured


def test_a_trace_written_by_the_reference_loads_here(reference: dict[str, Any]) -> None:
    trace = TrainingTrace.model_validate_json(reference["written"])
    (turn,) = trace.turns
    assert turn.node_id == "a1" and turn.loss_mask == [0, 0, 0, 1, 0]
    assert turn.metadata == {"harness": "opencode", "node_id": "a1"}  # as the reference keeps it
    assert trace.model_dump_json() == reference["written"]


def _turn(**change: Any) -> dict[str, Any]:
    turn = {"node_id": "n1", "prompt_token_ids": [1, 2], "completion_token_ids": [3],
            "per_token_logps": [-0.1], "loss_mask": [0, 0, 1]}  # fmt: skip
    return {**turn, **change}


MALFORMED = {
    "well formed": {"turns": [_turn()]},
    "trainable prompt token": {"turns": [_turn(loss_mask=[1, 0, 1])]},
    "mask too short": {"turns": [_turn(loss_mask=[0, 1])]},
    "logprob count": {"turns": [_turn(per_token_logps=[-0.1, -0.2])]},
    "positive logprob": {"turns": [_turn(per_token_logps=[0.5])]},
    "no prompt ids": {"turns": [_turn(prompt_token_ids=[], loss_mask=[1])]},
    "duplicate node": {"turns": [_turn(), _turn()]},
    "unknown field": {"turns": [_turn(reward=1.0)]},
    "other schema": {"schema_version": 2, "turns": [_turn()]},
    "mask value 2": {"turns": [_turn(loss_mask=[0, 0, 2])]},
}


def test_both_refuse_the_same_malformed_traces(reference: dict[str, Any]) -> None:
    docs = [json.dumps(doc) for doc in MALFORMED.values()]
    theirs = [r["ok"] for r in reference["loaded"][1:]]
    ours = []
    for doc in docs:
        try:
            TrainingTrace.model_validate_json(doc)
            ours.append(True)
        except ValueError:
            ours.append(False)
    assert dict(zip(MALFORMED, ours, strict=True)) == dict(zip(MALFORMED, theirs, strict=True))
    assert ours == [True] + [False] * (len(MALFORMED) - 1)
