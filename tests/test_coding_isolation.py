"""The coding sandbox owns nothing outside itself, whether the server runs as root (each sandbox
gets a uid of its own) or as a normal user (sandboxes share the server's uid).

One script plays a server: it starts sandboxes, runs attacks in them and checks the host from
outside, then prints a JSON report. It runs twice: as root, and as a throwaway uid that is not
root (a copy of the sandbox modules, which need nothing but the standard library, and an
interpreter every user may run). The tests assert on the reports: writing 200 MiB to ``/tmp``
or ``/dev/shm`` (one disk of 64 MiB) ends in ``ENOSPC`` and leaves nothing on the host; what a
sandbox wrote there is gone when it closes; it can neither signal the server nor another
session's processes, nor write into another session's directory or anywhere else on the host's
filesystems.

(Over 400 lines: the server script, the attacks it runs and the assertions on its report are
one test, kept in one file.)
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from namespaces import without_namespaces

from openenv.sandbox import isolation as isolation_module
from openenv.sandbox.sandbox import SandboxLimits

SERVER_DIR = Path(isolation_module.__file__).parent
MODULES = (
    "cgroups.py",
    "isolation.py",
    "launcher.py",
    "limits.py",
    "processes.py",
    "runner.py",
    "sandbox.py",
)
DISK_MB = 64
MIB = 2**20

SERVER = r"""
import errno, json, os, signal, sys
from openenv.sandbox.isolation import SandboxUnavailable, isolation
from openenv.sandbox.sandbox import Sandbox, SandboxLimits

token, host_dir, DISK_MB = sys.argv[1], sys.argv[2], int(sys.argv[3])
LIMITS = SandboxLimits(
    timeout_s=60, cpu_s=30, memory_mb=256, file_size_mb=512, processes=16, disk_mb=DISK_MB
)
report = {"uid": os.getuid(), "server_pid": os.getpid()}
try:
    report["isolation"] = list(vars(isolation()).values())
except SandboxUnavailable as exc:
    print(json.dumps({"unavailable": str(exc)}))
    sys.exit(0)


def run(sandbox, code, **values):
    for name, value in values.items():
        code = code.replace(name.upper(), repr(value))
    result = sandbox.run(code)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def children(pid):
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(name))
    return found


def processes(sandbox):
    # the launcher (the server's child), PID 1 of the sandbox's namespace, the interpreter
    launcher = sandbox._live.proc.pid
    init = children(launcher)[0]
    return {"launcher": launcher, "init": init, "interpreter": children(init)[0]}


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def namespace_holders(link):
    holders = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{name}/ns/mnt") == link:
                holders.append(int(name))
        except OSError:
            continue
    return holders


def shm_keys():
    with open("/proc/sysvipc/shm") as f:
        return [int(line.split()[0]) for line in f.readlines()[1:]]


ERR = "import errno, json, os, signal\nerr = lambda exc: errno.errorcode.get(exc.errno, str(exc))\n"

FILL = ERR + '''
def fill(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    written, chunk = 0, b"x" * 2**20
    try:
        while written < 200 * 2**20:
            written += os.write(fd, chunk)
    except OSError as exc:
        return [written, err(exc)]
    finally:
        os.close(fd)
        os.unlink(path)  # /tmp and /dev/shm share the disk: empty it for the next one
    return [written, None]
print(json.dumps({path: fill(path) for path in PATHS}))
'''

KEEP = ERR + '''
import ctypes
for path in PATHS:
    with open(path, "w") as f:
        f.write("left behind?")
libc = ctypes.CDLL(None, use_errno=True)
shmid = libc.shmget(KEY, 2**20, 0o1000 | 0o600)  # IPC_CREAT: a System V segment that stays
print(json.dumps(shmid))
'''

KILL = ERR + '''
out = {}
for name, pid in TARGETS.items():
    try:
        os.kill(pid, signal.SIGKILL)
        out[name] = "killed"
    except OSError as exc:
        out[name] = err(exc)
try:
    os.kill(-1, signal.SIGKILL)
    out["everyone"] = "sent"
except OSError as exc:
    out["everyone"] = err(exc)
out["visible"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
print(json.dumps(out))
'''

