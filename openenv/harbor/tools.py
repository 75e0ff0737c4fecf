"""The Harbor server's tool environment: ``run_rollout`` and ``capabilities`` over MCP.

``run_rollout`` takes the reference's arguments (``openenv`` 0.10's ``HarborEnv.run_rollout``
sends all of them) and runs one rollout on the :class:`~openenv.harbor.HarborService`: with
``llm_url`` on that endpoint (probed on first use); without it on this server's endpoint, or,
when the server has none and the task has a solution, on the scripted TEST engine. The result
(JSON the reference's ``HarborRolloutResult`` validates) says which in ``model`` and
``findings``. A request that could never run (unknown split, index, harness or sandbox, an
argument this server does not implement, a full queue) is a tool error saying why; a rollout
that ran and failed is a result with ``ok`` false and the reason.

One call lasts a whole rollout: the session's call timeout (``CALL_TIMEOUT_S``) allows it, and
the call waits on the run in an I/O thread, not a scarce worker.

The white-box way (a trainer that samples each turn itself): ``open_task`` opens a task's
sandbox for this session (:mod:`openenv.harbor.workspace`) and gives its instruction, ``bash``
runs one command there, ``verify_task`` runs the task's verifier and gives the reward (the
step's reward too). One workspace per session, closed when the session ends.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from openenv.core.errors import InvalidAction
from openenv.core.harness.capture.sampling import evaluation_sampling, training_sampling
from openenv.core.harness.capture.sessions import MAX_CALLS
from openenv.core.harness.rollout import SANDBOXES
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    MCPEnvironment,
    tool,
    tool_value,
)
from openenv.harbor.service import HarborService, RunRequest, ServiceError
from openenv.harbor.wire import capabilities, rollout_result, sandbox_status, sandboxes_line
from openenv.harbor.workspace import (
    MAX_COMMAND_CHARS,
    MAX_COMMAND_S,
    MAX_COMMANDS,
    Workspace,
    WorkspaceError,
)

# One rollout call: its wait in the queue, the agent, the verifier ($OPENENV_CALL_TIMEOUT_S)
ROLLOUT_CALL_TIMEOUT_S = 3600.0
Short = Annotated[str, Field(max_length=300)]
Url = Annotated[str, Field(max_length=2048)]
Key = Annotated[str, Field(max_length=4096)]

_DEFAULT: HarborService | None = None
_DEFAULT_LOCK = threading.Lock()


def default_service() -> HarborService:
    """The shipped tasks on the scripted TEST engine (no model endpoint): what the env package
    serves by default, one per process."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            from openenv.core.harness.tasks import load_tasks, shipped_tasks
            from openenv.harbor.endpoints import Endpoints

            _DEFAULT = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
        return _DEFAULT


