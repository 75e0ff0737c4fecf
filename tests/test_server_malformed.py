"""Every malformed input is an error reply and loses nothing: on /ws, the stage routes, /mcp
and the episode-file import, for depth, size, numbers and encodings; and a fuzz run over the
WebSocket and HTTP routes finds no way to drop a session or get a 500.

The server runs in this process (real sockets, real WebSockets): nothing here needs a process
of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from conftest import served
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from openenv.server import create_app
from openenv.web.episode.files import EpisodeFileError, parse_episode_jsonl

DEEP = "[" * 100_000 + "]" * 100_000
MAX_MESSAGE = 2**20  # openenv.server.limits' default message bound


@pytest.fixture(scope="module")
def grid() -> Iterator[str]:
    from grid_world_env.server.environment import GridWorldEnvironment

    with served(create_app(GridWorldEnvironment, enable_web=False, max_concurrent_envs=2)) as url:
        yield url


@pytest.fixture(scope="module")
def tools() -> Iterator[str]:
    from echo_env.server.environment import EchoEnvironment

    with served(create_app(EchoEnvironment, enable_web=False)) as url:
        yield url


def ws(base: str):
    return connect(base.replace("http://", "ws://") + "/ws", open_timeout=10)


def ask(socket, text: str) -> dict:
    socket.send(text)
    return json.loads(socket.recv(timeout=20))


def still_plays(socket) -> None:
    reply = ask(socket, json.dumps({"type": "step", "data": {"action": "DOWN"}}))
    assert reply["type"] == "observation", reply


BAD_FRAMES = {
    "deep nesting": '{"type": "step", "data": ' + "[" * 5000 + "]" * 5000 + "}",
    "very deep nesting": DEEP,
    "a lone surrogate as request_id": '{"type": "state", "request_id": "\\ud800"}',
    "an object as request_id": '{"type": "state", "request_id": {"a": 1}}',
    "a huge number": '{"type": "step", "data": {"action": ' + "9" * 5000 + "}}",
    "a huge float": '{"type": "reset", "data": {"seed": 1e999}}',
    "invalid UTF-8 in JSON": '{"type": "step", "data": {"action": "\\udfff"}}',
    "not JSON": "{not json",
    "a list": "[1, 2, 3]",
}


@pytest.mark.parametrize("frame", list(BAD_FRAMES.values()), ids=list(BAD_FRAMES))
def test_a_malformed_frame_gets_an_error_and_the_session_goes_on(grid: str, frame: str) -> None:
    with ws(grid) as socket:
        assert ask(socket, '{"type": "reset", "data": {"seed": 0}}')["type"] == "observation"
        reply = ask(socket, frame)
        assert reply["type"] == "error" and reply["data"]["code"], reply
        still_plays(socket)


def test_a_full_server_says_so_before_it_closes(grid: str) -> None:
    with ws(grid) as one, ws(grid) as two, ws(grid) as third:
        for socket in (one, two):
            assert ask(socket, '{"type": "reset"}')["type"] == "observation"
        third.send('{"type": "reset"}')  # sent into an open socket, answered with the refusal
        refusal = json.loads(third.recv(timeout=20))
        assert refusal["data"]["code"] == "CAPACITY_REACHED"


def test_stage_routes_answer_bad_bodies_with_400(tmp_path) -> None:
    from fastapi.testclient import TestClient
    from grid_world_env.server.environment import GridWorldEnvironment

    with TestClient(create_app(GridWorldEnvironment)) as client:
        for body in (DEEP.encode(), b'{"tab": "\xff\xfe"}', b"9" * 5000, b"x" * (300 * 1024)):
            answer = client.post("/web/stage/act", content=body)
            assert answer.status_code in (400, 413), (answer.status_code, answer.text[:200])


def test_mcp_answers_a_deep_body_with_a_parse_error(tools: str) -> None:
    answer = httpx.post(tools + "/mcp", content=DEEP, timeout=20)
    assert answer.status_code == 200 and answer.json()["error"]["code"] == -32700


def test_a_message_past_the_limit_is_refused_and_the_session_goes_on(grid: str) -> None:
    big = '{"type": "step", "data": {"action": "' + "x" * (MAX_MESSAGE + 1) + '"}}'
    with ws(grid) as socket:
        assert ask(socket, '{"type": "reset", "data": {"seed": 0}}')["type"] == "observation"
        reply = ask(socket, big)
        assert reply["data"]["code"] == "TOO_LARGE" and "1 MiB" in reply["data"]["message"]
        still_plays(socket)


def test_a_message_past_what_the_server_reads_closes_only_its_connection(grid: str) -> None:
    with ws(grid) as other, ws(grid) as socket:
        assert ask(other, '{"type": "reset", "data": {"seed": 0}}')["type"] == "observation"
        # The server closes it (1009) while it is still sending: a reset, or a closed socket.
        with pytest.raises((ConnectionClosed, OSError)):
            socket.send("x" * (4 * MAX_MESSAGE + 1))
            socket.recv(timeout=20)
        still_plays(other)


@pytest.mark.parametrize("route", ["/reset", "/step"])
def test_an_http_body_past_the_limit_gets_413(grid: str, route: str) -> None:
    answer = httpx.post(grid + route, content=b" " * (MAX_MESSAGE + 1), timeout=20)
    assert answer.status_code == 413 and answer.json()["code"] == "TOO_LARGE", answer.text


def test_mcp_answers_a_body_past_the_limit_with_413(tools: str) -> None:
    answer = httpx.post(tools + "/mcp", content=b" " * (MAX_MESSAGE + 1), timeout=20)
    assert answer.status_code == 413 and answer.json()["code"] == "TOO_LARGE"


def test_any_request_body_past_the_server_limit_gets_413(monkeypatch, grid: str) -> None:
    monkeypatch.setenv("OPENENV_MAX_BODY_BYTES", str(64 * 1024))  # read on each request
    page = grid  # a route no handler reads (the app answers it 404 or 405 otherwise)
    declared = httpx.post(page + "/health", content=b"x" * (64 * 1024 + 1), timeout=20)
    assert declared.status_code == 413 and "64 KiB" in declared.text

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        for _ in range(40):
            yield b"x" * 4096

    streamed = httpx.post(grid + "/reset", content=chunks(), timeout=20)
    assert streamed.status_code == 413, streamed.text
    assert httpx.get(grid + "/health", timeout=20).status_code == 200


@pytest.mark.parametrize(
    "line",
    [
        '{"action": {}, "observation": {}, "reward": ' + "9" * 5000 + ', "done": false}',
        '{"action": {}, "observation": {}, "reward": 1e999, "done": false}',
        '{"action": '
        + "[" * 5000
        + "]" * 5000
        + ', "observation": {}, "reward": 0, "done": false}',
        '{"action": {"a": "\\ud800"}, "observation": {}, "reward": 0, "done": false}',
    ],
    ids=["huge integer", "huge float", "deep", "lone surrogate"],
)
def test_an_episode_file_with_bad_values_is_refused_with_its_line(line: str) -> None:
    try:
        steps = parse_episode_jsonl(line)
    except EpisodeFileError as exc:
        assert "line 1" in str(exc)
    else:  # a lone surrogate in a string is text the page can show: kept, escaped on output
        assert steps[0]["action"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
MESSAGES = st.one_of(
    st.text(max_size=200),
    st.builds(json.dumps, JSON),
    st.builds(
        lambda kind, data, rid: json.dumps({"type": kind, "data": data, "request_id": rid}),
        st.sampled_from(["reset", "step", "state", "mcp", "close", "nope"]),
        JSON,
        JSON,
    ),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=MESSAGES)
def test_fuzz_no_frame_drops_the_session(grid: str, frame: str) -> None:
    with ws(grid) as socket:
        assert ask(socket, '{"type": "reset", "data": {"seed": 0}}')["type"] == "observation"
        if '"close"' in frame:
            return  # a close message closes, as asked
        socket.send(frame)
        reply = json.loads(socket.recv(timeout=20))
        assert reply["type"] in ("error", "observation", "state", "mcp"), reply
        still_plays(socket)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=st.one_of(st.binary(max_size=300), st.builds(lambda v: json.dumps(v).encode(), JSON)))
def test_fuzz_http_routes_never_answer_500(grid: str, body: bytes) -> None:
    for route in ("/reset", "/step"):
        answer = httpx.post(grid + route, content=body, timeout=20)
        assert answer.status_code < 500 or answer.status_code == 503, (route, answer.text[:300])
