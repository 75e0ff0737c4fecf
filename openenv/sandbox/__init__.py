"""Per-session sandboxes for code an agent or a visitor sends: a persistent Python process in
namespaces of its own, under resource limits (see :mod:`openenv.sandbox.sandbox`), or another
long-lived program started the same way (``Sandbox.spawn``: jupyter_env's kernels). One
mechanism for every env that runs untrusted code (``coding_env``, ``repl_env``,
``jupyter_env``)."""

from openenv.sandbox.isolation import SandboxUnavailable
from openenv.sandbox.sandbox import Sandbox, SandboxLimits

__all__ = ["Sandbox", "SandboxLimits", "SandboxUnavailable"]
