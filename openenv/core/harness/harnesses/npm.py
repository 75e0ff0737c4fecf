"""Harnesses published on npm: a pinned version installed with ``npm install --prefix`` into
``harness_home()/<name>`` (readable by the sandbox's user) and run with the host's Node."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from openenv.core.harness.harnesses.base import Harness, HarnessUnavailable, harness_home

NODE = "/usr/bin/node"
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

    def mounts(self) -> list[Path]:
        return [self.prefix]

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
        target = self.executable.resolve()
        try:
            with target.open("rb") as f:
                head = f.read(128)
        except OSError as exc:
            raise HarnessUnavailable(self.problem() or f"{self.name}: {exc}") from exc
        if head.startswith(b"#!") and b"node" in head.split(b"\n", 1)[0]:
            return [str(node_path() or NODE), "--disable-wasm-trap-handler", str(target)]
        return [str(target)]

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
