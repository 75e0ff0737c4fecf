"""Jupyter: a stateful Python notebook, a real IPython kernel per episode, driven by MCP tools.

Tools (the reference's names and arguments):

* ``add_and_execute_code_cell(code)``: run a new cell; variables, imports and files persist.
* ``edit_and_execute_current_cell(code)``: replace the latest code cell and run it again.
* ``execute_shell_command(command)``: a shell command in the kernel's sandbox.
* ``get_notebook_state(include_images=False)``: the last cells and their outputs, as text.
* ``final_answer(answer)``: submit an answer; runs the ``verify`` commands and ends the episode.

Each returns text: stdout, results, ``[Image output: N image(s) generated]``, and on failure
``ERROR:`` with the traceback (the episode goes on). Rich outputs (matplotlib PNGs, pandas
HTML tables) are kept in ``state.cells[i].outputs`` and drawn by ``render()`` as a notebook.

Reset options: ``setup`` (shell commands run in the sandbox right away; if one fails the
episode is over at once, ``metadata["status"] == "error"``) and ``verify`` (shell commands run
by ``final_answer``). Reward: 0.0 per tool call; ``final_answer`` gets the share of verify
commands that exit 0, or the number a verify command wrote to ``logs/verifier/reward.txt`` in
the working directory (``$HOME``), or 0.0 without verify commands; then ``done`` is true.

The kernel starts at the first tool call (or at reset, for ``setup``) in a sandbox of
``openenv.sandbox`` (coding_env's: namespaces, a private working directory, no network unless
``CODING_NETWORK=on``, limits on memory, processes and file size from the ``CODING_*``
variables) and is killed, every process of it, at reset and close. A cell has
``JUPYTER_TIMEOUT_S`` seconds (30 by default) of wall-clock time: then it is interrupted, and
the kernel restarted if that does not stop it.
"""

from __future__ import annotations

import dataclasses
import os
import uuid

from jupyter_env.models import (
    CallToolAction,
    CallToolObservation,
    CommandResult,
    JupyterState,
)
from jupyter_env.server.kernel import Execution, SandboxedKernel
from jupyter_env.server.notebook import Notebook, format_for_llm
from jupyter_env.server.render import notebook_svg
from openenv.core import ActionChoice, Svg, View
from openenv.core.errors import InvalidAction
from openenv.core.mcp import MCPEnvironment, tool
from openenv.sandbox import SandboxLimits

DEFAULT_TIMEOUT_S = 30.0
MAX_CODE_CHARS = 100_000
MAX_COMMANDS = 20
REWARD_FILE = "logs/verifier/reward.txt"
READY = "Jupyter environment ready. Use add_and_execute_code_cell to start."
_SHELL = (
    "import subprocess as _openenv_sp, sys as _openenv_sys\n"
    "_openenv_r = _openenv_sp.run({command!r}, shell=True, capture_output=True, text=True, "
    "errors='replace', timeout={timeout})\n"
    "print(_openenv_r.stdout, end='')\n"
    "print(_openenv_r.stderr, end='', file=_openenv_sys.stderr)\n"
)


def timeout_from_env() -> float:
    """The per-cell wall-clock limit: ``$JUPYTER_TIMEOUT_S`` or 30 s."""
    raw = os.environ.get("JUPYTER_TIMEOUT_S", "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        raise ValueError(f"$JUPYTER_TIMEOUT_S must be a number, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"$JUPYTER_TIMEOUT_S must be positive, got {raw!r}")
    return value


