"""codex (npm ``@openai/codex``): ``codex exec``, non-interactive, against the capture proxy as
a model provider of its own speaking the OpenAI Responses API."""

from __future__ import annotations

import json

from openenv.core.harness.harnesses.base import HarnessCommand, check_instruction
from openenv.core.harness.harnesses.npm import NpmHarness, making_dirs

PROVIDER = "openenv"
KEY_VARIABLE = "OPENENV_API_KEY"
CODEX_HOME = "/tmp/openenv-codex"  # the sandbox's private /tmp


def _toml(value: object) -> str:
    """A ``-c`` value as TOML (strings quoted, so none is read as another type)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))  # a JSON string is a TOML basic string


class Codex(NpmHarness):
    """``codex exec`` with approvals and codex's own sandbox bypassed (the rollout's sandbox
    holds it), an ephemeral session, update checks and analytics off, its plugin and app
    features off (they fetch from GitHub at start), every ``-c`` override checked
    (``--strict-config``: a misnamed key is an error, not ignored)."""

    name = "codex"
    dialect = "responses"
    package = "@openai/codex"
    version = "0.171.0"
    bin = "codex"

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        check_instruction(self.name, instruction)
        provider = f"model_providers.{PROVIDER}"
        config: dict[str, object] = {
            "model_provider": PROVIDER,
            "model": model,
            f"{provider}.name": PROVIDER,
            f"{provider}.base_url": base_url,
            f"{provider}.wire_api": "responses",
            f"{provider}.env_key": KEY_VARIABLE,
            f"{provider}.request_max_retries": 1,
            f"{provider}.stream_max_retries": 1,
            "check_for_update_on_startup": False,
            "analytics.enabled": False,
            "feedback.enabled": False,
            "history.persistence": "none",
            "features.plugins": False,
            "features.remote_plugin": False,
            "features.apps": False,
        }
        argv = [*self.program(), "exec", "--strict-config", "--ephemeral"]
        argv += ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
        argv += ["--color", "never"]
        for key, value in config.items():
            argv += ["-c", f"{key}={_toml(value)}"]
        argv += ["--", instruction]
        env = {
            KEY_VARIABLE: api_key,
            "CODEX_HOME": CODEX_HOME,
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        return HarnessCommand(making_dirs(argv, ["CODEX_HOME"]), env)
