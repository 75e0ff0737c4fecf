"""Claude Code (npm ``@anthropic-ai/claude-code``): ``claude -p``, non-interactive, against the
capture proxy's Anthropic Messages route."""

from __future__ import annotations

from openenv.core.harness.harnesses.base import (
    DEFAULT_STEP_LIMIT,
    HarnessCommand,
    check_instruction,
)
from openenv.core.harness.harnesses.npm import NpmHarness

CONFIG_DIR = "/tmp/openenv-claude"  # the sandbox's private /tmp


def anthropic_base(base_url: str) -> str:
    """The proxy's root: Anthropic's client adds ``/v1/messages`` itself."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


class ClaudeCode(NpmHarness):
    """``claude -p --dangerously-skip-permissions`` (every tool allowed: the rollout's sandbox
    holds it), its key the session id, all its models the one given, updates, telemetry, error
    reports and other traffic off, no session saved."""

    name = "claude-code"
    dialect = "messages"
    package = "@anthropic-ai/claude-code"
    version = "2.1.332"
    bin = "claude"

    def __init__(self, step_limit: int = DEFAULT_STEP_LIMIT, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.step_limit = step_limit

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        check_instruction(self.name, instruction)
        argv = [*self.program(), "-p", "--dangerously-skip-permissions"]
        argv += ["--model", model, "--output-format", "text", "--no-session-persistence"]
        argv += ["--max-turns", str(self.step_limit), "--", instruction]
        env = {
            "ANTHROPIC_BASE_URL": anthropic_base(base_url),
            "ANTHROPIC_API_KEY": api_key,
            "ANTHROPIC_MODEL": model,
            "ANTHROPIC_SMALL_FAST_MODEL": model,
            "ANTHROPIC_DEFAULT_HAIKU_MODEL": model,
            "ANTHROPIC_DEFAULT_SONNET_MODEL": model,
            "ANTHROPIC_DEFAULT_OPUS_MODEL": model,
            "CLAUDE_CODE_SUBAGENT_MODEL": model,
            "CLAUDE_CONFIG_DIR": CONFIG_DIR,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_UPDATES": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
            "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        if self.in_a_container:
            env["IS_SANDBOX"] = "1"  # it refuses to skip permissions as root outside a sandbox
        return HarnessCommand(argv, env)
