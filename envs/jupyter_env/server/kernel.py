"""A Jupyter kernel in a sandbox of its own, driven over ZMQ on Unix sockets.

:class:`SandboxedKernel` starts ``python -m ipykernel_launcher -f kernel.json`` with
:meth:`openenv.sandbox.Sandbox.spawn`: the same namespaces, user, rlimits and network rule as
coding_env's code. The kernel's sockets use the ``ipc`` transport, in the sandbox's working
directory (the one directory both sides see; the sandbox's network namespace cannot reach the
host's loopback TCP). The kernel lives for the episode; :meth:`close` kills every process of
the sandbox.

Each execution has a wall-clock limit: past it the kernel gets an ``interrupt_request`` (a
``KeyboardInterrupt`` in the cell), and if it is still busy ``INTERRUPT_GRACE_S`` later, or if
it dies, it is killed and the next execution starts a fresh one (the variables are gone, and
the result says so). Outputs are bounded (see :class:`OutputBounds`); the ZMQ sockets refuse
messages larger than ``MAX_MESSAGE_BYTES``.
"""

from __future__ import annotations

import json
import queue
import re
import secrets
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import zmq
from jupyter_client.blocking import BlockingKernelClient

from jupyter_env.models import CellOutput
from openenv.sandbox import Sandbox, SandboxLimits

