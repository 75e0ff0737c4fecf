"""The Harbor environment: the tools ``run_rollout`` and ``capabilities`` of
:mod:`openenv.harbor.tools`, on the shipped tasks and the scripted TEST engine by default (no
model endpoint: each rollout replays its task's own solution, so the env runs offline).

``openenv harbor serve`` serves other datasets and a model endpoint with the same tools.
"""

from __future__ import annotations

from openenv.harbor.tools import HarborEnvironment as _Tools


class HarborEnvironment(_Tools):
    """One session: run a coding agent on a Harbor task, get the verifier's reward and the
    captured calls (``run_rollout``); see what this server can run (``capabilities``)."""
