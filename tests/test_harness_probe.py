"""The capture-level probe against engines that return what vLLM would with and without its
flags: [TRAIN] needs token ids and processed logprobs; everything else is [EVAL ONLY]."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from openenv.core.harness.capture import CaptureProxy, EvalCaptureError, Upstream
from openenv.core.harness.capture.probe import ProbeError, describe, probe_capture_level
from openenv.core.harness.capture.server import create_capture_app
from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app
from openenv.core.harness.loopback import free_port, serve_in_thread

SCRIPT = ScriptedPolicy.model_validate(
    {"steps": [{"tool_calls": [{"name": "run_command", "arguments": {"command": "ls"}}]}]}
)


@pytest.fixture(scope="module")
def processed() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(script=SCRIPT))) as url:
        yield f"{url}/v1"


@pytest.fixture(scope="module")
def raw() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(logprobs_mode="raw"))) as url:
        yield f"{url}/v1"


@pytest.fixture(scope="module")
def no_ids() -> Iterator[str]:
    with serve_in_thread(create_engine_app(Engine(), token_ids=False)) as url:
        yield f"{url}/v1"


def test_vllm_like_engine_with_processed_logprobs_is_train(processed: str) -> None:
    level = probe_capture_level(processed)
    assert (level.rollout_type, level.capture_level, level.logprobs_mode) == (
        "train",
        "tokens",
        "processed",
    )
    assert level.tools == "ok"
    assert describe(level).startswith("[TRAIN] capture=tokens logprobs=processed tools=ok")


def test_raw_logprobs_are_downgraded_to_eval_unless_overridden(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENENV_ALLOW_RAW_LOGPROBS", raising=False)
    level = probe_capture_level(raw, probe_tools=False)
    assert (level.rollout_type, level.logprobs_mode) == ("eval", "raw")
    assert level.label == "[EVAL ONLY]"
    assert any("--logprobs-mode processed_logprobs" in note for note in level.notes)
    monkeypatch.setenv("OPENENV_ALLOW_RAW_LOGPROBS", "1")
    forced = probe_capture_level(raw, probe_tools=False)
    assert forced.rollout_type == "train" and forced.raw_allowed_by_env


def test_an_engine_without_token_ids_is_eval_and_its_capture_refuses_training(
    no_ids: str,
) -> None:
    level = probe_capture_level(no_ids, probe_tools=False)
    assert (level.rollout_type, level.capture_level) == ("eval", "logprobs")
    assert any("--return-tokens-as-token-ids" in note for note in level.notes)
    capture = CaptureProxy(Upstream(no_ids), level)
    with serve_in_thread(create_capture_app(capture)) as url:
        sid = capture.open_session()
        reply = httpx.post(
            f"{url}/v1/chat/completions",
            headers={"Authorization": f"Bearer {sid}"},
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4},
            timeout=60,
        )
        assert reply.status_code == 200
    result = capture.close_session(sid)
    assert result.rollout_type == "eval" and not result.nodes[0].prompt_token_ids
    with pytest.raises(EvalCaptureError, match="--return-tokens-as-token-ids"):
        result.to_turn_records()


def test_a_hosted_provider_refusing_parameters_is_eval_with_its_fixes_listed() -> None:
    """Like OpenAI's current models: max_tokens, temperature and logprobs are all refused."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        if "max_tokens" in body:
            message = "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."
        elif body.get("temperature", 1) != 1:
            message = "Unsupported value: 'temperature'. Only the default (1) is supported."
        elif "logprobs" in body:
            message = "You are not allowed to request logprobs from this model"
        else:
            reply = {"role": "assistant", "content": "hello"}
            return JSONResponse(
                {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}]}
            )
        return JSONResponse({"error": {"message": message}}, 400)

    with serve_in_thread(app) as url:
        level = probe_capture_level(f"{url}/v1", model="gpt", probe_tools=True)
    assert (level.capture_level, level.rollout_type, level.tools) == (
        "text",
        "eval",
        "no_tool_call",
    )
    fixes = [n.split(":")[0] for n in level.notes if n.startswith("parameter fix")]
    assert fixes == [
        "parameter fix max_completion_tokens",
        "parameter fix drop_logprobs",
    ]


def test_a_strict_provider_refusing_unknown_fields_is_eval_not_unreachable() -> None:
    """Like a provider behind the Hugging Face router that validates its request schema: the
    capture fields it does not know are dropped one by one, each fix named."""
    app = FastAPI()
    known = {"model", "messages", "max_tokens", "temperature", "logprobs", "top_logprobs", "tools"}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        unknown = sorted(set(body) - known)
        if unknown:
            message = f"Unrecognized request argument supplied: {unknown[0]}"
            return JSONResponse({"error": {"message": message}}, 400)
        reply = {"role": "assistant", "content": "hello"}
        return JSONResponse({"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}]})

    with serve_in_thread(app) as url:
        level = probe_capture_level(f"{url}/v1", model="org/model:provider")
    assert (level.capture_level, level.rollout_type) == ("text", "eval")
    fixes = sorted(n.split(":")[0] for n in level.notes if n.startswith("parameter fix"))
    assert fixes == ["parameter fix drop_seed", "parameter fix drop_token_ids"]


def test_an_unreachable_endpoint_or_missing_model_is_a_clear_error() -> None:
    with pytest.raises(ProbeError, match="unreachable"):
        probe_capture_level(f"http://127.0.0.1:{free_port()}/v1", model="m", timeout=5)
    app = FastAPI()
    with serve_in_thread(app) as url, pytest.raises(ProbeError, match="pass the model name"):
        probe_capture_level(f"{url}/v1")
