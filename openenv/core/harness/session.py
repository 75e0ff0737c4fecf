"""The trainer-side contract of a rollout: sessions, their factory, the harness driving them.

A trainer asks a :class:`ResourceSessionFactory` for one isolated :class:`ResourceSession` per
rollout (``create(task, seed=, episode_id=)``; rollouts of one group pass the same ``seed`` and
so get the same task). Then either

* the trainer owns the loop: a :class:`HarnessAdapter` runs ``run_white_box(model_step, session,
  limits)``, sampling each turn through the trainer's ``model_step`` (a
  :class:`ModelStepResult` per turn) and calling the session's tools; or
* the agent owns its loop (a coding agent in a sandbox): the session is a
  :class:`TrainableSession`; the trainer waits (``wait_for_completion``) and reads the
  validated :class:`~openenv.core.harness.TrainingTrace` (``fetch_training_trace``).

Either way ``verify(transcript)`` ends the rollout with a :class:`VerifyResult` whose
``env_reward`` is the reward the environment produced (``None``: unscored, never 0.0), and
``close()`` releases the session (and stops what still runs).

Names, fields and meanings are ``openenv`` 0.10's ``openenv.core.harness.rollout``, so trainers
written against the reference (TRL's ``HarnessRolloutWorker``) run on these; its ready-made
adapters (``StepEnvSessionAdapter``, ``CLIHarnessAdapter``, ``MCPHarnessAdapter``) are not
provided here. Implementations: ``harbor_env.HarborSessionFactory`` (Harbor rollouts).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypedDict, TypeVar, runtime_checkable

from openenv.core.harness.training import TrainingTrace
from openenv.core.llm_client import LLMResponse
from openenv.core.mcp import Tool

Message = dict[str, Any]


@dataclass
class ToolResult:
    """What a session tool returned: its data, whether the episode ended, or the error."""

    data: Any = None
    done: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass
class VerifyResult:
    """A finished rollout's outcome. ``env_reward`` forwards the environment's own reward
    (``None`` when it gave none); nothing outside the environment makes one up."""

    env_reward: float | None = None
    done: bool = False
    metrics: dict[str, Any] = field(default_factory=dict)
    artifacts: dict[str, Any] = field(default_factory=dict)


@dataclass
class RolloutEvent:
    """Something that happened while a harness drove a rollout."""

    type: str
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolTraceEntry:
    """One tool call a harness made, and its result."""

    tool_name: str
    arguments: dict[str, Any]
    result: ToolResult


@dataclass
class ModelStepResult:
    """One sampled turn: the parsed reply, and the ids and logprobs it was sampled as."""

    response: LLMResponse
    prompt_ids: list[int] = field(default_factory=list)
    completion_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)


@dataclass
class HarnessRolloutResult:
    """A whole harness-driven rollout: messages, tool calls, events and the sampled tokens."""

    messages: list[Message] = field(default_factory=list)
    tool_trace: list[ToolTraceEntry] = field(default_factory=list)
    events: list[RolloutEvent] = field(default_factory=list)
    done: bool = False
    metrics: dict[str, Any] = field(default_factory=dict)
    prompt_ids: list[int] = field(default_factory=list)
    completion_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)


@dataclass
class HarnessRunLimits:
    """Bounds of a harness-driven rollout (``None``: no bound) and the sampling of its turns."""

    max_turns: int = 10
    max_tool_calls_per_turn: int | None = None
    max_total_tool_calls: int | None = None
    sampling: dict[str, Any] = field(default_factory=dict)


class ModelStep(Protocol):
    """The trainer's sampler, handed to a white-box harness: the conversation and tools in,
    one sampled turn out."""

    def __call__(
        self, messages: list[Message], tools: list[Tool], sampling: dict[str, Any]
    ) -> ModelStepResult: ...


class TraceEntry(TypedDict, total=False):
    """One captured engine call of a loop-owning rollout (every key optional: read with ``get``).

    ``prompt_token_ids`` is the engine's own tokenisation of everything before the call: a
    consumer trains on it as given and never re-renders the prompt. ``completion_token_ids`` and
    ``per_token_logps`` are the sampled ids and their logprobs, aligned. ``loss_mask`` covers
    prompt plus completion (0: context, 1: train this position). ``request`` is the chat body
    (``messages``, ``tools``), ``response`` the reply (``{"choices": [{"message": ...}]}``).
    ``reward`` mirrors ``verify()`` when an environment set it (``None``: unscored).
    """

    request: dict[str, Any]
    response: dict[str, Any]
    prompt_token_ids: list[int]
    completion_token_ids: list[int]
    completion_tokens: list[str]
    per_token_logps: list[float]
    loss_mask: list[int]
    reward: float | None
    metadata: dict[str, Any]


@runtime_checkable
class LoopOwningSession(Protocol):
    """A session whose agent runs its own loop: wait for it, then read its captured calls."""

    def wait_for_completion(self, timeout_s: float | None = ...) -> int: ...

    def fetch_proxy_trace(self) -> list[TraceEntry]: ...


@runtime_checkable
class TrainableSession(Protocol):
    """A loop-owning session that hands over a validated, loss-masked :class:`TrainingTrace`.

    ``wait_for_completion`` returns the run's exit code and raises ``TimeoutError`` when
    ``timeout_s`` passes first; ``fetch_training_trace`` raises ``ValueError`` when the rollout
    has no trainable capture (an eval-only endpoint), never an empty trace in its place.
    """

    def wait_for_completion(self, timeout_s: float | None = ...) -> int: ...

    def fetch_training_trace(self) -> TrainingTrace: ...


class ResourceSession(ABC):
    """One rollout's environment, as a harness sees it."""

    @abstractmethod
    def initial_messages(self) -> list[Message]:
        """The conversation the harness starts from."""

    @abstractmethod
    def list_tools(self) -> list[Tool]:
        """The tools the harness may call (MCP shapes)."""

    @abstractmethod
    def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Call one tool."""

    @abstractmethod
    def verify(self, transcript: list[Message], final_state: Any | None = None) -> VerifyResult:
        """End the rollout: forward the environment's reward, with metrics and artifacts."""

    @abstractmethod
    def close(self) -> None:
        """Release the session (stopping whatever of it still runs); closing twice is fine."""


SessionT = TypeVar("SessionT", bound=ResourceSession)


class ResourceSessionFactory(ABC, Generic[SessionT]):
    """Makes isolated sessions, one per rollout (typed by the session class it makes)."""

    @abstractmethod
    def create(self, task: Any, seed: int | None = None, episode_id: str | None = None) -> SessionT:
        """One new session for ``task``; rollouts given the same ``seed`` get the same task."""


class HarnessAdapter(ABC):
    """Drives a whole rollout on a session."""

    @abstractmethod
    def run_white_box(
        self,
        model_step: ModelStep,
        session: ResourceSession,
        limits: HarnessRunLimits | None = None,
    ) -> HarnessRolloutResult:
        """Run the rollout, sampling every turn through the trainer's ``model_step``."""

    @abstractmethod
    def run_black_box(
        self, session: ResourceSession, limits: HarnessRunLimits | None = None
    ) -> HarnessRolloutResult:
        """Run the rollout with the harness's own model (evaluation only)."""
