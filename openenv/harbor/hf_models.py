"""Models on Hugging Face Inference Providers, for the run card's "Hugging Face" choice.

The HF router (``https://router.huggingface.co``, or ``$OPENENV_HF_ROUTER_URL``: tests point it
at a loopback fake) is an OpenAI-compatible endpoint; its ``GET /v1/models`` lists the chat
models, each with the providers serving it::

    {"object": "list", "data": [{"id": "Qwen/Qwen3-Coder-30B-A3B-Instruct", "providers": [
        {"provider": "nebius", "status": "live", "context_length": 262144,
         "pricing": {"input": 0.1, "output": 0.3}, "supports_tools": true}, ...]}, ...]}

Prices are per million tokens. A run names ``model`` (the router picks the provider: the
account's preference order), ``model:fastest``, ``model:cheapest`` or ``model:<provider>``.

The list is the router's answer, so it is read as untrusted input: at most ``MAX_LIST_BYTES``,
``MAX_MODELS`` models of ``MAX_PROVIDERS`` providers each, strings cut to ``MAX_ID_CHARS``;
entries of the wrong shape are skipped, an answer that is not a list of models at all is an
:class:`HfModelsError`. Only providers whose ``status`` is ``live`` (or unsaid) are kept. One
:class:`ModelList` per server caches it for ``CACHE_S`` seconds.

Whose token: :func:`choose_token`. A server whose visitors are its operator (a loopback bind,
:func:`openenv.harbor.app.visitors_may`) uses this machine's token; anywhere else never: the
visitor pastes one or signs in with Hugging Face (a Space with OAuth).
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from openenv.core.serialization import load_untrusted

ROUTER_VARIABLE = "OPENENV_HF_ROUTER_URL"
DEFAULT_ROUTER = "https://router.huggingface.co"
MAX_LIST_BYTES = 8 * 1024 * 1024
MAX_MODELS = 2000
MAX_PROVIDERS = 32
MAX_ID_CHARS = 200
MAX_TOKEN_CHARS = 4096
CACHE_S = 300.0
AUTO_CHOICE = ("auto (your Hugging Face provider order)", "")
POLICIES = ("fastest", "cheapest")  # the router's own choices, beside named providers
MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*(/[A-Za-z0-9._\-]+)?")
PROVIDER = re.compile(r"[a-z0-9][a-z0-9\-]{0,63}")


class HfModelsError(ValueError):
    """The router's model list could not be had or read, and why."""


class HfTokenError(ValueError):
    """No Hugging Face token may be used for this run, and what to do."""


@dataclass(frozen=True)
class Offer:
    """One provider serving a model: its context length and price (per 1M tokens), if said."""

    provider: str
    context_length: int | None = None
    input_price: float | None = None
    output_price: float | None = None
    tools: bool | None = None

    def label(self) -> str:
        parts = [self.provider]
        if self.context_length:
            parts.append(f"{_tokens(self.context_length)} context")
        if self.input_price is not None and self.output_price is not None:
            parts.append(f"${self.input_price:g} in / ${self.output_price:g} out per 1M tokens")
        if self.tools:
            parts.append("tools")
        return " · ".join(parts)


@dataclass(frozen=True)
class HfModel:
    """A chat model and the providers serving it."""

    id: str
    offers: tuple[Offer, ...]

    def label(self) -> str:
        """One line for the searchable list: id, providers, context length, cheapest price."""
        names = [o.provider for o in self.offers]
        shown = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
        parts = [self.id, shown]
        contexts = [o.context_length for o in self.offers if o.context_length]
        if contexts:
            parts.append(f"{_tokens(max(contexts))} ctx")
        priced = [o for o in self.offers if None not in (o.input_price, o.output_price)]
        if priced:
            cheapest = min(priced, key=lambda o: (o.input_price or 0) + (o.output_price or 0))
            parts.append(f"from ${cheapest.input_price:g}/${cheapest.output_price:g} per 1M")
        return " · ".join(parts)

    def provider_choices(self) -> list[tuple[str, str]]:
        """(label, value) of the provider picker: the router's choice, its policies, each
        provider; the value is the ``:suffix`` of the model reference ("" for the router's)."""
        choices = [AUTO_CHOICE, *[(p, p) for p in POLICIES]]
        return choices + [(o.label(), o.provider) for o in self.offers]


def router_url() -> str:
    """The router's base URL (without ``/v1``): ``$OPENENV_HF_ROUTER_URL`` or the Hub's."""
    url = (os.environ.get(ROUTER_VARIABLE) or DEFAULT_ROUTER).strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise HfModelsError(f"${ROUTER_VARIABLE} is not an http(s) URL: {url[:100]!r}")
    return url.removesuffix("/v1")


def model_ref(model_id: str, provider: str = "") -> str:
    """The model name the router takes: ``id`` or ``id:provider`` (both checked)."""
    model_id, provider = (model_id or "").strip(), (provider or "").strip()
    if len(model_id) > MAX_ID_CHARS or not MODEL_ID.fullmatch(model_id):
        raise HfModelsError(f"not a Hugging Face model id: {model_id[:100]!r}")
    if provider and not PROVIDER.fullmatch(provider):
        raise HfModelsError(f"not an Inference Providers provider: {provider[:100]!r}")
    return f"{model_id}:{provider}" if provider else model_id


def check_ref(ref: str) -> str:
    """``ref`` (``id`` or ``id:provider``), its parts checked as :func:`model_ref` does."""
    model_id, _, provider = (ref or "").partition(":")
    return model_ref(model_id, provider)


