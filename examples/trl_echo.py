"""Train a model to call the tools of an OpenEnv tool (MCP) server with TRL's GRPOTrainer.

    python examples/trl_echo.py                                # tiny model, env served here
    python examples/trl_echo.py --base-url http://localhost:8000 --max-steps 20
    python examples/trl_echo.py --model Qwen/Qwen3-0.6B --base-url URL

Each rollout gets its own session of the echo server; the server's two tools (``echo_message``,
``echo_with_length``) are methods the model calls, each call one ``step`` of the episode. The
environment owns the reward: ``get_reward`` returns the sum of what the server gave the calls.
Echo gives 0.0 to every call (its documented contract), so here every advantage is zero and the
run shows the wiring rather than learning: a tool environment that scores its calls
(``score_tool_call``) trains through exactly this code. See ``trl_common.py`` for the options.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from echo_env import CallToolAction, EchoEnv
from trl_common import Calls, Demo, Sessions, env_server, parse_args, report, tool_call, train

PHRASES = [
    "Hello World!",
    "Goodbye World!",
    "TRL is great!",
    "OpenEnv speaks WebSocket.",
    "One session per rollout.",
    "The env owns the reward.",
    "Tiny models learn fast.",
    "Echo this back to me.",
]


class EchoTools:
    """One echo session for one rollout: ``reset``, one method per server tool, ``get_reward``."""

    def __init__(self, base_url: str) -> None:
        self.client = EchoEnv(base_url=base_url)
        self.calls = Calls()
        self.reward = 0.0

    def reset(self, **_: Any) -> None:
        with self.calls.timed():
            self.client.reset()
        self.calls.resets += 1
        self.reward = 0.0

    def echo_message(self, message: str) -> str:
        """Send a message to the echo server and get it back.

        Args:
            message: The text to echo.

        Returns:
            The text the server sent back.
        """
        return str(self._call("echo_message", message))

    def echo_with_length(self, message: str) -> dict:
        """Send a message to the echo server and get it back with its length.

        Args:
            message: The text to echo.

        Returns:
            The message and its length in characters.
        """
        return self._call("echo_with_length", message)

    def get_reward(self) -> float:
        """The sum of the rewards the server gave in this episode."""
        return self.reward

    def _call(self, tool: str, message: str) -> Any:
        with self.calls.timed():
            result = self.client.step(
                CallToolAction(tool_name=tool, arguments={"message": message})
            )
        self.calls.steps += 1
        self.reward += result.reward or 0.0
        if result.observation.error is not None:
            raise ValueError(result.observation.error.message)
        return result.observation.result["data"]


def ask(phrase: str) -> str:
    return f"Use a tool to make the server echo {phrase!r}."


def demos() -> list[Demo]:
    """Warm-up conversations: a request, then the matching tool call."""
    out = []
    for i, phrase in enumerate(PHRASES * 4):
        tool = "echo_with_length" if i % 4 == 3 else "echo_message"
        user = {"role": "user", "content": ask(phrase)}
        out.append(Demo([user, tool_call(tool, message=phrase)]))
    return out


def make_app() -> Any:
    from echo_env.server.environment import EchoEnvironment

    from openenv.server import create_app

    return create_app(EchoEnvironment, enable_web=False)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(__doc__.splitlines()[0], argv)
    rows = [{"prompt": [{"role": "user", "content": ask(p)}]} for p in PHRASES * 32]
    tools = [EchoTools.echo_message, EchoTools.echo_with_length]
    with env_server(args.base_url, make_app) as url:
        sessions = Sessions(EchoTools, url)
        try:
            trainer = train(args, sessions, rows, tools, demos, corpus=PHRASES)
        finally:
            sessions.close()
        return report(trainer, sessions)


if __name__ == "__main__":
    main()