TRESPASS = ERR + '''
out = {}
for name, path, mode in TARGETS:
    try:
        with open(path, mode) as f:
            f.write("trespass")
        out[name] = "wrote"
    except OSError as exc:
        out[name] = err(exc)
try:
    out["listing"] = os.listdir(PARENT)
except OSError as exc:
    out["listing"] = err(exc)
print(json.dumps(out))
'''

# 1. filling /tmp and /dev/shm: ENOSPC at the tmpfs size, nothing on the host
fill_paths = [f"/tmp/fill-{token}", f"/dev/shm/fill-{token}"]
with_limits = Sandbox(LIMITS)
report["fill"] = run(with_limits, FILL, paths=fill_paths)
report["fill_on_host"] = [os.path.exists(p) for p in fill_paths]
with_limits.close()

# 2. what a sandbox leaves in /tmp, /dev/shm and System V IPC is gone when it closes
keep_paths = [f"/tmp/keep-{token}", f"/dev/shm/keep-{token}"]
key = int.from_bytes(os.urandom(3), "big") + 1
leaver = Sandbox(LIMITS)
report["shmid"] = run(leaver, KEEP, paths=keep_paths, key=key)
ns = os.readlink(f"/proc/{processes(leaver)['interpreter']}/ns/mnt")
report["keep_on_host"] = [os.path.exists(p) for p in keep_paths]
report["shm_on_host"] = key in shm_keys()
report["holders_before"] = len(namespace_holders(ns))
leaver.close()
report["holders_after"] = namespace_holders(ns)
later = Sandbox(LIMITS)
EXIST = "import json, os; print(json.dumps([os.path.exists(p) for p in PATHS]))"
report["keep_later"] = run(later, EXIST, paths=keep_paths)
later.close()

# 3. signals: a sandbox cannot reach the server nor another session's processes
victim, attacker = Sandbox(LIMITS), Sandbox(LIMITS)
run(victim, "x = 'still here'\nprint(1)")
run(attacker, "print(1)")
targets = {"server": os.getpid(), **processes(victim)}
report["targets"] = targets
report["kill"] = run(attacker, KILL, targets=targets)
report["targets_alive"] = {name: alive(pid) for name, pid in targets.items()}
report["victim_after"] = victim.run("print(x)").stdout

# 4. files: not another session's directory, nor the host's files (even world-writable ones)
server_file = os.path.join(host_dir, "server-file")
with open(server_file, "w") as f:
    f.write("original")
os.chmod(server_file, 0o666)
trespass = [
    ("other_workdir", os.path.join(victim.workdir, "intruder"), "w"),
    ("server_file", server_file, "a"),
    ("server_dir", os.path.join(host_dir, "new-file"), "w"),
]
if os.path.isdir("/var/tmp"):
    trespass.append(("var_tmp", f"/var/tmp/trespass-{token}", "w"))
report["own_workdir"] = attacker.workdir
report["trespass"] = run(
    attacker, TRESPASS, targets=trespass, parent=os.path.dirname(victim.workdir)
)
report["trespass_on_host"] = {n: os.path.exists(p) for n, p, mode in trespass if mode == "w"}
with open(server_file) as f:
    report["server_file"] = f.read()
for sandbox in (victim, attacker):
    sandbox.close()
print(json.dumps(report))
"""


def run_server(python: str, uid: int | None, home: str) -> dict:
    """Run SERVER with ``python`` (as ``uid``, if given) from a copy of the sandbox modules."""
    token = secrets.token_hex(6)
    code = tempfile.mkdtemp(prefix="coding-isolation-")
    host_dir = tempfile.mkdtemp(prefix="coding-isolation-", dir=_outside_tmp())
    try:
        package = Path(code, "openenv", "sandbox")
        package.mkdir(parents=True)
        for init in (package / "__init__.py", package.parent / "__init__.py"):
            init.write_text("")
        server = Path(code, "server.py")
        server.write_text(f"import sys\nsys.path.insert(0, {code!r})\n{SERVER}")
        for name in MODULES:
            shutil.copy(SERVER_DIR / name, package / name)
        for directory in (code, host_dir):
            os.chmod(directory, 0o755)
            for root, dirs, files in os.walk(directory):
                for name in dirs + files:
                    os.chmod(os.path.join(root, name), 0o755)
        if uid is not None:
            os.chown(host_dir, uid, uid)
        result = subprocess.run(
            [python, "-I", str(server), token, host_dir, str(DISK_MB)],
            user=uid,
            group=uid,
            extra_groups=[] if uid is not None else None,
            cwd="/",
            env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout.splitlines()[-1])
        report["token"] = token
        report["host_dir"] = host_dir
        report["host_dir_files"] = sorted(os.listdir(host_dir))
        report["var_tmp_left"] = os.path.exists(f"/var/tmp/trespass-{token}")
        return report
    finally:
        shutil.rmtree(code, ignore_errors=True)
        shutil.rmtree(host_dir, ignore_errors=True)


def _outside_tmp() -> str | None:
    """A directory for the server's own files that is not under /tmp (hidden in sandboxes)."""
    return "/var/tmp" if os.path.isdir("/var/tmp") and os.access("/var/tmp", os.W_OK) else None


