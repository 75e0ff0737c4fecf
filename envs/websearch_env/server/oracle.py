"""Web search's oracle answers with the question's first accepted answer (privileged state): 1.0.

Random searches leave the reward at 0; the canaries answer with nothing, with every accepted
answer of every question at once, and with the question itself.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle
from websearch_env.server.environment import questions


class WebSearchOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 1
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.answer is not None:
            return None
        return {"answer": env._question["answers"][0]}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"query": q} for q in ("capital city", "highest mountain", "Nobel Prize")]

    def canaries(self) -> list[Canary]:
        everything = " ".join(a for q in questions() for a in q["answers"])[:300]
        return [
            Canary.repeat("empty", "an answer of spaces", {"answer": " "}),
            Canary.repeat("stuffed", "every accepted answer at once", {"answer": everything}),
            Canary.repeat("echo", "the question as the answer", {"answer": "what is it"}),
        ]


ORACLE = WebSearchOracle()
