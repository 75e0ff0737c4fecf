"""Where a rollout runs: a task's files, the harness, then the verifier, in one sandbox.

``ProcessTaskSandbox`` is our per-session process sandbox (:class:`openenv.sandbox.Sandbox`):
its own unprivileged user, mount, PID and IPC namespaces, memory, disk, CPU and process
budgets, its working directory the task's (seeded from ``environment/app/``), and a network
namespace of its own: the agent reaches the capture proxy and nothing else. The proxy's port is
forwarded into the sandbox (:meth:`openenv.sandbox.Sandbox.forward`) while the harness runs: a
relay listens on ``127.0.0.1:<proxy port>`` of the sandbox's own loopback, so the harness's base
URL is unchanged, and leads through a Unix socket to that one port of the host; every other
address, the host's other loopback ports included, is unreachable (refused or no route, at
once). The verifier runs with no network at all. Where no network namespace can be made, the
sandbox refuses to run unless the operator set ``HARBOR_ALLOW_HOST_NETWORK=on``: then the agent
shares the host's network, as :func:`agent_network` and :func:`process_sandbox_status` say. The
verifier's files arrive only after the harness has ended (under ``/tmp/harbor``, private to the
sandbox), so the agent never sees them. A harness past its timeout is killed with its whole
process group, and the sandbox's own wall clock backs that up.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from openenv.sandbox.isolation import SandboxUnavailable, isolation
from openenv.sandbox.limits import on_off
from openenv.sandbox.sandbox import MAX_CODE_BYTES, Sandbox, SandboxLimits

LOG_TAIL_BYTES = 8000
HARBOR_DIR = "/tmp/harbor"
_SETUP_BUDGET = MAX_CODE_BYTES // 2  # base64 of the files, per cell
HOST_NETWORK_VAR = "HARBOR_ALLOW_HOST_NETWORK"
PROXY_ONLY, HOST = "proxy-only", "host"
log = logging.getLogger(__name__)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def plain(text: str) -> str:
    """What a harness or verifier printed, safe to show: colour codes dropped, other control
    characters (escape sequences included) replaced by ``?``; newlines and tabs kept."""
    return _CONTROL.sub("?", _ANSI.sub("", text))


class SandboxError(RuntimeError):
    """The sandbox could not do what the rollout asked (with the reason)."""


@dataclass
class HarnessOutcome:
    """How the harness ended: its exit code (None when stopped), whether it timed out, the tail
    of what it printed."""

    exit_code: int | None
    timed_out: bool
    log_tail: str


@dataclass
class VerifierOutcome:
    """The reward the verifier wrote (None when it wrote none) and what it printed."""

    reward: float | None
    exit_code: int | None
    output: str
    problem: str = ""


_WRITE = """
import base64, json, os
for _name, _data in json.loads({payload!r}).items():
    _path = os.path.join({root!r}, _name)
    os.makedirs(os.path.dirname(_path) or ".", exist_ok=True)
    with open(_path, "wb") as _f:
        _f.write(base64.b64decode(_data))
    if _name.endswith(".sh"):
        os.chmod(_path, 0o755)
"""

_RUN = """
import json, os, signal, subprocess
{relay}
os.makedirs(os.path.dirname({log!r}), exist_ok=True)
_log = open({log!r}, "wb")
_proc = subprocess.Popen({argv!r}, env={{**os.environ, **{env!r}}}, stdin=subprocess.DEVNULL,
                         stdout=_log, stderr=subprocess.STDOUT, start_new_session=True)
try:
    _code, _late = _proc.wait(timeout={timeout!r}), False
except subprocess.TimeoutExpired:
    os.killpg(_proc.pid, signal.SIGKILL)
    _proc.wait()
    _code, _late = None, True
{end_relay}
_log.close()
with open({log!r}, "rb") as _f:
    _f.seek(max(0, os.path.getsize({log!r}) - {tail}))
    _tail = _f.read().decode("utf-8", "replace")
