"""What the sandbox's Python has: code an agent sends runs on it, not on the test process's.

As root the sandbox runs an interpreter other users can read (Debian's ``python3`` here, since
pyenv's lives under ``/root``); otherwise the server's own. Envs whose submissions need packages
(kernrl_env: torch and triton) are tested only where that interpreter has them.
"""

from __future__ import annotations

import subprocess

from openenv.sandbox.isolation import SandboxUnavailable, sandbox_python


def sandbox_python_has(*modules: str) -> bool:
    """True when the sandbox's interpreter finds every one of ``modules`` (none imported)."""
    try:
        python = sandbox_python()
    except SandboxUnavailable:
        return False
    check = (
        "import importlib.util as u, sys; "
        f"sys.exit(any(u.find_spec(m) is None for m in {modules!r}))"
    )
    done = subprocess.run([python, "-I", "-c", check], capture_output=True, timeout=60)
    return done.returncode == 0
