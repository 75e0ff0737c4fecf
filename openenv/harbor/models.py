"""The Harbor server's wire types, shared by the server and the ``harbor_env`` client.

Field names and shapes follow ``openenv`` 0.10's ``openenv.harbor.models``, so its
``HarborEnv`` client validates what our ``run_rollout`` returns and ours reads what its
server would: :class:`HarborTaskRef` is one task of the Task API; :class:`HarborRolloutResult`
one rollout (the reward, and per model call the engine's token ids and logprobs). Beyond the
reference, a result says which run it was (``run_id``, ``status``) and which model played it
(``model``: this server's endpoint, a URL given with the call, or the scripted TEST engine).

Pure pydantic: nothing here imports the server.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class HarborTaskRef(BaseModel):
    """One task as the Task API lists it."""

    index: int
    task_id: str
    task_name: str
    dataset: str = ""
    instruction: str = ""


class HarborTurn(BaseModel):
    """One model call of the agent: the engine's ids and logprobs, and what it said."""

    turn: int
    role: str = "agent"
    finish_reason: str | None = None
    prompt_token_ids: list[int] = Field(default_factory=list)
    completion_token_ids: list[int] = Field(default_factory=list)
    per_token_logps: list[float] = Field(default_factory=list)
    loss_mask: list[int] | None = None
    node_id: str = ""
    n_tools: int = 0
    discarded: bool = False
    trainable: bool = True
    sampling_params: dict[str, Any] = Field(default_factory=dict)
    requested_sampling_params: dict[str, Any] = Field(default_factory=dict)
    text: str = ""
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    request_messages: list[dict[str, Any]] = Field(default_factory=list)
    request_tools: list[dict[str, Any]] | None = None


class HarborConversation(BaseModel):
    """One conversation of the rollout (a root of the capture graph), messages in order."""

    root_id: str = ""
    role: str = "agent"
    n_turns: int = 0
    messages: list[dict[str, Any]] = Field(default_factory=list)


class HarborStepResult(BaseModel):
    """One step of a multi-step task."""

    name: str = ""
    rewards: dict[str, float] = Field(default_factory=dict)
    passed: bool = True


class HarborRolloutResult(BaseModel):
    """Everything one rollout gave: a failed rollout is a result too (``ok`` false, ``error``)."""

    task_id: str = ""
    task_name: str = ""
    dataset: str = ""
    harness: str = ""
    sandbox: str = ""
    trial_name: str = ""
    session_id: str = ""

    reward: float | None = None
    rewards: dict[str, float] = Field(default_factory=dict)
    reward_key: str = ""
    step_results: list[HarborStepResult] = Field(default_factory=list)

    rollout_type: str = "train"
    capture_level: str = "tokens"
    param_fixes: list[str] = Field(default_factory=list)

    turns: list[HarborTurn] = Field(default_factory=list)
    conversations: list[HarborConversation] = Field(default_factory=list)
    n_turns: int = 0
    n_roots: int = 0
    budget_stop_count: int = 0
    n_trainable_tokens: int = 0
    multi_turn: bool = False
    atif: str = "none"
    trace_source: str = ""
    findings: list[str] = Field(default_factory=list)

    wall_s: float = 0.0
    phase_timings: dict[str, float] = Field(default_factory=dict)
    agent_log_tail: str = ""

    ok: bool = True
    error: str | None = None
    exception_type: str | None = None

    # ours: which run this was and what played the model
    run_id: str = ""
    status: str = ""
    model: dict[str, Any] = Field(default_factory=dict)
    verifier_output: str = ""

    @property
    def trainable(self) -> bool:
        """Whether the turns carry the engine's ids and processed logprobs."""
        return self.rollout_type == "train"

    @property
    def timed_out(self) -> bool:
        """The agent ran past its time (Harbor's ``AgentTimeoutError``): its captured turns
        still train, the verifier judged what it left."""
        return self.exception_type == "AgentTimeoutError"

    @property
    def solved(self) -> bool:
        """Verified and positive (``reward`` None: the verifier never ran)."""
        return self.reward is not None and self.reward > 0
