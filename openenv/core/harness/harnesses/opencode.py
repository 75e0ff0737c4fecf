"""opencode (npm ``opencode-ai``): ``opencode run``, non-interactive, against the capture proxy
as an OpenAI-compatible provider (chat completions)."""

from __future__ import annotations

import json

from openenv.core.harness.harnesses.base import HarnessCommand, check_instruction
from openenv.core.harness.harnesses.npm import NpmHarness, making_dirs

PROVIDER = "openenv"
STATE = "/tmp/openenv-opencode"  # the sandbox's private /tmp: its data, config, cache, state
CONTEXT_TOKENS = 65_536


class OpenCode(NpmHarness):
    """``opencode run --auto`` (permissions auto-approved: the rollout's sandbox holds it), its
    only provider the proxy through the bundled ``@ai-sdk/openai-compatible`` (the session id as
    its key), models list fetch, updates, sharing, plugins and LSP downloads off, and npm
    offline (at start it installs ``@opencode-ai/plugin`` into its config folder in the
    background from the npm registry; offline that fails quietly)."""

    name = "opencode"
    dialect = "chat"
    package = "opencode-ai"
    version = "1.18.33"
    bin = "opencode"

    def config(self, base_url: str, api_key: str, model: str) -> dict[str, object]:
        """The config it reads from ``OPENCODE_CONFIG_CONTENT``."""
        return {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "enabled_providers": [PROVIDER],
            "provider": {
                PROVIDER: {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "openenv capture proxy",
                    "options": {"baseURL": base_url, "apiKey": api_key},
                    "models": {
                        model: {
                            "name": model,
                            "tool_call": True,
                            "limit": {"context": CONTEXT_TOKENS, "output": 4096},
                        }
                    },
                }
            },
            "model": f"{PROVIDER}/{model}",
            "small_model": f"{PROVIDER}/{model}",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"},
        }

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        check_instruction(self.name, instruction)
        argv = [*self.program(), "run", "--auto", "--pure", "--title", "harbor rollout"]
        argv += ["--model", f"{PROVIDER}/{model}", "--", instruction]
        env = {
            "OPENCODE_CONFIG_CONTENT": json.dumps(self.config(base_url, api_key, model)),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
            "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
            "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
            "npm_config_offline": "true",
            "XDG_DATA_HOME": f"{STATE}/data",
            "XDG_CONFIG_HOME": f"{STATE}/config",
            "XDG_CACHE_HOME": f"{STATE}/cache",
            "XDG_STATE_HOME": f"{STATE}/state",
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        dirs = ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"]
        return HarnessCommand(making_dirs(argv, dirs), env)