print(json.dumps({{"exit_code": _code, "timed_out": _late, "tail": _tail}}))
"""

_RELAY = """
_relay = subprocess.Popen({argv!r}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
_ready = _relay.stdout.readline()
if _ready != b"ready\\n":
    _said = (_ready + _relay.stdout.read(2000)).decode("utf-8", "replace")
    raise RuntimeError("the capture proxy's relay did not start: " + _said)
"""
_END_RELAY = """
_relay.kill()
_relay.wait()
"""

_REWARD = """
import json, os
_dir = {logs!r} + "/verifier"
_out = {{"reward": None, "problem": ""}}
if os.path.isfile(_dir + "/reward.txt"):
    _text = open(_dir + "/reward.txt").read(100).strip()
    try:
        _out["reward"] = float(_text)
    except ValueError:
        _out["problem"] = "reward.txt is not a number: " + repr(_text[:40])
elif os.path.isfile(_dir + "/reward.json"):
    try:
        _data = json.loads(open(_dir + "/reward.json").read(100000))
        _value = _data.get("reward") if isinstance(_data, dict) else _data
        _out["reward"] = float(_value)
    except (ValueError, TypeError) as _exc:
        _out["problem"] = "reward.json has no numeric reward: " + str(_exc)[:200]
else:
    _out["problem"] = "the verifier wrote no reward (verifier/reward.txt or reward.json)"
print(json.dumps(_out))
"""


def _batches(files: dict[str, bytes]) -> list[dict[str, str]]:
    batches: list[dict[str, str]] = [{}]
    size = 0
    for name, data in files.items():
        encoded = base64.b64encode(data).decode()
        if len(encoded) > _SETUP_BUDGET:
            raise SandboxError(
                f"{name}: {len(data)} bytes, over the process sandbox's {_SETUP_BUDGET * 3 // 4} "
                "bytes a file (use the docker sandbox for large task files)"
            )
        if size + len(encoded) > _SETUP_BUDGET:
            batches.append({})
            size = 0
        batches[-1][name] = encoded
        size += len(encoded)
    return [b for b in batches if b]


_NO_NETWORK_NAMESPACE = (
    "the process sandbox lets a Harbor agent reach the capture proxy and nothing else, and "
    "could not make a network namespace on this machine ({reason}). Either run the server as "
    "root with CAP_SYS_ADMIN, or allow unprivileged user namespaces (sysctl "
    "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0), or set "
    f"{HOST_NETWORK_VAR}=on to let agents use the host's network, which is unsafe: an agent "
    "can then reach every host the server reaches, and the server's own loopback ports"
)


def agent_network(environ: Mapping[str, str] = os.environ) -> str:
    """How a Harbor agent in the process sandbox reaches the network on this machine:
    :data:`PROXY_ONLY` (a network namespace of its own, the capture proxy forwarded into it) or
    :data:`HOST` (no network namespace can be made and ``HARBOR_ALLOW_HOST_NETWORK=on``: the
    host's network, a warning logged). Raises :class:`SandboxUnavailable` saying how to fix it,
    or ValueError for a value of the variable other than on or off."""
    allowed = on_off(environ, HOST_NETWORK_VAR)
    try:
        isolation(network=False)
        return PROXY_ONLY
    except SandboxUnavailable as exc:
        isolation(network=True)  # no namespace at all: that error says why
        if not allowed:
            raise SandboxUnavailable(_NO_NETWORK_NAMESPACE.format(reason=exc)) from None
        _warn_host_network(str(exc))
        return HOST


def process_sandbox_status(environ: Mapping[str, str] = os.environ) -> tuple[bool, str]:
    """Whether Harbor rollouts can run in the process sandbox here, and how (``users=uid
    network=proxy-only``), or why not (the first line of the reason)."""
    try:
        network = agent_network(environ)
        how = isolation(network=network == HOST)
    except (SandboxUnavailable, ValueError) as exc:
        return False, str(exc).splitlines()[0]
    note = f" ({HOST_NETWORK_VAR}=on: no network namespace here)" if network == HOST else ""
    return True, f"users={how.users} network={network}{note}"


@functools.cache
def _warn_host_network(reason: str) -> None:
    log.warning(
        "%s=on: Harbor agents in the process sandbox use the host's network, because: %s",
        HOST_NETWORK_VAR,
        reason,
    )


def _loopback_port(url: str) -> int:
    """The port of a loopback ``http://127.0.0.1:<port>`` URL (the capture proxy's)."""
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost") or not parts.port:
        raise SandboxError(
            f"the process sandbox reaches a capture proxy on 127.0.0.1 only, got {url!r}"
        )
    return parts.port


def _run_code(
    log: str, argv: list[str], env: dict[str, str], timeout_s: float, relay: list[str] | None = None
) -> str:
    """The cell that runs ``argv`` (with the relay ``relay`` started first, if given)."""
    return _RUN.format(
        log=log,
        argv=argv,
        env=env,
        timeout=timeout_s,
        tail=LOG_TAIL_BYTES,
        relay=_RELAY.format(argv=relay) if relay else "",
        end_relay=_END_RELAY if relay else "",
    )


class ProcessTaskSandbox:
    """A task's process sandbox: ``seed``, ``run_harness``, ``verify``, ``close``.

    ``proxy_url``: the capture proxy (``http://127.0.0.1:<port>``), the one address the
    harness may reach (None: none at all). :attr:`network` says how the agent reaches it
    (:func:`agent_network`); raises :class:`SandboxUnavailable` where it cannot run."""

    kind = "process"

    def __init__(
        self,
        *,
        harness_timeout_s: float,
        verifier_timeout_s: float,
        proxy_url: str | None = None,
    ) -> None:
        self.network = agent_network()
        self._proxy_port = None if proxy_url is None else _loopback_port(proxy_url)
        longest = max(harness_timeout_s, verifier_timeout_s)
        self.limits = SandboxLimits(
            timeout_s=longest + 30.0,  # the backstop: the cell's own wall clock
            cpu_s=int(longest) + 30,
            memory_mb=4096,
            file_size_mb=64,
            processes=256,
            output_bytes=64_000,
            cpu_budget_s=int(harness_timeout_s + verifier_timeout_s) + 120,
            network=self.network == HOST,
            disk_mb=1024,
            loopback=self.network == PROXY_ONLY,
        )
        self.box = Sandbox(self.limits)

    def _cell(self, code: str) -> dict:
        result = self.box.run(code)
        if result.exit_code != 0:
            reason = (result.stderr or result.stdout).strip()[-1500:]
            raise SandboxError(f"sandbox: {reason or f'exit status {result.exit_code}'}")
        lines = result.stdout.strip().splitlines()
        try:
            return json.loads(lines[-1])
        except (IndexError, ValueError):
            raise SandboxError(
                f"sandbox: no answer from the cell: {result.stdout[-500:]!r}"
            ) from None

    def _write(self, root: str, files: dict[str, bytes]) -> None:
        for batch in _batches(files):
            payload = json.dumps(batch)
            result = self.box.run(_WRITE.format(payload=payload, root=root))
            if result.exit_code != 0:
                raise SandboxError(f"sandbox: could not write the task's files: {result.stderr}")

    def seed(self, files: dict[str, bytes]) -> None:
        """Put the task's starting files in the working directory."""
        self._write(".", files)

    def run_harness(self, argv: list[str], env: dict[str, str], timeout_s: float) -> HarnessOutcome:
        """Run the harness in the working directory, the capture proxy forwarded into the
        sandbox while it runs; stopped at ``timeout_s``."""
        if self.network == HOST or self._proxy_port is None:
            answer = self._cell(_run_code(f"{HARBOR_DIR}/harness.log", argv, env, timeout_s))
        else:
            if not self.box.alive:
                self._cell("print('{}')")  # the port is forwarded into a running sandbox
            try:
                forwarded = self.box.forward(self._proxy_port)
            except (RuntimeError, OSError) as exc:  # closed meanwhile (a cancel), say
                raise SandboxError(f"sandbox: could not forward the capture proxy: {exc}") from exc
            try:
                relay = forwarded.relay_command(self.box.python)
                code = _run_code(f"{HARBOR_DIR}/harness.log", argv, env, timeout_s, relay)
                answer = self._cell(code)
            finally:
                forwarded.close()
        return HarnessOutcome(answer["exit_code"], answer["timed_out"], plain(answer["tail"]))

    def verify(
        self, tests: dict[str, bytes], env: dict[str, str], timeout_s: float
    ) -> VerifierOutcome:
        """Copy the tests in (only now), run ``tests/test.sh`` and read the reward it wrote."""
        tests_dir, logs = f"{HARBOR_DIR}/tests", f"{HARBOR_DIR}/logs"
        self._write(tests_dir, tests)
        argv = ["/bin/bash", f"{tests_dir}/test.sh"]
        verifier_env = {**env, "LOGS_DIR": logs}
        code = _run_code(f"{logs}/verifier/test-output.txt", argv, verifier_env, timeout_s)
        ran = self._cell(code)
        if ran["timed_out"]:
            output = plain(ran["tail"])
            return VerifierOutcome(None, None, output, f"verifier past {timeout_s:g} s")
        reward = self._cell(_REWARD.format(logs=logs))
        output = plain(ran["tail"])
        return VerifierOutcome(reward["reward"], ran["exit_code"], output, plain(reward["problem"]))

    def close(self) -> None:
        """Kill every process of the sandbox and remove its files (idempotent)."""
        self.box.close()
