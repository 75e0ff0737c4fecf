"""The documented environments that cannot run on a CPU machine without downloads no package
registry carries (Unity builds, OpenApps' apps, ThinkingBox's scenarios): each with the reason.

``openenv list`` and the catalog page show them as "hosted only", to be played with
``openenv playground URL`` against a server that hosts them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HostedOnly:
    """A documented environment with no package here: it runs only on a server that hosts it
    (``openenv playground URL`` puts our playground in front of that server)."""

    name: str
    title: str
    emoji: str
    description: str
    reason: str  # why it cannot run here


HOSTED_ONLY: tuple[HostedOnly, ...] = (
    HostedOnly(
        "openapp",
        "OpenApp",
        "🗂️",
        "Web application simulation wrapping the OpenApps framework and BrowserGym for training "
        "UI agents on calendar, todo, messenger and maps apps.",
        "needs the OpenApps web applications, a checkout served beside the browser, which no "
        "package registry carries",
    ),
    HostedOnly(
        "thinkingbox",
        "ThinkingBox",
        "🧰",
        "Evaluation-only adapter for ThinkingBox-Bench and user-supplied ThinkingBox scenarios, "
        "with isolated MCP tools, simulated users and native state and side-effect grading.",
        "needs the ThinkingBox-Bench scenarios and their MCP tool servers, downloaded outside any "
        "package registry, and an LLM for its simulated users",
    ),
    HostedOnly(
        "unity",
        "Unity ML-Agents",
        "🎮",
        "OpenEnv wrapper for Unity ML-Agents environments (3DBall, GridWorld, ...) over "
        "HTTP/WebSocket.",
        "needs Unity environment builds (player binaries downloaded per environment, not from a "
        "package registry) and mlagents-envs, whose releases support Python 3.10 only",
    ),
)


def hosted_only() -> list[HostedOnly]:
    """The documented environments that run only where they are hosted, sorted by name."""
    return sorted(HOSTED_ONLY, key=lambda h: h.name)