START_TIMEOUT_S = 90.0  # a kernel imports IPython: seconds on a loaded machine
INTERRUPT_GRACE_S = 5.0
MAX_MESSAGE_BYTES = 16 * 2**20
POLL_S = 0.25
CONNECTION_FILE = ".kernel.json"  # hidden, with the sockets, from a plain ls
# Fewer malloc arenas and BLAS threads: a kernel fits the sandbox's address-space limit.
KERNEL_ENV = {"MALLOC_ARENA_MAX": "2", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
KERNEL_ARGS = ["--HistoryManager.enabled=False", "--IPKernelApp.quiet=True"]


class KernelUnavailable(RuntimeError):
    """No kernel could be started (the message says why and what to install)."""


@dataclass(frozen=True)
class OutputBounds:
    """How much of a cell's output is kept: stream text characters in all (the rest is cut),
    images and HTML parts; and of its display outputs (``display()``, results), at most
    ``displays`` of at most ``display_chars`` characters together: past either, the oldest
    are dropped, and the cell's notes say how many."""

    text_chars: int = 32_000
    images: int = 4
    image_bytes: int = 1_000_000  # base64 characters of one PNG
    html_parts: int = 4
    html_chars: int = 100_000
    displays: int = 64
    display_chars: int = 2_000_000  # text, PNG and HTML characters of the kept displays
    display_text_chars: int = 4_000  # text/plain of one display


@dataclass
class Execution:
    """What one execution produced."""

    outputs: list[CellOutput] = field(default_factory=list)
    execution_count: int = 0
    error_name: str | None = None
    error: str | None = None  # "Name: value\ntraceback"
    notes: list[str] = field(default_factory=list)  # limits hit, restarts
    user_expressions: dict[str, str] = field(default_factory=dict)  # name -> text/plain

    @property
    def success(self) -> bool:
        return self.error is None


class SandboxedKernel:
    """One IPython kernel per episode, started on first use."""

    def __init__(
        self,
        limits: SandboxLimits,
        timeout_s: float,
        bounds: OutputBounds | None = None,
    ) -> None:
        self.limits = limits
        self.timeout_s = timeout_s
        self.bounds = bounds or OutputBounds(text_chars=limits.output_bytes)
        self.kernel_id: str | None = None
        self._sandbox: Sandbox | None = None
        self._client: BlockingKernelClient | None = None
        self._context: zmq.Context | None = None
        self._lock = threading.RLock()  # one execution at a time; close() waits for it
        # dropped without close(): end the sandbox and the sockets without blocking anyone
        self._held: dict[str, Any] = {}
        weakref.finalize(self, _let_go, self._held)

    @property
    def running(self) -> bool:
        return self._sandbox is not None and self._sandbox.alive

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the kernel (if none is running) and wait until it answers."""
        if self._client is not None:
            return
        sandbox = Sandbox(self.limits)
        self._sandbox = sandbox
        try:
            workdir = sandbox.prepare()
            info = _connection_info(workdir)
            path = f"{workdir}/{CONNECTION_FILE}"
            sandbox.spawn(
                [sandbox.python, "-I", "-m", "ipykernel_launcher", "-f", path, *KERNEL_ARGS],
                files={CONNECTION_FILE: json.dumps(info).encode()},
                env=KERNEL_ENV,
            )
            self._held["sandbox"] = sandbox
            self._context = self._held["context"] = zmq.Context()
            self._context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            self._context.setsockopt(zmq.LINGER, 0)  # closing never waits for unsent messages
            client = BlockingKernelClient(context=self._context)
            # the sockets are in the sandbox's working directory, on its own disk: reached
            # through its launcher's view of the filesystem
            client.load_connection_info({**info, "ip": sandbox.host_path(".kernel")})
            client.start_channels(hb=False)  # liveness: the sandbox's process, not heartbeats
            self._client = self._held["client"] = client
            self._wait_ready(sandbox.python)
        except BaseException:
            self.close()
            raise
        self.kernel_id = info["key"][:12]

    def close(self) -> None:
        """Kill every process of the kernel's sandbox, then close the sockets (idempotent).

        Safe from another thread while a cell runs: the kill comes first, so the running
        execution sees the kernel gone within ``POLL_S`` and lets go of the sockets."""
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            sandbox.close()
        with self._lock:
            client, self._client = self._client, None
            if client is not None:
                client.stop_channels()
            context, self._context = self._context, None
            if context is not None:
                context.destroy(linger=0)
            self._held.clear()
            self.kernel_id = None

    def _wait_ready(self, python: str) -> None:
        """Wait until a kernel_info request is answered on iopub too: a subscriber that has
        just connected misses what is published before its subscription lands, and an
        execution whose idle status is lost would wait for its time limit."""
        client = self._require()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.running:
                raise KernelUnavailable(_NO_KERNEL.format(python=python))
            if self._iopub_answers(client.kernel_info(), time.monotonic() + 1.0):
                self._drain_iopub()
                return
        raise KernelUnavailable(f"the kernel did not answer within {START_TIMEOUT_S:g} s")

    def _iopub_answers(self, msg_id: str, deadline: float) -> bool:
        client = self._require()
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                msg = client.get_iopub_msg(timeout=remaining)
            except queue.Empty:
                return False
            if msg["parent_header"].get("msg_id") == msg_id:
                return True
        return False

    def _require(self) -> BlockingKernelClient:
        if self._client is None:
            raise RuntimeError("the kernel is not started")
        return self._client

    # -- executing ---------------------------------------------------------------------------

    def execute(
        self,
        code: str,
        *,
        store_history: bool = True,
        user_expressions: dict[str, str] | None = None,
    ) -> Execution:
        """Run ``code`` as one cell (starting the kernel if needed); never raises for the
        code's own failures: they are in the result's ``error``. ``user_expressions`` are
        evaluated after the cell; their text/plain values come back in the result."""
        with self._lock:
            self.start()
            client = self._require()
            msg_id = client.execute(
                code,
                store_history=store_history,
                allow_stdin=False,
                user_expressions=user_expressions or {},
                # each call is one cell, nothing queued behind it to abort; and with
                # stop_on_error the kernel aborts, for a moment after an error, requests
                # that arrive at once, such as the next tool call's
                stop_on_error=False,
            )
            collector = _Collector(self.bounds)
            finished = self._collect(msg_id, collector, time.monotonic() + self.timeout_s)
            if finished is None:  # the kernel died
                return self._restarted(collector, "the kernel died (a limit, or os._exit?)")
            if not finished:
                limit = f"wall-clock time limit of {self.timeout_s:g} s exceeded"
                collector.note(f"{limit}: the cell was interrupted")
                self._interrupt()
                finished = self._collect(msg_id, collector, time.monotonic() + INTERRUPT_GRACE_S)
                if not finished:
                    return self._restarted(collector, f"{limit} and interrupting did not stop it")
            self._read_reply(msg_id, collector)
            return collector.result()

    def _collect(self, msg_id: str, collector: _Collector, deadline: float) -> bool | None:
        """Gather outputs until the kernel is idle (True), the deadline (False) or its death
        (None)."""
        client = self._require()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                msg = client.get_iopub_msg(timeout=min(POLL_S, remaining))
            except queue.Empty:
                if not self.running:
                    return None
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if collector.add(msg["msg_type"], msg["content"]):
                return True

    def _interrupt(self) -> None:
        client = self._require()
        client.control_channel.send(client.session.msg("interrupt_request", {}))

    def _read_reply(self, msg_id: str, collector: _Collector) -> None:
        """The execute_reply: the execution count and the user expressions' values."""
        client = self._require()
        deadline = time.monotonic() + INTERRUPT_GRACE_S
        while time.monotonic() < deadline:
            try:
                reply = client.get_shell_msg(timeout=POLL_S)
            except queue.Empty:
                continue
            if reply["parent_header"].get("msg_id") != msg_id:
                continue  # a late answer to an earlier request
            content = reply["content"]
            if content.get("status") == "aborted":
                collector.fail("Aborted", "the kernel did not run this cell")
            collector.execution_count = int(
                content.get("execution_count") or collector.execution_count
            )
            for name, value in (content.get("user_expressions") or {}).items():
                text = (value.get("data") or {}).get("text/plain")
                if isinstance(text, str):
                    collector.user_expressions[name] = text[:1000]
            return

    def _restarted(self, collector: _Collector, why: str) -> Execution:
        self.close()  # the next execution starts a fresh kernel
        collector.fail("KernelRestarted", f"{why}; the kernel was restarted, variables are gone")
        return collector.result()

    def _drain_iopub(self) -> None:
        client = self._require()
        while True:
            try:
                client.get_iopub_msg(timeout=0.05)
            except queue.Empty:
                return


class _Collector:
    """Turns iopub messages into bounded :class:`CellOutput` items."""

    def __init__(self, bounds: OutputBounds) -> None:
        self.bounds = bounds
        self.outputs: list[CellOutput] = []
        self.execution_count = 0
        self.error_name: str | None = None
        self.error: str | None = None
        self.notes: list[str] = []
        self.user_expressions: dict[str, str] = {}
        self._text_left = bounds.text_chars
        self._images = self._html = 0
        self._cut = 0
        self._displays: deque[CellOutput] = deque()  # the kept ones, oldest first
        self._display_chars = 0
        self._dropped = 0

    def add(self, kind: str, content: dict[str, Any]) -> bool:
        """Take one message; True when the kernel went idle (the cell is over)."""
        if kind == "status":
            return content.get("execution_state") == "idle"
        if kind == "stream":
            self._text(content.get("name", "stdout"), str(content.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            self._data(kind, content.get("data") or {})
            if kind == "execute_result":
                self.execution_count = int(content.get("execution_count") or 0)
        elif kind == "error":
            traceback = "\n".join(str(line) for line in content.get("traceback") or [])
            self.fail(str(content.get("ename", "Error")), _strip_ansi(traceback), content)
        elif kind == "execute_input":
            self.execution_count = int(content.get("execution_count") or 0)
        return False

    def note(self, text: str) -> None:
        self.notes.append(text)

    def fail(self, name: str, text: str, content: dict[str, Any] | None = None) -> None:
        value = str((content or {}).get("evalue", ""))
        self.error_name = name
        self.error = f"{name}: {value}\n{text}" if content is not None else f"{name}: {text}"
        self.outputs.append(CellOutput(output_type="error", text=self._clip(self.error)))

    def _text(self, name: str, text: str) -> None:
        text = self._clip(text)
        if not text:
            return
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last.output_type == "stream" and last.name == name:
            last.text += text  # consecutive chunks of one stream make one output
        else:
            self.outputs.append(CellOutput(output_type="stream", name=name, text=text))

    def _data(self, kind: str, data: dict[str, Any]) -> None:
        limit = self.bounds.display_text_chars
        text = str(data.get("text/plain", ""))
        if len(text) > limit:
            self._cut += len(text) - limit
            text = text[:limit]
        out = CellOutput(output_type=kind, text=text)  # type: ignore[arg-type]
        png = data.get("image/png")
        if isinstance(png, str):
            if self._images < self.bounds.images and len(png) <= self.bounds.image_bytes:
                out.png = png.replace("\n", "")
                self._images += 1
            else:
                self.note("an image was left out (too many or too large)")
        html = data.get("text/html")
        fits = isinstance(html, str) and len(html) <= self.bounds.html_chars
        if fits and self._html < self.bounds.html_parts:
            out.html = html
            self._html += 1
        self._keep_display(out)

    def _keep_display(self, out: CellOutput) -> None:
        """Keep ``out``, dropping the oldest displays past the count or size bound."""
        self.outputs.append(out)
        self._displays.append(out)
        self._display_chars += _size(out)
        bounds = self.bounds
        while len(self._displays) > bounds.displays or (
            self._display_chars > bounds.display_chars and len(self._displays) > 1
        ):
            oldest = self._displays.popleft()
            self._display_chars -= _size(oldest)
            self._dropped += 1
            self.outputs = [kept for kept in self.outputs if kept is not oldest]

    def _clip(self, text: str) -> str:
        kept = text[: max(0, self._text_left)]
        self._text_left -= len(kept)
        self._cut += len(text) - len(kept)
        return kept

    def result(self) -> Execution:
        notes = list(self.notes)
        if self._dropped:
            b = self.bounds
            notes.append(
                f"{self._dropped} older display output(s) of this cell dropped: a cell keeps "
                f"its last {b.displays} displays, {b.display_chars:,} characters at most"
            )
        if self._cut:
            notes.append(f"{self._cut} more characters of output not shown")
        return Execution(
            outputs=self.outputs,
            execution_count=self.execution_count,
            error_name=self.error_name,
            error=self.error,
            notes=notes,
            user_expressions=self.user_expressions,
        )


def _size(out: CellOutput) -> int:
    return len(out.text) + len(out.png or "") + len(out.html or "")


def _let_go(held: dict[str, Any]) -> None:
    """A kernel dropped without close(): end its sandbox (its launcher does the killing; this
    waits for nothing), and close its ZMQ sockets and context on a thread of their own, off
    the garbage collector's path: terminating a context waits for every socket of it, and a
    finalizer may run anywhere (in an unrelated import, say), so it must never wait."""
    sandbox = held.pop("sandbox", None)
    if sandbox is not None:
        sandbox.detach()
    client, context = held.pop("client", None), held.pop("context", None)
    if client is not None or context is not None:
        threading.Thread(
            target=_close_sockets, args=(client, context), name="kernel-sockets", daemon=True
        ).start()


def _close_sockets(client: BlockingKernelClient | None, context: zmq.Context | None) -> None:
    if client is not None:
        client.stop_channels()
    if context is not None:
        context.destroy(linger=0)


def _connection_info(workdir: str) -> dict[str, Any]:
    """Ports become socket file names (``<workdir>/.kernel-<n>``) on the ipc transport."""
    ports = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
    return {
        "transport": "ipc",
        "ip": f"{workdir}/.kernel",
        **{name: number for number, name in enumerate(ports, start=1)},
        "key": secrets.token_hex(32),
        "signature_scheme": "hmac-sha256",
        "kernel_name": "python3",
    }


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


_NO_KERNEL = (
    "the Jupyter kernel exited at start: is ipykernel installed for {python}, the interpreter "
    "sandboxes run (pip install ipykernel, or on Debian apt-get install python3-ipykernel)?"
)
