"""What the capture proxy adds per model call, and 64 concurrent rollouts through one proxy.

    python bench/bench_capture_proxy.py                    # both upstreams, 300 calls each way
    python bench/bench_capture_proxy.py --calls 1000 --rollouts 64 --turns 5

Every server is a child process (uvicorn), so their work does not share this interpreter:
- ``canned``: an upstream answering at once with a fixed vLLM-format completion (token ids,
  logprobs): the proxy's own cost, the model taken out;
- ``engine``: the shipped test engine (scripted test policy over the tiny model).
- the proxy in front of each, with sessions minted at start (their ids printed on stdout).

Direct and proxied calls alternate (one of each per round) so the machine's load hits both; the
figure is the difference of the medians (p50) and of the 99th percentiles. Direct calls ask
for token ids and logprobs too, as the proxy does. Streaming: time to
the first content chunk and to the end of the stream. Then ``--rollouts`` sessions, each a
``--turns``-call conversation, all at once through one proxy in front of the engine: calls per
second and per-call latency, and whether every session's calls were linked into one chain.
Goal (issue 33): <= 2 ms p50 added on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response

from openenv.core.harness.loopback import free_port

ASK = [{"role": "user", "content": "Write the answer to /app/answer.txt"}]
SCRIPT = {
    "steps": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo 42 > /app/answer.txt"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "cat /app/answer.txt"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "ls /app"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "pytest -q"}}]},
        {"content": "Done: 42."},
    ]
}


# -- child processes -------------------------------------------------------------------------


def _serve_canned(port: int) -> None:
    ids = list(range(10, 60))
    entries = [
        {"token": f"token_id:{t}", "logprob": -0.5, "bytes": [], "top_logprobs": []}
        for t in ids[:20]
    ]
    body = json.dumps(
        {
            "id": "chatcmpl-canned",
            "object": "chat.completion",
            "created": 0,
            "model": "canned",
            "prompt_token_ids": ids,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "x" * 80},
                    "finish_reason": "stop",
                    "token_ids": ids[:20],
                    "logprobs": {"content": entries},
                }
            ],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
        }
    ).encode()
    chunks = (
        "".join(
            "data: "
            + json.dumps(
                {
                    "object": "chat.completion.chunk",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"content": "x" * 4},
                            "token_ids": [t],
                            "finish_reason": None,
                        }
                    ],
                }
            )
            + "\n\n"
            for t in ids[:20]
        )
        + "data: [DONE]\n\n"
    )
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        if (await request.json()).get("stream"):
            return Response(chunks, media_type="text/event-stream")
        return Response(body, media_type="application/json")

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _serve_proxy(port: int, upstream: str, sessions: int) -> None:
    from openenv.core.harness.capture import CaptureLevel, CaptureProxy, Upstream
    from openenv.core.harness.capture.server import create_capture_app

    level = CaptureLevel(capture_level="tokens", rollout_type="train", logprobs_mode="processed")
    proxy = CaptureProxy(Upstream(upstream), level)
    ids = [proxy.open_session(f"bench-{i}") for i in range(sessions)]
    app = create_capture_app(proxy)

    @app.get("/_bench/graph")
    async def graph() -> dict[str, Any]:  # how each session's calls were linked
        return {sid: [n.parent_id for n in proxy.result(sid).nodes] for sid in ids}

    # (the catch-all 404 route was registered first; move this one before it)
    app.router.routes.insert(0, app.router.routes.pop())
    print(json.dumps(ids), flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


@contextmanager
def child(args: list[str], port: int) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{args} did not start") from None
                time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# -- measurements ----------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def whole(client: httpx.Client, url: str, key: str, body: dict[str, Any]) -> float:
    start = time.perf_counter()
    reply = client.post(
        f"{url}/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}
    )
    reply.raise_for_status()
    return time.perf_counter() - start


def streamed(client: httpx.Client, url: str, key: str, body: dict[str, Any]) -> tuple[float, float]:
    start, first = time.perf_counter(), None
    with client.stream(
        "POST",
        f"{url}/chat/completions",
        json={**body, "stream": True},
        headers={"Authorization": f"Bearer {key}"},
    ) as reply:
        for line in reply.iter_lines():
            # the first thing an agent sees: a piece of text or a tool call
            seen = ('"content": "' in line and '"content": ""' not in line) or "tool_calls" in line
            if first is None and line.startswith("data: {") and seen:
                first = time.perf_counter() - start
    return first or 0.0, time.perf_counter() - start


def compare(name: str, direct: str, proxy: str, key: str, calls: int) -> None:
    body = {"model": "m", "messages": ASK, "max_tokens": 40}
    # Direct calls ask for what the proxy asks for (ids and logprobs, as a trainer would), so
    # the difference is the proxy's own work, not the engine's work on the capture fields.
    captured = {**body, "logprobs": True, "top_logprobs": 0, "return_token_ids": True}
    columns: dict[str, list[float]] = {
        k: [] for k in ("d", "p", "d_first", "p_first", "d_end", "p_end")
    }
    with httpx.Client(timeout=60) as client:
        for _ in range(10):  # warm up both paths
            whole(client, direct, "x", captured)
            whole(client, proxy, key, body)
        for _ in range(calls):
            columns["d"].append(whole(client, direct, "x", captured))
            columns["p"].append(whole(client, proxy, key, body))
        for _ in range(max(20, calls // 3)):
            first, end = streamed(client, direct, "x", captured)
            columns["d_first"].append(first)
            columns["d_end"].append(end)
            first, end = streamed(client, proxy, key, body)
            columns["p_first"].append(first)
            columns["p_end"].append(end)

    def row(label: str, d: list[float], p: list[float]) -> None:
        p50d, p50p, p99d, p99p = pct(d, 0.5), pct(p, 0.5), pct(d, 0.99), pct(p, 0.99)
        print(
            f"  {label:<22} direct p50 {p50d * 1e3:7.2f} ms  p99 {p99d * 1e3:7.2f} ms | proxy "
            f"p50 {p50p * 1e3:7.2f} ms  p99 {p99p * 1e3:7.2f} ms | added p50 "
            f"{(p50p - p50d) * 1e3:+6.2f} ms  p99 {(p99p - p99d) * 1e3:+6.2f} ms"
        )

    print(f"{name}: {calls} whole calls each way, alternating")
    row("whole call", columns["d"], columns["p"])
    row("stream first token", columns["d_first"], columns["p_first"])
    row("stream whole", columns["d_end"], columns["p_end"])


async def rollouts(proxy: str, keys: list[str], turns: int) -> None:
    latencies: list[float] = []

    async def one(client: httpx.AsyncClient, key: str) -> None:
        messages: list[dict[str, Any]] = list(ASK)
        for _ in range(turns):
            start = time.perf_counter()
            reply = await client.post(
                f"{proxy}/v1/chat/completions",
                headers={"Authorization": f"Bearer {key}"},
                json={"model": "m", "messages": messages, "max_tokens": 200},
            )
            reply.raise_for_status()
            latencies.append(time.perf_counter() - start)
            message = reply.json()["choices"][0]["message"]
            messages.append(message)
            for call in message.get("tool_calls") or []:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": "ok"})

    limits = httpx.Limits(max_connections=len(keys) + 4)
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        start = time.perf_counter()
        await asyncio.gather(*(one(client, k) for k in keys))
        elapsed = time.perf_counter() - start
        graph = (await client.get(f"{proxy}/_bench/graph")).json()
    chained = sum(
        1
        for parents in graph.values()
        if len(parents) == turns and parents[0] is None and all(parents[1:])
    )
    n = len(latencies)
    print(
        f"{len(keys)} concurrent rollouts x {turns} calls through one proxy (engine upstream): "
        f"{n} calls in {elapsed:.1f} s = {n / elapsed:.1f} calls/s; per call p50 "
        f"{pct(latencies, 0.5) * 1e3:.0f} ms p99 {pct(latencies, 0.99) * 1e3:.0f} ms; "
        f"{chained}/{len(keys)} sessions linked into one chain each"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rollouts", type=int, default=64)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--serve", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, port, *rest = args.serve
        if kind == "canned":
            _serve_canned(int(port))
        else:
            _serve_proxy(int(port), rest[0], int(rest[1]))
        return
    me = os.path.abspath(__file__)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        ports = [free_port() for _ in range(4)]
        canned, engine, proxy_canned, proxy_engine = (f"http://127.0.0.1:{p}" for p in ports)
        engine_cmd = [
            "-m",
            "openenv.core.harness.engine",
            "--port",
            str(ports[1]),
            "--script",
            str(script),
        ]
        with (
            child([me, "--serve", "canned", str(ports[0])], ports[0]),
            child(engine_cmd, ports[1]),
            child([me, "--serve", "proxy", str(ports[2]), f"{canned}/v1", "1"], ports[2]) as pc,
            child(
                [me, "--serve", "proxy", str(ports[3]), f"{engine}/v1", str(args.rollouts + 1)],
                ports[3],
            ) as pe,
        ):
            key_canned = json.loads(pc.stdout.readline())[0]  # type: ignore[union-attr]
            keys_engine = json.loads(pe.stdout.readline())  # type: ignore[union-attr]
            compare(
                "canned upstream (proxy cost alone)",
                f"{canned}/v1",
                f"{proxy_canned}/v1",
                key_canned,
                args.calls,
            )
            compare(
                "test engine upstream",
                f"{engine}/v1",
                f"{proxy_engine}/v1",
                keys_engine[-1],
                max(30, args.calls // 5),
            )
            asyncio.run(rollouts(proxy_engine, keys_engine[: args.rollouts], args.turns))


if __name__ == "__main__":
    main()
