"""Rule 4: text for people, from ``messages`` and string fields (see the package's rules)."""

from __future__ import annotations

from typing import Any

from openenv.core.views import Text, View
from openenv.web.remote.rules.bounds import MAX_TEXT, TEXT_NAMES, named


def text_view(obs: dict[str, Any], names: list[str]) -> tuple[View | None, tuple[str, ...]]:
    parts: list[tuple[str, str]] = []
    size = 0
    for name in names:
        if size > MAX_TEXT:
            break
        said = _said(name, obs[name])
        if said:
            parts.append((name, said))
            size += len(said)
    if not parts:
        return None, ()
    text = parts[0][1] if len(parts) == 1 else "\n\n".join(f"[{n}]\n{t}" for n, t in parts)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + "\n… (truncated)"
    return Text(text), tuple(n for n, _ in parts)


def _said(name: str, value: Any) -> str:
    """The text of one field for people, or ``""``."""
    if name == "messages" and isinstance(value, list):
        return _messages(value)
    if isinstance(value, str) and value.strip() and (named(name, TEXT_NAMES) or "\n" in value):
        return value
    return ""


def _messages(messages: list[Any]) -> str:
    said: list[str] = []
    size = 0
    for message in messages:
        if size > MAX_TEXT:
            break
        if isinstance(message, dict) and "content" in message:
            content = _content(message["content"])
            role = message.get("role")
            said.append(f"{role}: {content}" if isinstance(role, str) and role else content)
            size += len(said[-1]) + 2
    return "\n\n".join(said)


def _content(content: Any) -> str:
    """A message's content: a string, or the texts of a list of parts (``{"text": ...}``)."""
    if isinstance(content, str):
        return content[: MAX_TEXT + 1]
    if isinstance(content, list):
        texts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "\n".join(texts)[: MAX_TEXT + 1]
    return str(content)[: MAX_TEXT + 1]
