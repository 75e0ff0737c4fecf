"""The wire dialects the capture proxy speaks, one module each, by name."""

from openenv.core.harness.capture.dialects.anthropic import AnthropicDialect
from openenv.core.harness.capture.dialects.base import ChatReply, Dialect, DialectCall, DialectError
from openenv.core.harness.capture.dialects.chat import ChatDialect
from openenv.core.harness.capture.dialects.google import GoogleDialect
from openenv.core.harness.capture.dialects.responses import ResponsesDialect

DIALECTS: dict[str, Dialect] = {
    d.name: d for d in (ChatDialect(), ResponsesDialect(), AnthropicDialect(), GoogleDialect())
}

__all__ = [
    "DIALECTS",
    "AnthropicDialect",
    "ChatDialect",
    "ChatReply",
    "Dialect",
    "DialectCall",
    "DialectError",
    "GoogleDialect",
    "ResponsesDialect",
]
