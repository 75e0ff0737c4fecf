"""A load generator that speaks the OpenEnv /ws wire protocol with plain ``websockets``.

It uses neither our client nor the reference's, so the same code measures both servers.
Every session walks the grid world DOWN/UP forever (the episode never ends), one step at a time.
Stepping sessions use :class:`LeanConnection` (the ``websockets`` library's sans-I/O protocol
on a bare asyncio transport), which costs the load generator a fraction of the CPU of its
asyncio client, so that the servers, not the client, limit the figures on a small machine.
Playground visitors (bench_crowd.py's ``visitors``) use :class:`LeanHTTP`, one keep-alive
HTTP/1.1 connection per visitor as a browser keeps, on a bare asyncio transport too.
"""

from __future__ import annotations

import asyncio
import collections
import json
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

RESET = json.dumps({"type": "reset", "data": {}})
STEPS = [json.dumps({"type": "step", "data": {"action": a}}) for a in ("DOWN", "UP")]


@dataclass
class LoadResult:
    sessions: int
    steps: int = 0
    all_steps: int = 0  # including the warm-up
    errors: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    cpu_us: float = float("nan")  # server CPU per step, filled in by the caller
    client_cpu_s: float = 0.0  # CPU the load generator itself used (all its processes)

    @property
    def client_cpu_us(self) -> float:
        """Load generator CPU per step: the client must not be what limits the figures."""
        return 1e6 * self.client_cpu_s / max(self.all_steps, 1)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        """Latency percentile in milliseconds."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    def line(self, label: str) -> str:
        return (
            f"{label:<10} N={self.sessions:<3} {self.steps_per_s:9.0f} steps/s  "
            f"p50 {self.percentile(50):6.2f} ms  p99 {self.percentile(99):6.2f} ms  "
            f"errors {self.errors}"
        )


class LeanConnection(asyncio.Protocol):
    """One WebSocket client connection: ``send`` a text frame, ``recv`` the next one.

    The handshake, masking, framing, pings and the closing handshake are the ``websockets``
    library's (its sans-I/O ``ClientProtocol``); only the I/O loop is this class.
    """

    def __init__(self, url: str) -> None:
        self.ws = ClientProtocol(parse_uri(url), max_size=None)
        self.loop = asyncio.get_running_loop()
        self.opened = self.loop.create_future()
        self.texts: collections.deque[str] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None
        self.transport: asyncio.Transport | None = None

    @classmethod
    async def open(cls, url: str) -> LeanConnection:
        parts = urlsplit(url)
        _, conn = await asyncio.get_running_loop().create_connection(
            lambda: cls(url), parts.hostname, parts.port
        )
        await conn.opened
        return conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Response):
                if event.status_code == 101 and self.ws.handshake_exc is None:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(ConnectionError(f"handshake: {event.status_code}"))
            elif event.opcode is Opcode.TEXT and event.fin:
                self.texts.append(event.data.decode())
        self._flush()  # pongs, the closing handshake
        if self.texts and self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        for future in (self.opened, self.waiter):
            if future is not None and not future.done():
                future.set_exception(ConnectionError("the server closed the connection"))

    def _flush(self) -> None:
        chunks = self.ws.data_to_send()
        if chunks and self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(chunks))

    def send(self, text: str) -> None:
        self.ws.send_text(text.encode())
        self._flush()

    async def recv(self) -> str:
        if not self.texts:
            self.waiter = self.loop.create_future()
            await self.waiter
        return self.texts.popleft()

    def close(self) -> None:
        self.ws.send_close(1000)
        self._flush()
        if self.transport is not None:
            self.transport.close()


class LeanHTTP(asyncio.Protocol):
    """One keep-alive HTTP/1.1 client connection: ``post`` a JSON body or ``get`` a path, one
    request at a time (a visitor's page waits for each answer before its next click), and
    read the whole answer: ``Content-Length`` or chunked (Gradio's event streams, read to
    their end). A connection the server closed between requests (its keep-alive timeout) is
    opened again.
    """

    MAX_HEAD = 64 * 1024

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.loop = asyncio.get_running_loop()
        self.buffer = bytearray()
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.transport: asyncio.Transport | None = None

    @classmethod
    async def open(cls, url: str) -> LeanHTTP:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        _, conn = await asyncio.get_running_loop().create_connection(
            lambda: cls(host, port), host, port
        )
        return conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buffer) > self.MAX_HEAD:
                self._fail(ConnectionError("an answer's headers never ended"))
            return
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        headers = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            length = int(headers["content-length"])
            if len(self.buffer) < end + 4 + length:
                return
            body = bytes(self.buffer[end + 4 : end + 4 + length])
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = _dechunk(self.buffer, end + 4)
            if chunks is None:
                return
            body = chunks
        else:
            self._fail(ConnectionError(f"an answer of unknown length: {head[0]}"))
            return
        self.buffer.clear()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result((int(head[0].split()[1]), body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._fail(ConnectionError("the server closed the connection"))

    def _fail(self, exc: Exception) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)

    async def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        """``method`` ``path`` (with a JSON ``body``); (status, answer body)."""
        if self.transport is None or self.transport.is_closing():
            # this protocol again, on a new transport (connection_made sets it)
            await self.loop.create_connection(lambda: self, self.host, self.port)
        assert self.transport is not None
        self.buffer.clear()
        self.waiter = self.loop.create_future()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: */*\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.transport.write(head.encode() + b"\r\n" + (body or b""))
        return await self.waiter

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        return await self.request("POST", path, body)

    async def get(self, path: str) -> tuple[int, bytes]:
        return await self.request("GET", path)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def _dechunk(buffer: bytearray, at: int) -> bytes | None:
    """The body of a chunked answer starting at ``at``, or ``None`` until its last chunk."""
    out = bytearray()
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            return None
        size = int(bytes(buffer[at:line_end]).split(b";")[0], 16)
        if size == 0:
            return bytes(out) if buffer.find(b"\r\n", line_end + 2) >= 0 else None
        start = line_end + 2
        if len(buffer) < start + size + 2:
            return None
        out += buffer[start : start + size]
        at = start + size + 2


async def _session(url: str, stop_at: float, warm_until: float, result: LoadResult) -> None:
    ws = await LeanConnection.open(url)
    try:
        ws.send(RESET)
        if json.loads(await ws.recv()).get("type") != "observation":
            result.errors += 1
            return
        i = 0
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                return
            ws.send(STEPS[i & 1])
            reply = await ws.recv()
            t1 = time.perf_counter()
            i += 1
            result.all_steps += 1
            if '"type":"observation"' not in reply.replace(" ", ""):
                result.errors += 1
            elif t0 >= warm_until:
                result.steps += 1
                result.latencies.append(t1 - t0)
    finally:
        ws.close()


async def _plain_session(url: str, stop_at: float, warm_until: float, result: LoadResult) -> None:
    """A session as a plain ``websockets`` user writes it: the library's asyncio client with
    its defaults (it offers per-message deflate), each answer parsed."""
    async with connect(url, max_size=None) as ws:
        await ws.send(RESET)
        if json.loads(await ws.recv()).get("type") != "observation":
            result.errors += 1
            return
        i = 0
        while (t0 := time.perf_counter()) < stop_at:
            await ws.send(STEPS[i & 1])
            reply = json.loads(await ws.recv())
            t1 = time.perf_counter()
            i += 1
            result.all_steps += 1
            if reply.get("type") != "observation":
                result.errors += 1
            elif t0 >= warm_until:
                result.steps += 1
                result.latencies.append(t1 - t0)


CLIENTS = {"lean": _session, "plain": _plain_session}


async def run_load(
    ws_url: str, sessions: int, seconds: float, warmup: float = 1.0, client: str = "lean"
) -> LoadResult:
    """Open ``sessions`` concurrent sessions and step them for ``seconds`` after ``warmup``,
    with the ``lean`` client (:class:`LeanConnection`) or the ``plain`` one."""
    result = LoadResult(sessions=sessions)
    cpu0 = time.process_time()
    start = time.perf_counter()
    warm_until = start + warmup
    stop_at = warm_until + seconds
    session = CLIENTS[client]
    outcomes = await asyncio.gather(
        *(session(ws_url, stop_at, warm_until, result) for _ in range(sessions)),
        return_exceptions=True,
    )
    result.errors += sum(isinstance(o, BaseException) for o in outcomes)
    result.seconds = seconds
    result.client_cpu_s = time.process_time() - cpu0
    return result


def _run_in_process(
    ws_url: str, sessions: int, seconds: float, warmup: float, client: str
) -> LoadResult:
    return asyncio.run(run_load(ws_url, sessions, seconds, warmup, client))


async def run_load_procs(
    ws_url: str,
    sessions: int,
    seconds: float,
    procs: int,
    warmup: float = 1.0,
    client: str = "lean",
) -> LoadResult:
    """``run_load`` split over ``procs`` processes (so the client is not the bottleneck)."""
    if procs <= 1 or sessions < procs:
        return await run_load(ws_url, sessions, seconds, warmup, client)
    loop = asyncio.get_running_loop()
    shares = [sessions // procs + (i < sessions % procs) for i in range(procs)]
    with ProcessPoolExecutor(procs, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = await asyncio.gather(
            *(
                loop.run_in_executor(
                    pool, _run_in_process, ws_url, n, seconds, warmup + 1.0, client
                )
                for n in shares
            )
        )
    merged = LoadResult(sessions=sessions, seconds=seconds)
    for part in parts:
        merged.steps += part.steps
        merged.all_steps += part.all_steps
        merged.errors += part.errors
        merged.client_cpu_s += part.client_cpu_s
        merged.latencies.extend(part.latencies)
    return merged


async def open_idle(ws_url: str, count: int, batch: int = 50) -> tuple[list, int]:
    """Open ``count`` sessions (each reset once) and leave them idle; return (sockets, errors)."""
    sockets: list = []
    errors = 0

    async def one() -> None:
        nonlocal errors
        try:
            ws = await connect(ws_url, compression=None, ping_interval=None, open_timeout=60)
            await ws.send(RESET)
            if json.loads(await ws.recv()).get("type") != "observation":
                errors += 1
            sockets.append(ws)
        except (OSError, TimeoutError, ValueError, ConnectionClosed) as exc:
            errors += 1
            if errors <= 3:
                print(f"  idle connect failed: {exc!r}")

    for i in range(0, count, batch):
        await asyncio.gather(*(one() for _ in range(min(batch, count - i))))
    return sockets, errors


async def churn(ws_url: str, cycles: int, parallel: int = 8) -> int:
    """Run ``cycles`` connect/reset/step/close cycles, ``parallel`` at a time; return errors."""
    errors = 0
    todo = iter(range(cycles))

    async def worker() -> None:
        nonlocal errors
        for _ in todo:
            try:
                async with connect(ws_url, compression=None) as ws:
                    await ws.send(RESET)
                    await ws.recv()
                    await ws.send(STEPS[0])
                    if '"observation"' not in await ws.recv():
                        errors += 1
                    await ws.send(json.dumps({"type": "close"}))
            except (OSError, TimeoutError, ValueError, ConnectionClosed) as exc:
                errors += 1
                if errors <= 3:
                    print(f"  churn cycle failed: {exc!r}")

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return errors


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
