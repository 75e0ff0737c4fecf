"""gemini-cli (npm ``@google/gemini-cli``): ``gemini -p``, non-interactive, against the capture
proxy's Google generateContent route."""

from __future__ import annotations

import json

from openenv.core.harness.harnesses.base import HarnessCommand, check_instruction
from openenv.core.harness.harnesses.npm import NpmHarness

GEMINI_HOME = "/tmp/openenv-gemini"  # the sandbox's private /tmp
# Its user settings: the API-key auth (with GOOGLE_GEMINI_BASE_URL set, the auth it would infer
# is "gateway", which its non-interactive check refuses as "Invalid auth method selected."),
# usage statistics, telemetry and updates off.
SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "ide": {"enabled": False},
}
# Writes the settings where it reads them ($GEMINI_CLI_HOME/.gemini), then runs it.
_PRELUDE = (
    'mkdir -p "$GEMINI_CLI_HOME/.gemini" && '
    'printf "%s" "$OPENENV_GEMINI_SETTINGS" > "$GEMINI_CLI_HOME/.gemini/settings.json" && '
    'exec "$@"'
)


def google_base(base_url: str) -> str:
    """The proxy's root: Google's client adds ``/v1beta/models/...`` itself."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


def path_model(model: str) -> str:
    """The model as one URL path segment: Google's client puts it in the path unescaped
    (``/v1beta/models/<model>:generateContent``), so a model id's ``/`` would split it. The
    capture proxy asks its endpoint for its own model whatever the agent names."""
    return model.replace("/", "--")


class GeminiCli(NpmHarness):
    """``gemini -p --yolo`` (every tool call approved: the rollout's sandbox holds it), its base
    URL the proxy (``GOOGLE_GEMINI_BASE_URL``, which this version reads), the session id as its
    key (its API-key auth, chosen in the settings it is given), telemetry, usage statistics,
    updates and the relaunch off, the working folder trusted."""

    name = "gemini-cli"
    dialect = "generateContent"
    package = "@google/gemini-cli"
    version = "0.61.0"
    bin = "gemini"

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        check_instruction(self.name, instruction)
        model = path_model(model)
        argv = [*self.program(), "--yolo", "--model", model, "--output-format", "text"]
        argv += ["--prompt", instruction]
        env = {
            "GOOGLE_GEMINI_BASE_URL": google_base(base_url),
            "GEMINI_API_KEY": api_key,
            "GEMINI_MODEL": model,
            "GEMINI_CLI_HOME": GEMINI_HOME,
            "GEMINI_TELEMETRY_ENABLED": "false",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "OPENENV_GEMINI_SETTINGS": json.dumps(SETTINGS),
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        return HarnessCommand(["/bin/sh", "-c", _PRELUDE, argv[0], *argv], env)
