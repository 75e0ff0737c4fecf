"""Web search: answer questions by searching (offline BM25 corpus, or Serper). Client exports."""

from websearch_env.client import WebSearchEnv
from websearch_env.models import WebContent, WebSearchAction, WebSearchObservation, WebSearchState

__all__ = [
    "WebContent",
    "WebSearchAction",
    "WebSearchEnv",
    "WebSearchObservation",
    "WebSearchState",
]
