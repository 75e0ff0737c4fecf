"""Where search results come from: one narrow seam, two providers.

* :class:`OfflineProvider`: BM25 (``rank_bm25``) over the corpus this package ships
  (``websearch_env/data/corpus.json``): no network, deterministic, answers the shipped questions.
* :class:`SerperProvider`: Google results through the Serper.dev API (``POST /search`` with the
  ``X-API-KEY`` header), the documented env's provider. Its key comes from ``SERPER_API_KEY``
  (or the action's ``temp_api_key``); without one it says so instead of searching.

:func:`provider_from_env` picks one from ``WEBSEARCH_PROVIDER`` (``offline``, the default, or
``serper``); ``SERPER_ENDPOINT`` points Serper elsewhere (a proxy, a test double).
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from importlib import resources
from typing import Protocol

import httpx

from websearch_env.models import WebContent

SERPER_URL = "https://google.serper.dev/search"
SERPER_TIMEOUT_S = 15.0
MAX_RESPONSE_BYTES = 2_000_000
MAX_TEXT = 2000  # characters kept of one result's content
TOKEN = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "has",
     "have", "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was",
     "were", "what", "when", "where", "which", "who", "why", "with")
)  # fmt: skip


class ProviderError(RuntimeError):
    """A search that could not run; the message says why and what to do."""


class SearchProvider(Protocol):
    """Anything that turns a query into ranked results."""

    name: str

    def search(self, query: str, top_k: int, api_key: str | None = None) -> list[WebContent]: ...


def tokens(text: str) -> list[str]:
    """Lower-cased words without the commonest English ones (BM25's terms)."""
    return [t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS]


class OfflineProvider:
    """BM25 over a list of documents (``id``, ``title``, ``url``, ``text``)."""

    name = "offline"

    def __init__(self, documents: list[dict[str, str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.documents = documents
        self._index = BM25Okapi([tokens(f"{d['title']} {d['text']}") for d in documents])

    def search(self, query: str, top_k: int, api_key: str | None = None) -> list[WebContent]:
        terms = tokens(query)
        if not terms:
            return []
        scores = self._index.get_scores(terms)
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [
            WebContent(title=d["title"], content=d["text"][:MAX_TEXT], url=d["url"])
            for d in (self.documents[i] for i in ranked[:top_k] if scores[i] > 0)
        ]


class SerperProvider:
    """Google Search through Serper.dev: the organic results' titles, snippets and links."""

    name = "serper"

    def __init__(
        self,
        api_key: str | None = None,
        endpoint: str = SERPER_URL,
        timeout: float = SERPER_TIMEOUT_S,
    ) -> None:
        self.api_key, self.endpoint, self.timeout = api_key, endpoint, timeout

    def search(self, query: str, top_k: int, api_key: str | None = None) -> list[WebContent]:
        key = api_key or self.api_key
        if not key:
            raise ProviderError(
                "SERPER_API_KEY is not set: give the server a Serper.dev key (the env var, or a "
                "Space secret), send temp_api_key with the action, or set "
                "WEBSEARCH_PROVIDER=offline to search the shipped corpus"
            )
        payload = {"q": query, "num": top_k, "gl": "us", "hl": "en"}
        headers = {"X-API-KEY": key, "Content-Type": "application/json"}
        try:
            response = httpx.post(
                self.endpoint, json=payload, headers=headers, timeout=self.timeout
            )
        except httpx.HTTPError as exc:
            raise ProviderError(
                f"Serper could not be reached ({type(exc).__name__}: {exc})"
            ) from None
        if response.status_code in (401, 403):
            raise ProviderError(f"Serper refused the API key (HTTP {response.status_code})")
        if response.status_code != 200:
            raise ProviderError(f"Serper answered HTTP {response.status_code}")
        if len(response.content) > MAX_RESPONSE_BYTES:
            raise ProviderError("Serper's answer is too large")
        return _organic(response.content, top_k)


def _organic(body: bytes, top_k: int) -> list[WebContent]:
    try:
        items = json.loads(body).get("organic", [])
    except (ValueError, AttributeError):
        raise ProviderError("Serper's answer is not the expected JSON") from None
    results = []
    for item in items[:top_k]:
        if not isinstance(item, dict):
            continue
        title = str(item.get("title") or "No title.")[:300]
        snippet = str(item.get("snippet") or "No snippet available.")[:MAX_TEXT]
        results.append(
            WebContent(title=title, content=snippet, url=str(item.get("link", ""))[:500])
        )
    return results


@lru_cache(maxsize=1)
def shipped_corpus() -> OfflineProvider:
    """The offline provider over the shipped corpus (built once per process)."""
    text = resources.files("websearch_env.data").joinpath("corpus.json").read_text("utf-8")
    return OfflineProvider(json.loads(text)["documents"])


def provider_from_env(environ: dict[str, str] | None = None) -> SearchProvider:
    """The provider the operator chose (``WEBSEARCH_PROVIDER``; ``offline`` by default)."""
    env = os.environ if environ is None else environ
    choice = env.get("WEBSEARCH_PROVIDER", "offline").strip().lower() or "offline"
    if choice == "offline":
        return shipped_corpus()
    if choice == "serper":
        return SerperProvider(env.get("SERPER_API_KEY"), env.get("SERPER_ENDPOINT") or SERPER_URL)
    raise ProviderError(f"WEBSEARCH_PROVIDER={choice!r}: use 'offline' or 'serper'")
