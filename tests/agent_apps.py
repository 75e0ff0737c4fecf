"""Agents for the agent tests: a policy on the server (``OPENENV_AGENT=tests.agent_apps:...``)
and a fake OpenAI-compatible chat endpoint (``uvicorn tests.agent_apps:chat``) that answers
with the last legal action it was offered and records what it was asked."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request

ASKED: list[dict[str, Any]] = []


def leftmost(observation: dict[str, Any], choices: list[dict[str, Any]]) -> int:
    """Always the first legal action."""
    return 0


def broken(observation: dict[str, Any], choices: list[dict[str, Any]]) -> int:
    raise RuntimeError("no idea")


def out_of_range(observation: dict[str, Any], choices: list[dict[str, Any]]) -> int:
    return len(choices) + 5


chat = FastAPI()


@chat.post("/v1/chat/completions")
async def complete(request: Request) -> dict[str, Any]:
    body = await request.json()
    ASKED.append(body)
    prompt = body["messages"][-1]["content"]
    numbers = re.findall(r"^(\d+)\. ", prompt, flags=re.M)
    answer = "I pick " + numbers[-1] if body.get("model") != "nonsense" else "the blue one"
    return {"choices": [{"message": {"role": "assistant", "content": answer}}]}


@chat.get("/asked")
async def asked() -> list[dict[str, Any]]:
    return ASKED
