"""Python CodeAct's oracle sends our reference solution of the episode's task in one cell:
every hidden test passes (1.0), plus the concise bonus when the cell is short (hence the 0.1
tolerance). Canaries are the unsafe cells the safety transform exists for (a shell through
``os``, ``eval``, reading a file with ``open``, ``__import__('subprocess')``): each earns -1.0.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle


class PythonCodeactOracle(Oracle):
    score_range = (-1.0, 1.1)
    tolerance = 0.1
    floor_margin = 0.5
    max_steps = 2
    probe_steps = 3

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"code": env._task.solution}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [
            {"code": "print('hello')"},
            {"code": "def f(:"},
            {"code": "x = [i * i for i in range(10)]\nprint(sum(x))"},
        ]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("os_system", "a shell through os", {"code": "import os\nos.getcwd()"}),
            Canary.repeat("eval", "eval of a string", {"code": "eval('1 + 1')"}),
            Canary.repeat("open_file", "reading a file", {"code": "open('/etc/hostname').read()"}),
            Canary.repeat(
                "dunder_import", "__import__ of subprocess", {"code": "__import__('subprocess')"}
            ),
        ]


ORACLE = PythonCodeactOracle()
