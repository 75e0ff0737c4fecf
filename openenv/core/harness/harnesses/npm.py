"""Harnesses published on npm: a pinned version installed with ``npm install --prefix`` into
``harness_home()/<name>`` (readable by the sandbox's user) and run with the host's Node.

In a container sandbox the install is mounted read-only at the same path. A CLI that is a native
binary (opencode, Claude Code) runs as is, on the image's glibc; a Node script (codex's launcher,
gemini-cli) runs with the host's Node binary, mounted read-only at :data:`CONTAINER_NODE` (the
image's own ``node``, if it has one, is left alone). Before the harness, the container runs its
:meth:`~NpmHarness.probe` (``--version`` of the binary, or of that Node): an image it cannot run
in is refused with what the probe said.
"""

from __future__ import annotations

import copy
import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

from openenv.core.harness.harnesses.base import Harness, HarnessUnavailable, harness_home

NODE = "/usr/bin/node"
CONTAINER_NODE = "/opt/openenv-node/bin/node"  # where a container sees the host's Node
INSTALL_TIMEOUT_S = 900


def node_path() -> str | None:
    """The Node binary harnesses run with (``/usr/bin/node``, else the one on PATH)."""
    return NODE if os.access(NODE, os.X_OK) else shutil.which("node")


class NpmHarness(Harness):
    """A CLI from an npm package, pinned: ``package@version``, its ``bin`` entry run."""

    package = ""
    version = ""
    bin = ""

    def __init__(self, home: Path | None = None) -> None:
        self.prefix = (home or harness_home()) / self.name
        self.in_a_container = False  # set on the copy :meth:`in_container` makes

    @property
    def spec(self) -> str:
        """What ``npm install`` is given."""
        return f"{self.package}@{self.version}"

    @property
    def executable(self) -> Path:
        """The package's ``bin`` link under the install's ``node_modules/.bin``."""
        return self.prefix / "node_modules" / ".bin" / self.bin

    def installed_version(self) -> str | None:
        """The version in the install (None when it is not there)."""
        manifest = self.prefix / "node_modules" / self.package / "package.json"
        try:
            return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
        except (OSError, ValueError):
            return None

    def in_container(self) -> NpmHarness:
        clone = copy.copy(self)
        clone.in_a_container = True
        return clone

    def mounts(self) -> dict[Path, str]:
        found = {self.prefix: str(self.prefix)}
        host = node_path()
        if self.in_a_container and host and self._entry()[1]:
            found[Path(host).resolve()] = CONTAINER_NODE
        return found

    def probe(self) -> list[str]:
        target, script = self._entry()
        return [self._node(), "--version"] if script else [str(target), "--version"]

    def container_needs(self) -> str:
        arch = platform.machine()
        try:
            script = self._entry()[1]
        except HarnessUnavailable:
            return f"a glibc Linux image ({arch}); whether it needs Node shows once installed"
        if script:
            return (
                f"a glibc Linux image ({arch}) with libstdc++: {self.name} is a Node script, run "
                f"with the host's Node ({node_path()}) mounted at {CONTAINER_NODE}"
            )
        return f"a glibc Linux image ({arch}): {self.name} is a native binary"

    def problem(self) -> str | None:
        install = f"run `openenv harbor install {self.name}` (npm's {self.spec})"
        if node_path() is None:
            return f"{self.name} needs Node.js (node): none at {NODE} or on PATH"
        found = self.installed_version()
        if found is None or not self.executable.exists():
            return f"{self.name} is not installed in {self.prefix}: {install}"
        if found != self.version:
            return (
                f"{self.name} {found} is installed in {self.prefix}, this build runs "
                f"{self.version}: {install}"
            )
        return None

    def program(self) -> list[str]:
        """The argv prefix that starts the CLI: a native binary as is, a Node script under the
        host's Node (its ``#!/usr/bin/env node`` would need node on the sandbox's PATH), without
        WebAssembly's trap handler: its 10 GB address-space reservation per instance fails under
        the sandbox's address-space limit (Node's own fetch runs on WebAssembly)."""
        target, script = self._entry()
        if script:
            return [self._node(), "--disable-wasm-trap-handler", str(target)]
        return [str(target)]

    def _entry(self) -> tuple[Path, bool]:
        """The CLI's file and whether it is a Node script (else a native binary)."""
        target = self.executable.resolve()
        try:
            with target.open("rb") as f:
                head = f.read(128)
        except OSError as exc:
            raise HarnessUnavailable(self.problem() or f"{self.name}: {exc}") from exc
        return target, head.startswith(b"#!") and b"node" in head.split(b"\n", 1)[0]

    def _node(self) -> str:
        """The Node that runs a script CLI: the host's, as the sandbox sees it."""
        return CONTAINER_NODE if self.in_a_container else str(node_path() or NODE)

    def install(self) -> Path:
        """``npm install`` the pinned version into the harness's own prefix (umask 022: the
        sandbox's user reads it); idempotent. Packages' install scripts are not run (npm's
        default): each CLI here runs without them."""
        npm = shutil.which("npm")
        if npm is None:
            raise HarnessUnavailable(f"installing {self.name} needs npm (Node.js): none on PATH")
        old = os.umask(0o022)
        try:
            self.prefix.mkdir(parents=True, exist_ok=True)
            argv = [npm, "install", "--prefix", str(self.prefix), "--save-exact"]
            argv += ["--no-audit", "--no-fund", "--no-update-notifier", self.spec]
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False
            )
        finally:
            os.umask(old)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip()[-1500:]
            raise HarnessUnavailable(f"npm install {self.spec} failed: {tail}")
        problem = self.problem()
        if problem:
            raise HarnessUnavailable(f"after npm install {self.spec}: {problem}")
        return self.prefix


def making_dirs(argv: list[str], variables: list[str]) -> list[str]:
    """``argv`` run by ``/bin/sh`` after making the folders the named variables hold (a CLI
    that insists its config folder exists); ``exec`` so the CLI is the process the sandbox
    waits for and stops."""
    made = " ".join(f'"${{{v}}}"' for v in variables)
    return ["/bin/sh", "-c", f'mkdir -p {made} && exec "$@"', argv[0], *argv]
