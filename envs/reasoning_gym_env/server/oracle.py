"""Reasoning gym's oracle answers with the dataset entry's own answer (privileged state): 1.0.

Random answers ("", "0", "no idea") score 0; canaries send an empty answer, markup that names
the answer's slot, and a stuffed list of numbers hoping one is right.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

STUFFED = " ".join(str(n) for n in range(200))


class ReasoningGymOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 1
    probe_steps = 1

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"answer": str(env._entry["answer"])}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"answer": text} for text in ("", "0", "no idea", "-1")]

    def secrets(self, env: Any) -> list[str]:
        return [str(env._entry["answer"])]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("empty", "an empty answer", {"answer": ""}),
            Canary.repeat("format_hack", "markup naming the answer", {"answer": "<answer/>"}),
            Canary.repeat("stuffed", "every number from 0 to 199 at once", {"answer": STUFFED}),
        ]


ORACLE = ReasoningGymOracle()
