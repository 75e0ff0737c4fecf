"""The rollout graph: every captured model call is a node, linked to the call it extends.

A call's parent is the earlier call whose prompt plus completion is an exact prefix of this call's
prompt token ids (the longest such). When the engine returns no ids, the same rule runs over
normalised messages instead: the parent's request messages plus its reply are a prefix of this
call's messages. Nothing else (request ids, timestamps) is consulted.

Retries are siblings; a subagent or a rewritten history starts a new root. Within each family of
roots that share one first prompt, the path to the most recent leaf is the agent's work (kept);
every other node of that family is an abandoned branch (discarded), so it is never trained with
the reward the kept path earned.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

LinkKind = Literal["tokens", "messages", "root"]


class CaptureNode(BaseModel):
    """One model call as the proxy saw it."""

    node_id: str
    seq: int
    dialect: str
    parent_id: str | None = None
    linked_by: LinkKind = "root"
    prompt_token_ids: list[int] = Field(default_factory=list)
    completion_token_ids: list[int] = Field(default_factory=list)
    per_token_logps: list[float] | None = None
    messages: list[dict[str, Any]] = Field(default_factory=list)
    reply: dict[str, Any] = Field(default_factory=dict)
    finish_reason: str | None = None
    status: Literal["kept", "discarded"] = "kept"
    # the sampling fields the agent asked for, and those sent (a training policy pins them)
    requested_sampling_params: dict[str, Any] = Field(default_factory=dict)
    sampling_params: dict[str, Any] = Field(default_factory=dict)

    @property
    def has_tokens(self) -> bool:
        """Whether the engine returned the prompt ids of this call."""
        return bool(self.prompt_token_ids)

    def full_ids(self) -> list[int]:
        """Prompt then completion ids: what a child's prompt must start with."""
        return self.prompt_token_ids + self.completion_token_ids


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict)).strip()
    return "" if content is None else str(content).strip()


def message_key(message: dict[str, Any]) -> str:
    """A message reduced to what survives an agent re-serialising its history."""
    calls = [
        [c.get("function", {}).get("name"), _arguments(c.get("function", {}).get("arguments"))]
        for c in message.get("tool_calls") or []
    ]
    return json.dumps([message.get("role"), _text(message.get("content")), calls], sort_keys=True)


class RolloutGraph:
    """The nodes of one capture session, in arrival order.

    Adding a call costs what its own prompt costs (indexes by prefix length and by message
    chain), not what the session's history costs, so a long session does not slow its calls.
    """

    def __init__(self) -> None:
        self.nodes: list[CaptureNode] = []
        self._by_id: dict[str, CaptureNode] = {}
        self._by_len: dict[int, dict[tuple[int, ...], CaptureNode]] = {}
        self._by_chain: dict[tuple[str, ...], CaptureNode] = {}
        self._family: dict[str, object] = {}  # node id -> its family (the first prompt's key)
        self._kept: dict[object, list[str]] = {}  # family -> ids on its kept path

    def add(self, node: CaptureNode) -> CaptureNode:
        """Link ``node`` to its parent, append it and re-mark its family's kept path."""
        keys = tuple(message_key(m) for m in node.messages)
        node.parent_id, node.linked_by = self._parent_of(node, keys)
        self.nodes.append(node)
        self._by_id[node.node_id] = node
        if node.has_tokens:
            full = tuple(node.full_ids())
            self._by_len.setdefault(len(full), {})[full] = node
        else:
            self._by_chain[(*keys, message_key(node.reply))] = node
        if node.parent_id is None:
            family: object = ("t", tuple(node.prompt_token_ids)) if node.has_tokens else keys
        else:
            family = self._family[node.parent_id]
        self._family[node.node_id] = family
        self._mark(family, node)
        return node

    def _parent_of(self, node: CaptureNode, keys: tuple[str, ...]) -> tuple[str | None, LinkKind]:
        if node.has_tokens:
            prompt = node.prompt_token_ids
            for length in sorted((n for n in self._by_len if n <= len(prompt)), reverse=True):
                found = self._by_len[length].get(tuple(prompt[:length]))
                if found is not None:
                    return found.node_id, "tokens"
            return None, "root"
        for length in range(len(keys), 0, -1):
            found = self._by_chain.get(keys[:length])
            if found is not None:
                return found.node_id, "messages"
        return None, "root"

    def _mark(self, family: object, leaf: CaptureNode) -> None:
        # The newest call is always a leaf and the newest of its family: its path is kept.
        path: list[str] = []
        cur: CaptureNode | None = leaf
        while cur is not None:
            path.append(cur.node_id)
            cur = self._by_id[cur.parent_id] if cur.parent_id else None
        on_path = set(path)
        for node_id in self._kept.get(family, []):
            if node_id not in on_path:
                self._by_id[node_id].status = "discarded"
        for node_id in path:
            self._by_id[node_id].status = "kept"
        self._kept[family] = path

    def roots(self) -> list[CaptureNode]:
        """Calls that extend no earlier call (conversations, subagents, compactions)."""
        return [n for n in self.nodes if n.parent_id is None]

    def kept(self) -> list[CaptureNode]:
        """The nodes on kept paths, in arrival order."""
        return [n for n in self.nodes if n.status == "kept"]
