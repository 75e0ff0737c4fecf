"""``openenv harbor serve``: Harbor tasks served over a Task API, a ``run_rollout`` MCP tool and a
``/web`` UI, every rollout captured through a proxy (:mod:`openenv.core.harness`)."""

from openenv.harbor.endpoints import Endpoint, EndpointError, Endpoints, open_endpoint
from openenv.harbor.service import HarborService, RunRecord, RunRequest, ServiceError

__all__ = [
    "Endpoint",
    "EndpointError",
    "Endpoints",
    "HarborService",
    "RunRecord",
    "RunRequest",
    "ServiceError",
    "open_endpoint",
]
