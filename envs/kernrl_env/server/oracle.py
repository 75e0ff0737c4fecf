"""KernRL's oracle sends our reference Triton kernel of the episode's task (really run through
Triton's interpreter in the sandbox): correct, and far faster than the naive baseline kernel
(one program over the whole block instead of many small ones), so 1.0. Canaries must earn 0: an
empty file, the task's starter template (a kernel with a TODO: wrong output), a ``solve`` that
computes the op with PyTorch and launches no kernel, and a kernel with a syntax error.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

TORCH_SHORTCUT = """import torch


def solve(*inputs):
    return inputs[0] * 1.0
"""


class KernrlOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.1
    floor_margin = 0.5
    max_steps = 1
    probe_steps = 2
    wall_clock_fields = ("kernel_ms", "baseline_ms", "torch_ms", "speedup", "message")

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"source": env._task.solution}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"source": env._task.starter}, {"source": "def solve(:"}]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("empty", "an empty source", {"source": ""}),
            Canary("starter", "the starter template as is", _starter),
            Canary.repeat("torch_shortcut", "solve with PyTorch", {"source": TORCH_SHORTCUT}),
            Canary.repeat(
                "syntax_error", "a kernel that does not parse", {"source": "def solve(:"}
            ),
        ]


def _starter(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    return {"source": env._task.starter} if step < 1 else None


ORACLE = KernrlOracle()