class JupyterEnvironment(MCPEnvironment):
    how_to_play = (
        "Run notebook cells with the tools (Tools tab): code, plots and tables appear on "
        "the stage as in Jupyter."
    )
    CALL_TIMEOUT_S = 240.0  # a kernel start, a cell's limit, an interrupt and a restart

    def __init__(self, limits: SandboxLimits | None = None, timeout_s: float | None = None):
        super().__init__()
        self._limits = limits or SandboxLimits.for_package("jupyter_env")
        self._kernel = SandboxedKernel(self._limits, timeout_s or timeout_from_env())
        self._notebook = Notebook()
        self._state = self._fresh_state(None)

    # -- tools ---------------------------------------------------------------------------

    @tool
    def add_and_execute_code_cell(self, code: str) -> str:
        """Execute Python code in a new cell of the stateful Jupyter notebook.

        Variables, imports and files persist between calls within the episode. Use this as
        the primary tool for all computation.

        Args:
            code: Python code to execute. Can span multiple lines.
        """
        execution = self._kernel.execute(_checked(code, "code"))
        return self._record(self._notebook.add("code", code, execution), execution)

    @tool
    def edit_and_execute_current_cell(self, code: str) -> str:
        """Replace the last code cell with new code and re-execute it.

        Use this to fix an error in the previous cell instead of adding a new one.

        Args:
            code: Replacement Python code for the current cell.
        """
        execution = self._kernel.execute(_checked(code, "code"))
        return self._record(self._notebook.replace_last_code_cell(code, execution), execution)

    @tool
    def execute_shell_command(self, command: str) -> str:
        """Run a shell command inside the notebook's sandbox (ls, cat, python script.py...).

        Args:
            command: Shell command string to execute.
        """
        execution = self._shell(_checked(command, "command"))
        return self._record(self._notebook.add("shell", command, execution), execution)

    @tool
    def get_notebook_state(self, include_images: bool = False) -> str:
        """Return a compact summary of the last executed cells and their outputs.

        Args:
            include_images: If true, include the PNG images as data: URLs (for multimodal
                models); otherwise only note that images were generated.
        """
        return self._notebook.summary(include_images=include_images)

    @tool
    def final_answer(self, answer: str) -> str:
        """Submit your final answer; this ends the episode (and runs the verify commands).

        Args:
            answer: Your final answer as a string.
        """
        answer = _checked(answer, "answer")
        self._state.submitted_answer = answer
        if not self._state.verify_commands:
            self._state.last_reward = 0.0
            return f"Answer submitted: {answer}"
        results = [self._command(c) for c in self._state.verify_commands]
        self._state.verify_results = results
        passed = sum(r.success for r in results)
        reward = self._reward_override()
        self._state.last_reward = reward if reward is not None else passed / len(results)
        return (
            f"Answer submitted: {answer}\nVerification: {passed}/{len(results)} passed; "
            f"reward={self._state.last_reward}"
        )

    # -- the episode ---------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        setup: list[str] | None = None,
        verify: list[str] | None = None,
    ) -> CallToolObservation:
        super().reset(seed=seed, episode_id=episode_id)
        self._kernel.close()
        self._notebook = Notebook()
        self._state = self._fresh_state(episode_id or self._state.episode_id)
        self._state.verify_commands = _commands(verify, "verify")
        setup = _commands(setup, "setup")
        meta: dict = {"status": "ready", "message": READY}
        if setup:
            self._state.setup_results = [self._command(c) for c in setup]
            self._state.sandbox_id = self._kernel.kernel_id
            meta["setup_results"] = [r.model_dump() for r in self._state.setup_results]
            if not all(r.success for r in self._state.setup_results):
                meta.update(status="error", message="Setup command failed.")
                return CallToolObservation(reward=0.0, done=True, metadata=meta)
            meta["message"] += f" Setup commands run: {len(setup)}."
        if self._state.verify_commands:
            meta["message"] += f" Verify commands registered: {len(self._state.verify_commands)}."
            meta["verify_commands"] = self._state.verify_commands
        return CallToolObservation(reward=0.0, metadata=meta)

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        done = action.tool_name == "final_answer" and observation.error is None
        observation.reward = (self._state.last_reward or 0.0) if done else 0.0
        observation.done = done
        observation.metadata = {"step_count": self._state.step_count + 1}
        return observation

    @property
    def state(self) -> JupyterState:
        self._state.cells = list(self._notebook.cells)
        self._state.sandbox_id = self._kernel.kernel_id
        return self._state

    def render(self) -> View | None:
        where = "network on" if self._limits.network else "no network"
        return Svg(notebook_svg(self._notebook.cells, f"Python 3 (ipykernel), sandboxed, {where}"))

    def legal_actions(self) -> list[ActionChoice]:
        """Example cells and a final answer, one button each in the playground (any code and
        any tool call is allowed: the Tools tab and the action form send them)."""
        return [
            ActionChoice("Run: x = 21 * 2; x", _call("x = 21 * 2\nx")),
            ActionChoice("Run: plot a sine wave", _call(_PLOT)),
            ActionChoice("Run: a pandas table", _call(_TABLE)),
            ActionChoice("Run: 1 / 0 (a traceback)", _call("1 / 0")),
            ActionChoice(
                "Submit final answer: 42 (ends the episode)",
                {"type": "call_tool", "tool_name": "final_answer", "arguments": {"answer": "42"}},
            ),
        ]

    def close(self) -> None:
        self._kernel.close()

    # -- helpers ---------------------------------------------------------------------------

    def _fresh_state(self, episode_id: str | None) -> JupyterState:
        return JupyterState(
            episode_id=episode_id or str(uuid.uuid4()), network_access=self._limits.network
        )

    def _record(self, cell, execution: Execution) -> str:
        self._state.last_cell_success = execution.success
        return cell.output

    def _shell(self, command: str) -> Execution:
        timeout = max(1.0, self._kernel.timeout_s - 1.0)
        code = _SHELL.format(command=command, timeout=timeout)
        execution = self._kernel.execute(
            code, store_history=False, user_expressions={"rc": "_openenv_r.returncode"}
        )
        status = execution.user_expressions.get("rc")
        if execution.success and status not in (None, "0"):
            execution = dataclasses.replace(execution, error=f"exit status {status}")
        elif execution.success and status is None:
            execution = dataclasses.replace(execution, error="the command did not finish")
        return execution

    def _command(self, command: str) -> CommandResult:
        execution = self._shell(command)
        return CommandResult(
            command=command,
            output=format_for_llm(execution),
            error=execution.error,
            success=execution.success,
        )

    def _reward_override(self) -> float | None:
        path = f"__import__('pathlib').Path.home() / {REWARD_FILE!r}"
        execution = self._kernel.execute(
            "", store_history=False, user_expressions={"reward": f"float(({path}).read_text())"}
        )
        try:  # absent when the file is missing or holds no number
            return float(execution.user_expressions["reward"])
        except (KeyError, ValueError):
            return None


