"""Typed client of the τ²-bench server."""

from __future__ import annotations

from openenv.client import EnvClient
from tau2_env.models import Tau2Action, Tau2Observation, Tau2State


class Tau2Env(EnvClient[Tau2Action, Tau2Observation, Tau2State]):
    """``async with Tau2Env(base_url=...) as env`` or ``Tau2Env(...).sync()``.

    ``reset(domain="retail", task_id="0", seat="agent", user="scripted")`` starts a call;
    ``step(Tau2Action(tool_name="send_message", arguments={"content": ...}))`` talks to the
    customer (``observation.customer_said`` is the answer) and any other ``tool_name`` runs one
    of the domain's tools. The last step (``done``) carries the reward and
    ``metadata["reward_components"]``.
    """
