"""The model endpoints a Harbor server's rollouts call, each behind a capture proxy of its own.

Three kinds, chosen per run:

- ``server``: the endpoint ``openenv harbor serve --llm-url`` was started with, probed once at
  startup. Its key stays in this process: agents get a capture session id as their key.
- ``url``: an OpenAI-compatible URL a visitor gives (vLLM, SGLang, a hosted provider), probed
  before its first use; a URL that does not answer is refused with the probe's reason. Proxies
  for such URLs are kept for reuse, a bounded number of them, least recently used dropped.
- ``hf``: a model on Hugging Face Inference Providers (:mod:`openenv.harbor.hf_models`), reached
  through the HF router's ``/v1`` with a Hugging Face token, probed like a URL. The token stays
  in the proxy, as a URL's key does; the run's record says the model and provider, never it.
- ``test``: the shipped scripted TEST engine (not a model): for one run it replays the task's
  own ``solution/solve.sh`` through the harness's shell tool, so a visitor sees a whole rollout
  offline. Its tokens and logprobs are real (the tiny model scores the replies).

Every proxy is served on a loopback port of its own (:func:`serve_in_thread`): the harness in
its sandbox calls ``<proxy>/v1`` with the session id as its API key.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.capture.level import CaptureLevel
from openenv.core.harness.capture.probe import ProbeError, probe_capture_level
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.tasks import HarborTask
from openenv.harbor.hf_models import HfModelsError, check_ref, router_url, split_ref

EndpointKind = Literal["server", "url", "hf", "test"]
MAX_URL_ENDPOINTS = 8
MAX_URL_CHARS = 2048


class EndpointError(ValueError):
    """A model choice that cannot be used, and why."""


@dataclass
class Endpoint:
    """One upstream model behind one capture proxy on a loopback port."""

    kind: EndpointKind
    url: str
    model: str
    level: CaptureLevel
    proxy: CaptureProxy
    proxy_url: str
    api_key: str | None = field(default=None, repr=False)
    busy: int = 0  # runs using it now (a busy endpoint is never dropped)
    _closer: contextlib.ExitStack = field(default_factory=contextlib.ExitStack, repr=False)

    def check(self) -> str | None:
        """None while the upstream answers; why not otherwise (the rollout's engine watch)."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            httpx.get(f"{self.url.rstrip('/')}/models", headers=headers, timeout=5.0)
        except httpx.HTTPError as exc:
            return f"{self.url} does not answer ({type(exc).__name__}: {exc})"[:300]
        return None

    def describe(self) -> dict[str, Any]:
        """What the UI and the API show: never the key."""
        model, provider = split_ref(self.model) if self.kind == "hf" else (self.model, None)
        return {
            "kind": self.kind,
            "url": self.url if self.kind != "test" else "shipped TEST engine (scripted)",
            "model": model,
            **({"provider": provider} if provider else {}),
            "label": self.level.label,
            "rollout_type": self.level.rollout_type,
            "capture_level": self.level.capture_level,
            "tools": self.level.tools,
            "notes": list(self.level.notes),
        }

    def close(self) -> None:
        self._closer.close()


def open_endpoint(
    kind: EndpointKind,
    url: str,
    *,
    model: str | None = None,
    api_key: str | None = None,
    level: CaptureLevel | None = None,
    probe_timeout_s: float = 60.0,
    stack: contextlib.ExitStack | None = None,
) -> Endpoint:
    """Probe ``url`` (unless ``level`` is given) and serve a capture proxy in front of it."""
    if level is None:
        try:
            level = probe_capture_level(url, model=model, api_key=api_key, timeout=probe_timeout_s)
        except (ProbeError, httpx.HTTPError, ValueError) as exc:
            raise EndpointError(f"{url}: {exc}") from exc
    chosen = model or level.model or "model"
    proxy = CaptureProxy(Upstream(url, api_key=api_key, model=chosen), level)
    closer = stack or contextlib.ExitStack()
    proxy_url = closer.enter_context(serve_in_thread(create_capture_app(proxy)))
    return Endpoint(kind, url, chosen, level, proxy, proxy_url, api_key, _closer=closer)


@contextlib.contextmanager
def test_endpoint(task: HarborTask) -> Iterator[Endpoint]:
    """The scripted TEST engine replaying ``task``'s solution, behind a proxy, for one run."""
    from openenv.core.harness.engine import Engine, create_engine_app
    from openenv.core.harness.engine.script import bash_policy

    solve = task.path / "solution" / "solve.sh"
    if not solve.is_file():
        raise EndpointError(
            f"{task.name} has no solution/solve.sh: the TEST engine has nothing to replay"
        )
    script = bash_policy([solve.read_text(encoding="utf-8").strip()])
    with contextlib.ExitStack() as stack:
        engine_url = stack.enter_context(serve_in_thread(create_engine_app(Engine(script=script))))
        endpoint = open_endpoint("test", f"{engine_url}/v1", stack=stack)
        yield endpoint


class Endpoints:
    """The server's endpoint (if any) and the visitors' URL and Hugging Face endpoints, probed
    once each. ``allow_urls``: visitors may name a URL; ``machine_token``: a Hugging Face run
    without a visitor's token may use this machine's (only where visitors are the operator)."""

    def __init__(
        self,
        server: Endpoint | None = None,
        *,
        allow_urls: bool = True,
        machine_token: bool = False,
        opener: Callable[..., Endpoint] = open_endpoint,
    ) -> None:
        self.server = server
        self.allow_urls = allow_urls
        self.machine_token = machine_token
        self._open = opener
        self._urls: OrderedDict[tuple[str, str | None, str | None], Endpoint] = OrderedDict()
        self._lock = threading.Lock()

    def for_url(
        self, url: str, *, model: str | None = None, api_key: str | None = None
    ) -> Endpoint:
        """The proxy for a visitor's URL: probed on first use, reused after."""
        if not self.allow_urls:
            raise EndpointError("this server runs rollouts on its own endpoint only")
        url = url.strip()
        if not url.startswith(("http://", "https://")) or len(url) > MAX_URL_CHARS:
            raise EndpointError(f"not an http(s) URL: {url[:100]!r}")
        return self._opened("url", url.rstrip("/"), model or None, api_key or None)

    def for_hf(self, model: str, token: str) -> Endpoint:
        """The proxy for ``model`` (``id`` or ``id:provider``) on the Hugging Face router,
        called with ``token``: probed on first use, reused after (allowed on every server: the
        router is one known host, not a way into the server's network)."""
        if not token:
            raise EndpointError("a Hugging Face model needs a Hugging Face token")
        try:
            ref, router = check_ref(model), router_url()
        except HfModelsError as exc:
            raise EndpointError(str(exc)) from exc
        return self._opened("hf", f"{router}/v1", ref, token)

    def _opened(
        self, kind: EndpointKind, url: str, model: str | None, api_key: str | None
    ) -> Endpoint:
        key = (url, model, api_key)
        with self._lock:
            known = self._urls.get(key)
            if known is not None:
                self._urls.move_to_end(key)
                return known
        endpoint = self._open(kind, url, model=model, api_key=api_key)
        with self._lock:
            self._urls[key] = endpoint
            idle = [k for k, e in self._urls.items() if e.busy == 0 and e is not endpoint]
            for old_key in idle[: max(0, len(self._urls) - MAX_URL_ENDPOINTS)]:
                self._urls.pop(old_key).close()
        return endpoint

    def close(self) -> None:
        with self._lock:
            for endpoint in self._urls.values():
                endpoint.close()
            self._urls.clear()
        if self.server is not None:
            self.server.close()
