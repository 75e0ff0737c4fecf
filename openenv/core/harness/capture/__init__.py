"""The capture proxy: agents' model calls, in four dialects, recorded as exact engine tokens.

``CaptureProxy(Upstream(url), level)`` holds sessions (one per rollout; the id is the agent's API
key), ``create_capture_app(proxy)`` serves it, ``probe_capture_level(url)`` decides ``[TRAIN]`` or
``[EVAL ONLY]``, and ``proxy.close_session(id)`` returns a :class:`CaptureResult`.
"""

from openenv.core.harness.capture.graph import CaptureNode, RolloutGraph
from openenv.core.harness.capture.level import CaptureLevel
from openenv.core.harness.capture.proxy import CaptureProxy
from openenv.core.harness.capture.result import AppliedFix, CaptureResult, EvalCaptureError
from openenv.core.harness.capture.server import create_capture_app
from openenv.core.harness.capture.upstream import Upstream, UpstreamError

__all__ = [
    "AppliedFix",
    "CaptureLevel",
    "CaptureNode",
    "CaptureProxy",
    "CaptureResult",
    "EvalCaptureError",
    "RolloutGraph",
    "Upstream",
    "UpstreamError",
    "create_capture_app",
]
