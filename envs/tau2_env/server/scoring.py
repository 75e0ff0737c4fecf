"""τ²-bench's evaluation of a finished conversation, component by component.

A task's ``evaluation_criteria.reward_basis`` names what counts:

- ``DB``: the task's reference actions are replayed on a fresh copy of the shipped database;
  1.0 when the agent's final database equals that one (every table, every record), else 0.0;
- ``COMMUNICATE``: 1.0 when every ``communicate_info`` string appears in what the agent said to
  the customer (case and thousands separators ignored, as τ²-bench does), else 0.0;
- ``ACTION``: 1.0 when every reference action was called by the agent with the same arguments;
- ``NL_ASSERTION``: each natural-language assertion judged by a language model (the operator's
  ``judge`` endpoint, :func:`openenv.core.llm.llm_endpoint`); with none configured the
  component is *not judged* and says so, it is never guessed.

The reward is the product of the judged components of the basis (τ²-bench multiplies them):
1.0 only when everything that counts is right.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from openenv.core.llm import NOT_CONFIGURED, LLMEndpoint, LLMUnavailable
from tau2_env.server.domains import CowDB, Domain, same_state

COMPONENT_NAMES = {
    "DB": "database",
    "COMMUNICATE": "communicated",
    "ACTION": "actions",
    "NL_ASSERTION": "nl_assertions",
}


@dataclass
class Verdict:
    """Scores of the judged components, the reward, and why anything was not judged."""

    components: dict[str, float] = field(default_factory=dict)
    not_judged: dict[str, str] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def reward(self) -> float:
        total = 1.0
        for score in self.components.values():
            total *= score
        return total


def expected_db(domain: Domain, task: dict[str, Any]) -> CowDB:
    """The database after the task's reference actions (refusals are part of the reference)."""
    db = domain.new_db()
    for action in task["evaluation_criteria"].get("actions") or []:
        if action.get("requestor", "assistant") == "assistant":
            domain.run(db, action["name"], dict(action.get("arguments") or {}))
    return db


def _normalise(text: str) -> str:
    return text.lower().replace(",", "")


def evaluate(
    domain: Domain,
    task: dict[str, Any],
    db: CowDB,
    agent_messages: list[str],
    tool_calls: list[tuple[str, dict[str, Any]]],
    transcript: list[dict[str, str]],
    judge: LLMEndpoint | None,
) -> Verdict:
    """Score a finished conversation by the task's reward basis."""
    criteria = task["evaluation_criteria"]
    verdict = Verdict()
    for basis in criteria.get("reward_basis") or ["DB"]:
        name = COMPONENT_NAMES.get(basis, basis.lower())
        if basis == "DB":
            verdict.components[name] = 1.0 if same_state(db, expected_db(domain, task)) else 0.0
        elif basis == "COMMUNICATE":
            said = _normalise(" ".join(agent_messages))
            wanted = [str(info) for info in criteria.get("communicate_info") or []]
            missing = [info for info in wanted if _normalise(info) not in said]
            verdict.components[name] = 0.0 if missing else 1.0
            if missing:
                verdict.details["not_communicated"] = missing
        elif basis == "ACTION":
            calls = [(n, _canon(a)) for n, a in tool_calls]
            wanted = criteria.get("actions") or []
            missed = [a["name"] for a in wanted if (a["name"], _canon(a["arguments"])) not in calls]
            verdict.components[name] = 0.0 if missed else 1.0
        elif basis == "NL_ASSERTION":
            assertions = [str(a) for a in criteria.get("nl_assertions") or []]
            if not assertions:
                verdict.components[name] = 1.0
            elif judge is None:
                verdict.not_judged[name] = NOT_CONFIGURED + " (role judge)"
            else:
                try:
                    verdict.components[name] = judge_assertions(judge, assertions, transcript)
                except LLMUnavailable as exc:
                    verdict.not_judged[name] = f"the judge could not be reached: {exc}"
    return verdict


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


JUDGE_PROMPT = (
    "You grade a customer-service conversation. For each numbered assertion about the agent, "
    "answer on its own line `<number>: yes` if the conversation satisfies it, else "
    "`<number>: no`. Answer nothing else."
)


def judge_assertions(
    judge: LLMEndpoint, assertions: list[str], transcript: list[dict[str, str]]
) -> float:
    """1.0 when the judge says every assertion holds, else 0.0 (τ²-bench's all-or-nothing)."""
    lines = [f"{m['role']}: {m['content']}" for m in transcript if m["role"] != "tool"]
    listed = "\n".join(f"{i + 1}. {a}" for i, a in enumerate(assertions))
    prompt = "Conversation:\n" + "\n".join(lines)[-30_000:] + "\n\nAssertions:\n" + listed
    reply = judge.complete(prompt, system=JUDGE_PROMPT, max_tokens=200)
    answers = dict(re.findall(r"(\d+)\s*[:.)-]\s*(yes|no)", reply.lower()))
    if len(answers) < len(assertions):
        raise LLMUnavailable(f"the judge's answer does not grade every assertion: {reply[:200]!r}")
    return 1.0 if all(answers.get(str(i + 1)) == "yes" for i in range(len(assertions))) else 0.0
