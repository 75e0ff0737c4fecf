"""Reasoning Core's oracle answers with the generated entry's own answer (privileged state): 1.0.

Wrong answers ("", "0", "no idea") score 0 on arithmetic; canaries send an empty answer, markup
naming the answer's slot, and every number from -200 to 200 at once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from openenv.validation.oracle import Canary, Oracle

STUFFED = " ".join(str(n) for n in range(-200, 201))


class ReasoningCoreOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 1
    probe_steps = 1
    reset_options: ClassVar[dict[str, Any]] = {"task": "arithmetics"}

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"answer": env._question["answer"]}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"answer": text} for text in ("", "no idea", "1234567", "-98765")]

    def secrets(self, env: Any) -> list[str]:
        answer = env._question["answer"]
        return [answer] if len(answer) >= 4 else []  # a short answer appears by chance

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("empty", "an empty answer", {"answer": ""}),
            Canary.repeat("format_hack", "markup naming the answer", {"answer": "<answer/>"}),
            Canary.repeat("stuffed", "every number from -200 to 200 at once", {"answer": STUFFED}),
        ]


ORACLE = ReasoningCoreOracle()
