"""The shared language-model endpoint: one setting, role overrides, clear failures."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from openenv.core.llm import LLMEndpoint, LLMUnavailable, llm_endpoint


class _Engine(BaseHTTPRequestHandler):
    """A chat endpoint that echoes the last user message, or fails on request."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        last = body["messages"][-1]["content"]
        auth = self.headers.get("Authorization")
        if last == "fail":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"engine broke")
            return
        payload = (
            {"unexpected": True}
            if last == "garbage"
            else {
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": f"{body['model']}:{auth}:{last}",
                        }
                    }
                ]
            }
        )
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def engine() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Engine)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_nothing_configured_means_none(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENENV_LLM_URL", "OPENENV_LLM_JUDGE_URL"):
        monkeypatch.delenv(name, raising=False)
    assert llm_endpoint() is None
    assert llm_endpoint("judge") is None


def test_a_role_overrides_the_shared_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENENV_LLM_URL", "http://shared/v1")
    monkeypatch.setenv("OPENENV_LLM_MODEL", "m")
    monkeypatch.setenv("OPENENV_LLM_JUDGE_URL", "http://judge/v1")
    monkeypatch.setenv("OPENENV_LLM_API_KEY", "secret")
    judge, user = llm_endpoint("judge"), llm_endpoint("user")
    assert judge is not None and user is not None
    assert (judge.base_url, judge.model, judge.api_key) == ("http://judge/v1", "m", "secret")
    assert user.base_url == "http://shared/v1"
    assert "secret" not in repr(judge)


def test_chat_and_complete_reach_the_endpoint(engine: str) -> None:
    endpoint = LLMEndpoint(base_url=engine, model="tiny", api_key="k")
    assert endpoint.complete("hello", system="be brief") == "tiny:Bearer k:hello"


@pytest.mark.parametrize("prompt", ["fail", "garbage"])
def test_a_bad_reply_is_a_clear_error(engine: str, prompt: str) -> None:
    with pytest.raises(LLMUnavailable, match=r"HTTP 500|not a chat completion"):
        LLMEndpoint(base_url=engine).complete(prompt)


def test_an_unreachable_endpoint_is_a_clear_error() -> None:
    with pytest.raises(LLMUnavailable, match="ConnectError"):
        LLMEndpoint(base_url="http://127.0.0.1:9/v1", timeout_s=2).complete("x")