class HarborEnvironment(MCPEnvironment):
    """One session of the Harbor server: its tools run rollouts on the shared service."""

    CALL_TIMEOUT_S = ROLLOUT_CALL_TIMEOUT_S
    STEP_KIND = "io"  # a call waits on a run; it computes nothing
    CLOSE_ENDS_CALLS = True  # close() cancels the runs its calls wait on: a client that leaves
    how_to_play = (
        "Open a task, pick a model and an agent under Run a task, and press Run: the agent works "
        "on it in a sandbox, the task's verifier gives the reward, and Runs shows every step."
    )

    def __init__(self, service: HarborService | None = None) -> None:
        super().__init__()
        self.service = service if service is not None else default_service()
        self._waiting: set[str] = set()  # runs a call of this session waits on
        self._workspace: Workspace | None = None  # the task this session drives call by call
        self._closed = False
        self._lock = threading.Lock()

    @classmethod
    def factory(cls, service: HarborService) -> Callable[[], HarborEnvironment]:
        """What ``create_app`` calls per session: an environment on ``service``, reset, since
        the reference's client calls ``run_rollout`` without a reset (its sessions start ready)."""

        def started() -> HarborEnvironment:
            env = cls(service)
            env.reset()
            return env

        started.__annotations__["return"] = cls  # create_app learns the class from it
        return started

    @tool
    def run_rollout(
        self,
        split: Short = "",
        task_index: Annotated[int, Field(ge=0)] = 0,
        harness: Short = "mini-swe-agent",
        sandbox: Short = "process",
        reward_key: Short = "",
        keep_sandbox: bool = False,
        force_build: bool = False,
        llm_url: Url = "",
        model: Short = "",
        api_key: Key = "",
        auth_header: Short = "",
        agent_timeout_sec: Annotated[float, Field(ge=0, le=24 * 3600)] = 0.0,
        agent_step_limit: Annotated[int, Field(ge=0, le=MAX_CALLS)] = 0,
        sampling: dict[str, Any] | None = None,
        provider: Short = "openai",
        purpose: Short = "auto",
        eval_sampling: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one Harbor rollout and return its result (reward, turns with token ids).

        Args:
            split: The dataset (default: the server's first).
            task_index: The task's index in the split.
            harness: The agent (capabilities lists them).
            sandbox: Where it runs (capabilities lists them, with why one is not usable).
            reward_key: Which reward is the signal ("" or "reward").
            keep_sandbox: Keep the sandbox after the run (not supported here).
            force_build: Rebuild the task's image (not supported here).
            llm_url: An OpenAI-compatible /v1 URL for this rollout (default: the server's).
            model: The model at llm_url (default: its first).
            api_key: The key of llm_url; used for the run, never kept.
            auth_header: The header of the key (only Authorization here).
            agent_timeout_sec: The agent's time limit (0: the task's).
            agent_step_limit: Cap on the agent's model calls at the proxy (0: none).
            sampling: The trainer's policy ({"temperature": 0.8}, nothing truncated), pinned
                on every model call of the rollout.
            provider: The endpoint's API ("openai" only here).
            purpose: "auto", "train" (fails unless trainable) or "eval".
            eval_sampling: An eval run's sampling (temperature, top_p, top_k), pinned on every
                model call; the run is then eval only.
        """
        _refuse_unsupported(
            keep_sandbox=keep_sandbox,
            force_build=force_build,
            reward_key=reward_key,
            auth_header=auth_header,
            provider=provider,
            purpose=purpose,
        )
        if purpose == "eval" and sampling is not None:
            raise InvalidAction("purpose='eval' cannot apply a training sampling policy")
        if purpose == "train" and eval_sampling is not None:
            raise InvalidAction("purpose='train' cannot apply eval_sampling (its run is eval only)")
        if sampling is not None and eval_sampling is not None:
            raise InvalidAction("give sampling (a training policy) or eval_sampling, not both")
        request = self._request(
            split, task_index, harness, sandbox, llm_url, model, api_key, agent_timeout_sec
        )
        try:
            policy = training_sampling(sampling)
            eval_policy = evaluation_sampling(eval_sampling) if eval_sampling is not None else None
        except ValueError as exc:
            raise InvalidAction(f"sampling: {exc}") from None
        request = request.model_copy(
            update={
                "sampling": policy,
                "eval_sampling": eval_policy,
                "max_calls": agent_step_limit or None,
            }
        )
        with self._lock:
            if self._closed:
                raise InvalidAction("this session is closed")
            try:
                record = self.service.start(request)
            except ServiceError as exc:
                raise InvalidAction(str(exc)) from None
            self._waiting.add(record.id)
        try:
            done = self.service.wait(record.id)
        finally:
            with self._lock:
                self._waiting.discard(record.id)
        result = rollout_result(done)
        if purpose == "train" and result.ok and result.rollout_type != "train":
            result.ok = False
            result.error = "purpose='train' but this rollout's capture is eval only"
            result.exception_type = "not_trainable"
        return result.model_dump(mode="json")

    @tool
    def open_task(
        self,
        split: Short = "",
        task_index: Annotated[int, Field(ge=0)] = 0,
        sandbox: Short = "process",
    ) -> dict[str, Any]:
        """Open a task's sandbox for this session, to drive it call by call with bash and
        verify_task (a trainer that samples each turn itself); closes the one open before.

        Args:
            split: The dataset (default: the server's first).
            task_index: The task's index in the split.
            sandbox: Where its commands run: process or docker.
        """
        split = self._split(split)
        self._close_workspace()
        try:
            workspace = self.service.open_workspace(split, task_index, sandbox)
        except ServiceError as exc:
            raise InvalidAction(str(exc)) from None
        with self._lock:
            if self._closed:  # the session ended while the sandbox started
                workspace.close()
                raise InvalidAction("this session is closed")
            self._workspace = workspace
        task = workspace.task
        return {
            "task_id": f"{split}/{task.name}",
            "instruction": task.instruction,
            "sandbox": sandbox,
            "time_s": task.agent_timeout_s,
            "max_commands": MAX_COMMANDS,
        }

    @tool
    def bash(
        self,
        command: Annotated[str, Field(max_length=MAX_COMMAND_CHARS)],
        timeout_sec: Annotated[float, Field(gt=0, le=MAX_COMMAND_S)] = 60.0,
    ) -> dict[str, Any]:
        """Run a shell command in the open task's working directory (files persist between
        commands): its exit code, whether it ran past its time, the tail of its output.

        Args:
            command: The command, run with bash.
            timeout_sec: Its time limit.
        """
        try:
            return self._open_workspace().bash(command, timeout_sec)
        except WorkspaceError as exc:
            raise InvalidAction(str(exc)) from None

    @tool
    def verify_task(self) -> dict[str, Any]:
        """Run the open task's verifier in its sandbox and close it: the reward (None when the
        verifier gave none) and what the verifier printed."""
        workspace = self._open_workspace()
        try:
            return workspace.verify()
        except WorkspaceError as exc:
            raise InvalidAction(str(exc)) from None
        finally:
            with self._lock:
                if self._workspace is workspace:
                    self._workspace = None

    def _split(self, split: str) -> str:
        """``split``, or the server's first when none is given."""
        if split:
            return split
        names = [s["name"] for s in self.service.splits()]
        if not names:
            raise InvalidAction("this server serves no splits")
        return str(names[0])

    def _open_workspace(self) -> Workspace:
        workspace = self._workspace
        if workspace is None or workspace.closed:
            raise InvalidAction("no task is open in this session: call open_task first")
        return workspace

    def _close_workspace(self) -> None:
        with self._lock:
            workspace, self._workspace = self._workspace, None
        if workspace is not None:
            workspace.close()

    @tool
    def capabilities(self) -> dict[str, Any]:
        """Harnesses, sandboxes, datasets and LLM status of this server."""
        return capabilities(self.service)

    def close(self) -> None:
        """The session ended (its client left, or its call ran past the limit): the runs its
        calls were waiting on are cancelled, their sandboxes closed."""
        with self._lock:
            self._closed = True
            waiting, self._waiting = list(self._waiting), set()
        self._close_workspace()
        for run_id in waiting:
            with contextlib.suppress(ServiceError):
                self.service.cancel(run_id)

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        """A rollout, or a task's verification, stepped through ``step`` carries its reward
        (0.0 for anything else)."""
        data = tool_value(observation.result) if observation.error is None else None
        reward = data.get("reward") if isinstance(data, dict) else None
        scored = action.tool_name in ("run_rollout", "verify_task")
        observation.reward = float(reward) if scored and reward else 0.0
        return observation

    def _request(
        self,
        split: str,
        index: int,
        harness: str,
        sandbox: str,
        llm_url: str,
        model: str,
        api_key: str,
        timeout_s: float,
    ) -> RunRequest:
        split = self._split(split)
        if sandbox not in SANDBOXES:
            raise InvalidAction(
                f"sandbox {sandbox!r} is not available on this server; its sandboxes: "
                f"{sandboxes_line(sandbox_status())}"
            )
        try:
            task = self.service.task(split, index)
        except ServiceError as exc:
            raise InvalidAction(str(exc)) from None
        fields: dict[str, Any] = {
            "split": split,
            "task_index": index,
            "harness": harness,
            "sandbox": sandbox,
            "timeout_s": timeout_s or None,
            "owner": self.session_owner,  # the run is this session's client's
        }
        if llm_url:
            if not llm_url.startswith(("http://", "https://")):
                raise InvalidAction(f"llm_url must be an http(s) URL, got {llm_url[:100]!r}")
            if not self.service.endpoints.allow_urls:
                raise InvalidAction(
                    "this server runs rollouts on its own endpoint only: llm_url is not allowed "
                    "here (its operator can allow it: openenv harbor serve --own-urls)"
                )
            return RunRequest(
                **fields, model="url", url=llm_url, model_name=model or None, api_key=api_key
            )
        if api_key:
            raise InvalidAction("api_key is the key of llm_url: give llm_url with it")
        server = self.service.endpoints.server
        if server is not None:
            if model and model != server.model:
                raise InvalidAction(
                    f"this server's endpoint serves {server.model!r}, not {model!r}: "
                    "give llm_url to use another model"
                )
            return RunRequest(**fields, model="server")
        if model:
            raise InvalidAction(f"model {model!r} needs llm_url: this server has no endpoint")
        if not (task.path / "solution" / "solve.sh").is_file():
            raise InvalidAction(
                f"this server has no model endpoint (started without --llm-url) and task "
                f"{task.name} has no solution for the TEST engine to replay: give llm_url"
            )
        return RunRequest(**fields, model="test")


def _refuse_unsupported(**given: Any) -> None:
    """Arguments of the reference this server does not implement: refused, never ignored."""
    problems = []
    if given["keep_sandbox"]:
        problems.append("keep_sandbox=True (sandboxes are closed after each rollout)")
    if given["force_build"]:
        problems.append("force_build=True (this server builds no task images)")
    if given["reward_key"] not in ("", "reward"):
        problems.append(f"reward_key={given['reward_key']!r} (tasks here give one 'reward')")
    if given["auth_header"] not in ("", "Authorization"):
        problems.append(f"auth_header={given['auth_header']!r} (only Authorization: Bearer)")
    if given["provider"] != "openai":
        problems.append(f"provider={given['provider']!r} (OpenAI-compatible endpoints only)")
    if given["purpose"] not in ("auto", "train", "eval"):
        problems.append(f"purpose={given['purpose']!r} (auto, train or eval)")
    if problems:
        raise InvalidAction("not supported by this server: " + "; ".join(problems))