def split_ref(ref: str) -> tuple[str, str]:
    """``(model id, provider)`` of a reference (provider "auto" when the router chooses)."""
    model_id, _, provider = ref.partition(":")
    return model_id, provider or "auto"


def parse_models(document: Any) -> list[HfModel]:
    """The chat models of a ``/v1/models`` answer (see the module's docstring for the bounds)."""
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, list):
        raise HfModelsError("the router's answer has no list of models ('data')")
    models = []
    for entry in data[: MAX_MODELS * 2]:
        model = _model(entry)
        if model is not None:
            models.append(model)
        if len(models) >= MAX_MODELS:
            break
    return models


def fetch_models(router: str | None = None, *, timeout_s: float = 20.0) -> list[HfModel]:
    """Ask the router for its models (no token needed); HfModelsError when that fails."""
    url = f"{router or router_url()}/v1/models"
    try:
        with httpx.stream("GET", url, timeout=timeout_s, follow_redirects=False) as reply:
            if reply.status_code != 200:
                raise HfModelsError(f"{url} answered {reply.status_code}")
            body = bytearray()
            for chunk in reply.iter_bytes():
                body += chunk
                if len(body) > MAX_LIST_BYTES:
                    raise HfModelsError(f"{url} answered more than {MAX_LIST_BYTES} bytes")
    except httpx.HTTPError as exc:
        raise HfModelsError(f"{url} does not answer ({type(exc).__name__}: {exc})"[:300]) from exc
    try:
        document = load_untrusted(bytes(body))
    except ValueError as exc:
        raise HfModelsError(f"{url} did not answer JSON: {str(exc)[:200]}") from exc
    return parse_models(document)


class ModelList:
    """The router's models, fetched on first need and kept for ``ttl_s`` seconds."""

    def __init__(self, ttl_s: float = CACHE_S) -> None:
        self.ttl_s = ttl_s
        self._models: list[HfModel] = []
        self._at = 0.0
        self._router = ""
        self._lock = threading.Lock()

    def get(self) -> list[HfModel]:
        """The models (fetched again when older than the TTL or the router changed)."""
        router = router_url()
        with self._lock:
            fresh = self._router == router and time.monotonic() - self._at < self.ttl_s
            if fresh and self._models:
                return self._models
            models = fetch_models(router)
            self._models, self._at, self._router = models, time.monotonic(), router
            return models

    def find(self, model_id: str) -> HfModel | None:
        return next((m for m in self.get() if m.id == model_id), None)


def choose_token(
    pasted: str | None, signed_in: str | None, *, machine_allowed: bool, can_sign_in: bool = False
) -> tuple[str, str]:
    """The token a run uses and where it comes from, said on the card: the visitor's pasted
    one, else its sign-in's, else (only when ``machine_allowed``: the visitor is the operator)
    this machine's. HfTokenError when there is none (``can_sign_in``: the page offers
    signing in, said in the error)."""
    pasted = (pasted or "").strip()
    if pasted:
        if len(pasted) > MAX_TOKEN_CHARS or not pasted.isprintable() or " " in pasted:
            raise HfTokenError("that is not a Hugging Face token (hf_...)")
        return pasted, "your token"
    if signed_in:
        return signed_in, "your Hugging Face sign-in"
    if machine_allowed:
        token = machine_token()
        if token:
            return token, "this machine's Hugging Face token"
        raise HfTokenError(
            "this machine has no Hugging Face token: run `hf auth login` (or set HF_TOKEN), "
            "or paste a token"
        )
    sign_in = " (or sign in with Hugging Face)" if can_sign_in else ""
    raise HfTokenError(f"paste a Hugging Face token{sign_in} to use a model")


def machine_token() -> str | None:
    """This machine's Hugging Face token (``HF_TOKEN`` or the one ``hf auth login`` saved)."""
    import huggingface_hub

    return huggingface_hub.get_token() or None


def _model(entry: Any) -> HfModel | None:
    if not isinstance(entry, dict):
        return None
    model_id = entry.get("id")
    if not isinstance(model_id, str) or len(model_id) > MAX_ID_CHARS:
        return None
    if not MODEL_ID.fullmatch(model_id):
        return None
    architecture = entry.get("architecture")
    modalities = architecture.get("output_modalities") if isinstance(architecture, dict) else None
    if isinstance(modalities, list) and modalities and "text" not in modalities:
        return None
    providers = entry.get("providers")
    raw = providers[:MAX_PROVIDERS] if isinstance(providers, list) else []
    offers = tuple(o for o in map(_offer, raw) if o is not None)
    return HfModel(model_id, offers) if offers else None


def _offer(entry: Any) -> Offer | None:
    if not isinstance(entry, dict):
        return None
    name = entry.get("provider")
    if not isinstance(name, str) or not PROVIDER.fullmatch(name):
        return None
    if entry.get("status", "live") != "live":
        return None
    pricing = entry.get("pricing")
    if not isinstance(pricing, dict):
        pricing = {}
    tools = entry.get("supports_tools")
    return Offer(
        name,
        _number(entry.get("context_length"), int),
        _number(pricing.get("input"), float),
        _number(pricing.get("output"), float),
        tools if isinstance(tools, bool) else None,
    )


def _number(value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not 0 <= value < 1e12 or value != value:  # NaN, negative, absurd
        return None
    return kind(value)


def _tokens(n: int) -> str:
    return f"{n / 1_000_000:g}M" if n >= 1_000_000 else f"{round(n / 1000):g}k"