def _checked(text: str, name: str) -> str:
    if len(text) > MAX_CODE_CHARS:
        raise InvalidAction(f"{name} is {len(text)} characters long; at most {MAX_CODE_CHARS}")
    return text


def _commands(value: list[str] | None, name: str) -> list[str]:
    commands = [c for c in (value or []) if c.strip()]
    if len(commands) > MAX_COMMANDS:
        raise InvalidAction(f"{name}: at most {MAX_COMMANDS} commands, got {len(commands)}")
    return [_checked(c, f"a {name} command") for c in commands]


def _call(code: str) -> dict:
    return {
        "type": "call_tool",
        "tool_name": "add_and_execute_code_cell",
        "arguments": {"code": code},
    }


_PLOT = (
    "import numpy as np\nimport matplotlib.pyplot as plt\n"
    "t = np.linspace(0, 2 * np.pi, 200)\n"
    "plt.figure(figsize=(6, 3))\nplt.plot(t, np.sin(t), label='sin')\n"
    "plt.plot(t, np.cos(t), label='cos')\nplt.legend()\nplt.title('A sine wave')\nplt.show()"
)
_TABLE = (
    "import pandas as pd\n"
    "pd.DataFrame({'city': ['Paris', 'Lagos', 'Lima'], 'population_m': [2.1, 15.4, 10.1],\n"
    "              'hemisphere': ['N', 'N', 'S']})"
)