def _throwaway_uid() -> int:
    """A uid no process and no file of this machine's users is likely to have."""
    taken = {os.stat(f"/proc/{p}").st_uid for p in os.listdir("/proc") if p.isdigit()}
    while True:
        uid = random.randint(2_100_000_000, 2_140_000_000)
        if uid not in taken:
            return uid


@pytest.fixture(scope="module", params=["root", "user"])
def report(request) -> Iterator[dict]:
    """The server script's report, run as root ("uid" mode) or as a normal user ("rlimit")."""
    is_root = os.geteuid() == 0
    if request.param == "root" and not is_root:
        pytest.skip("the root mode needs the tests to run as root")
    home = tempfile.mkdtemp(prefix="coding-isolation-home-")
    uid = None
    python = sys.executable
    if request.param == "user" and is_root:
        uid = _throwaway_uid()
        os.chown(home, uid, uid)
        python = isolation_module._user_isolation()[1]  # an interpreter other users may run
    try:
        found = run_server(python, uid, home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if "unavailable" in found:  # refusing is right where the kernel allows no namespace
        assert request.param == "user", found["unavailable"]
        pytest.skip(f"no unprivileged namespaces here; the sandbox refused: {found['unavailable']}")
    users, network, _, private = found["isolation"]
    expected = ("uid", "namespace") if request.param == "root" else ("rlimit", "user namespace")
    assert (users, network, private) == (*expected, True)
    assert (found["uid"] == 0) == (request.param == "root")
    yield found


def test_filling_tmp_and_dev_shm_ends_at_their_size_and_leaves_nothing_on_the_host(
    report: dict,
) -> None:
    for path, (written, error) in report["fill"].items():
        assert error == "ENOSPC", path
        assert DISK_MB * MIB * 0.9 <= written <= DISK_MB * MIB, path
    assert report["fill_on_host"] == [False, False]


def test_what_a_sandbox_left_in_tmp_shm_and_ipc_is_gone_when_it_closes(report: dict) -> None:
    assert report["shmid"] >= 0  # the segment was made, in the sandbox's IPC namespace
    assert report["keep_on_host"] == [False, False] and report["shm_on_host"] is False
    assert report["holders_before"] >= 1
    assert report["holders_after"] == []  # no process left in its mount namespace: the tmpfs
    # mounts went with it
    assert report["keep_later"] == [False, False]  # the next sandbox starts empty


def test_code_cannot_signal_the_server_or_another_session(report: dict) -> None:
    kill = report["kill"]
    for name in ("server", "launcher", "init", "interpreter"):
        assert kill[name] in ("ESRCH", "EPERM"), name
    assert report["targets_alive"] == dict.fromkeys(report["targets"], True)
    assert report["victim_after"] == "still here\n"
    # the code sees its own namespace only: PID 1 (the sandbox's init) and its interpreter
    assert kill["visible"][:2] == [1, 2]
    assert not set(kill["visible"]) & set(report["targets"].values())


def test_code_cannot_write_another_session_s_directory_nor_the_host_s_files(
    report: dict,
) -> None:
    trespass = report["trespass"]
    assert trespass["other_workdir"] == "ENOENT"  # not even visible
    assert os.path.basename(report["own_workdir"]) in trespass["listing"]
    assert len(trespass["listing"]) == 1  # its own directory and nothing else
    for name in ("server_file", "server_dir", "var_tmp"):
        if name in trespass:  # a world-writable file, the server's directory, /var/tmp
            assert trespass[name] in ("EROFS", "ENOENT"), name
    assert report["trespass_on_host"] == dict.fromkeys(report["trespass_on_host"], False)
    assert report["server_file"] == "original"
    assert report["host_dir_files"] == ["server-file"]
    assert report["var_tmp_left"] is False


# -- where no namespace can be made -------------------------------------------------------------

# Run the environment where the kernel refuses new mount namespaces: a user namespace of its own
# (uids mapped to themselves) whose user.max_mnt_namespaces is 0. Needs root.
IN_A_NAMESPACE_WITHOUT_MNTNS = without_namespaces("mnt")

STEP_WITH_AND_WITHOUT_OPT_OUT = """
import logging
from coding_env import CodeAction
from coding_env.server.environment import CodingEnvironment
from openenv.sandbox.isolation import SandboxUnavailable
from openenv.sandbox.sandbox import SandboxLimits
logging.basicConfig()
for allow in (False, True):
    for network in (False, True):
        limits = SandboxLimits(memory_mb=256, network=network, allow_unisolated=allow)
        env = CodingEnvironment(limits)
        env.reset()
        try:
            print("ran:", env.step(CodeAction(code="print(6 * 7)")).stdout.strip())
        except SandboxUnavailable as exc:
            print("refused:", exc, "| steps:", env.state.step_count)
        env.close()
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering a namespace limit needs root")
def test_where_no_namespace_can_be_made_no_code_runs_unless_the_operator_opted_out() -> None:
    result = subprocess.run(
        [sys.executable, "-c", IN_A_NAMESPACE_WITHOUT_MNTNS, STEP_WITH_AND_WITHOUT_OPT_OUT],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4, result.stdout
    for refused in lines[:2]:
        assert refused.startswith("refused: coding_env runs code in namespaces of its own")
        assert "No space left on device" in refused  # the kernel's answer, passed on
        assert "set CODING_ALLOW_UNISOLATED=on" in refused and refused.endswith("| steps: 0")
    assert lines[2:] == ["ran: 42", "ran: 42"]
    assert "CODING_ALLOW_UNISOLATED=on: coding_env runs code without namespaces" in result.stderr


def test_disk_size_and_the_opt_out_are_read_from_the_environment() -> None:
    assert SandboxLimits.from_env({}).disk_mb == 256
    assert SandboxLimits.from_env({"CODING_DISK_MB": "8"}).disk_mb == 8
    assert SandboxLimits.from_env({"CODING_TMP_MB": "8"}).disk_mb == 8  # its older name
    assert SandboxLimits.from_env({}).allow_unisolated is False
    assert SandboxLimits.from_env({"CODING_ALLOW_UNISOLATED": "on"}).allow_unisolated is True
    with pytest.raises(ValueError, match="CODING_ALLOW_UNISOLATED must be 'off'"):
        SandboxLimits.from_env({"CODING_ALLOW_UNISOLATED": "1"})
    with pytest.raises(ValueError, match="disk_mb must be at least 1"):
        SandboxLimits.from_env({"CODING_DISK_MB": "0"})  # tmpfs would read 0 as "no limit"


SPAWN_WITH_FILES_UNISOLATED = """
import time
from openenv.sandbox.sandbox import Sandbox, SandboxLimits
box = Sandbox(SandboxLimits(memory_mb=256, allow_unisolated=True))
workdir = box.prepare()
box.spawn(
    [box.python, "-c", "import shutil; shutil.copy('given.txt', 'seen.txt')"],
    files={"given.txt": b"a connection file"},
)
deadline = time.monotonic() + 60
while box.alive and time.monotonic() < deadline:
    time.sleep(0.05)
print(open(box.host_path("seen.txt")).read())
box.close()
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering a namespace limit needs root")
def test_a_spawned_program_gets_its_files_where_no_namespace_can_be_made() -> None:
    """jupyter_env's kernel reads its connection file at start: without namespaces (a hardened
    container, CODING_ALLOW_UNISOLATED=on) the file must be there too."""
    result = subprocess.run(
        [sys.executable, "-c", IN_A_NAMESPACE_WITHOUT_MNTNS, SPAWN_WITH_FILES_UNISOLATED],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "a connection file"
