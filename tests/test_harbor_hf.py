""" "Hugging Face (Inference Providers)" on the run card, against a fake router on loopback
(tests/harbor_hf_apps.py; no Hub here): the router's model list is read with its providers,
context lengths and prices, and its junk is bounded; whose token a run uses (this machine's
only where the visitors are the operator); a run on a Hugging Face model reaches the router
with the visitor's token, and nothing the run keeps or serves contains it; and, in a browser, a
visitor picks Hugging Face, searches the list, picks a model, pastes a token and runs a task.

Screenshots go to /tmp/work/shots/harbor_hf_*.png (1280x800 and 390x844)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harbor_hf_apps import TOKEN, fake_router
from harbor_support import mini_swe_agent
from starlette.responses import Response

from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.harbor import Endpoints, HarborService, RunRequest, ServiceError, hf_models
from openenv.harbor.app import create_harbor_app
from openenv.harbor.endpoints import EndpointError
from openenv.harbor.wire import rollout_result
from tests.conftest import serve

SHOTS = Path("/tmp/work/shots")
MACHINE_TOKEN = "hf_thisMachinesOwnToken000000000000000"


@pytest.fixture(scope="module")
def router() -> Iterator[tuple[str, list[str]]]:
    """The fake router's base URL and the Authorization headers it was sent."""
    seen: list[str] = []
    with serve_in_thread(fake_router(TOKEN, seen)) as url:
        yield url, seen


@pytest.fixture
def routed(router: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(hf_models.ROUTER_VARIABLE, router[0])
    return router[0]


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """This machine's token is MACHINE_TOKEN; the list counts how often it was read."""
    import huggingface_hub

    reads: list[int] = []

    def get_token() -> str:
        reads.append(1)
        return MACHINE_TOKEN

    monkeypatch.setattr(huggingface_hub, "get_token", get_token)
    return reads


# -- the model list -------------------------------------------------------------------------


def test_the_list_says_each_models_providers_context_and_price(routed: str) -> None:
    models = hf_models.fetch_models()
    assert [m.id for m in models] == [
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "meta-llama/Llama-3.1-8B-Instruct",
    ]  # the image model is no chat model
    qwen = models[0]
    assert [o.provider for o in qwen.offers] == ["nebius", "scaleway"]  # staging left out
    assert qwen.label() == (
        "Qwen/Qwen3-Coder-30B-A3B-Instruct · nebius, scaleway · 262k ctx · from $0.1/$0.3 per 1M"
    )
    providers = dict((value, label) for label, value in qwen.provider_choices())
    assert list(providers)[:3] == ["", "fastest", "cheapest"]
    assert (
        providers["scaleway"]
        == "scaleway · 131k context · $0.2 in / $0.8 out per 1M tokens · tools"
    )
    assert hf_models.model_ref(qwen.id, "nebius") == "Qwen/Qwen3-Coder-30B-A3B-Instruct:nebius"
    assert hf_models.split_ref("a/b") == ("a/b", "auto")


def test_wrong_fields_are_skipped_and_the_list_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    junk = {"data": [
        5, None, {"id": 7}, {"id": "<script>"}, {"id": "x" * 500, "providers": []},
        {"id": "a/b", "providers": "nebius"},
        {"id": "a/c", "providers": [{"provider": "Bad Name"}, {"provider": "ok",
         "context_length": "big", "pricing": {"input": -1, "output": float("nan")},
         "supports_tools": "yes"}]},
    ]}  # fmt: skip
    (only,) = hf_models.parse_models(junk)
    assert only == hf_models.HfModel("a/c", (hf_models.Offer("ok"),))
    assert only.label() == "a/c · ok"
    monkeypatch.setattr(hf_models, "MAX_MODELS", 3)
    many = {"data": [{"id": f"m/{i}", "providers": [{"provider": "p"}]} for i in range(50)]}
    assert len(hf_models.parse_models(many)) == 3
    for junk_model in ("", "a b", "a/b/c", "x" * 300):
        with pytest.raises(hf_models.HfModelsError, match="not a Hugging Face model id"):
            hf_models.model_ref(junk_model)
    with pytest.raises(hf_models.HfModelsError, match="not an Inference Providers provider"):
        hf_models.model_ref("a/b", "x:y")


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (200, b"<html>not json</html>", "did not answer JSON"),
        (200, b'{"data": 5}', "no list of models"),
        (200, b"[1, 2]", "no list of models"),
        (200, b"[" * 5000 + b"]" * 5000, "did not answer JSON"),
        (502, b"bad gateway", "answered 502"),
        (200, b'{"data": []}' + b" " * (hf_models.MAX_LIST_BYTES + 10), "more than"),
    ],
)
def test_a_router_answering_junk_is_a_clear_error(status: int, body: bytes, expected: str) -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await Response(body, status, media_type="application/json")(scope, receive, send)

    with serve_in_thread(app) as url, pytest.raises(hf_models.HfModelsError, match=expected):
        hf_models.fetch_models(url)


def test_the_list_is_fetched_once_per_ttl_and_nothing_answering_is_said(
    routed: str, router: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = hf_models.ModelList()
    before = len(router[1])
    assert listing.get() is listing.get() and listing.find("meta-llama/Llama-3.1-8B-Instruct")
    assert len(router[1]) == before + 1
    from tests.conftest import free_port

    monkeypatch.setenv(hf_models.ROUTER_VARIABLE, f"http://127.0.0.1:{free_port()}")
    with pytest.raises(hf_models.HfModelsError, match="does not answer"):
        listing.get()
    monkeypatch.setenv(hf_models.ROUTER_VARIABLE, "file:///etc/passwd")
    with pytest.raises(hf_models.HfModelsError, match="not an http"):
        hf_models.router_url()


# -- whose token ----------------------------------------------------------------------------


def test_the_operator_runs_on_this_machines_token(machine: list[int]) -> None:
    token, source = hf_models.choose_token("", None, machine_allowed=True)
    assert (token, source) == (MACHINE_TOKEN, "this machine's Hugging Face token")
    assert hf_models.choose_token(" hf_mine ", None, machine_allowed=True) == (
        "hf_mine",
        "your token",
    )


def test_a_visitor_never_gets_the_machines_token(machine: list[int]) -> None:
    with pytest.raises(hf_models.HfTokenError, match="paste a Hugging Face token"):
        hf_models.choose_token("", None, machine_allowed=False)
    assert hf_models.choose_token("", "hf_oauth_x", machine_allowed=False) == (
        "hf_oauth_x", "your Hugging Face sign-in",
    )  # fmt: skip
    with pytest.raises(hf_models.HfTokenError, match="not a Hugging Face token"):
        hf_models.choose_token("hf_a\nX-Evil: 1", None, machine_allowed=False)
    assert machine == []  # never even read


def test_the_card_says_whose_token_pays(machine: list[int]) -> None:
    from types import SimpleNamespace

    from openenv.harbor.web import run_card

    def ui(machine_token: bool) -> Any:
        return SimpleNamespace(
            service=SimpleNamespace(endpoints=Endpoints(machine_token=machine_token))
        )

    assert not run_card.machine_token_usable(ui(False)) and machine == []
    assert run_card.machine_token_usable(ui(True)) and machine == [1]
    assert "Using this machine's Hugging Face token" in run_card.token_note(True, False)
    assert "billed to the token you give" in run_card.token_note(False, False)
    assert "sign in" not in run_card.token_note(False, False)
    assert "sign in" in run_card.token_note(False, True)


@pytest.mark.parametrize(
    ("env", "machine_ok"),
    [
        ({"HOST": "127.0.0.1"}, True),
        ({"HOST": "0.0.0.0"}, False),
        ({"HOST": "127.0.0.1", "SPACE_ID": "me/harbor"}, False),
        ({"HOST": "0.0.0.0", "OPENENV_HARBOR_MACHINE_HF_TOKEN": "on"}, True),
    ],
)
def test_only_a_local_bind_lends_the_machines_token(
    env: dict[str, str], machine_ok: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HOST", "SPACE_ID", "OPENENV_HARBOR_MACHINE_HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    service = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
    create_harbor_app(service, enable_web=False)
    assert service.endpoints.machine_token is machine_ok
    service.close()


# -- a run ----------------------------------------------------------------------------------


@pytest.fixture
def service(routed: str) -> Iterator[HarborService]:
    svc = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints(allow_urls=False))
    yield svc
    svc.close()


def test_a_wrong_token_or_a_missing_one_starts_nothing(service: HarborService) -> None:
    with pytest.raises(EndpointError, match="answered 401"):
        service.endpoints.for_hf("meta-llama/Llama-3.1-8B-Instruct", "hf_wrong")
    with pytest.raises(ServiceError, match="needs a model and a Hugging Face token"):
        service.start(RunRequest(split="shipped", task_index=0, model="hf", model_name="a/b"))
    with pytest.raises(ServiceError, match="not a Hugging Face model id"):
        service.start(RunRequest(split="shipped", task_index=0, model="hf", model_name="../x",
                                 api_key=TOKEN))  # fmt: skip
    with pytest.raises(EndpointError, match="not a Hugging Face model id"):
        service.endpoints.for_hf("../etc", TOKEN)
    assert service.runs() == []


def test_a_run_on_hugging_face_uses_the_visitors_token_and_never_keeps_it(
    service: HarborService, router: tuple[str, list[str]]
) -> None:
    mini_swe_agent()
    index = next(c["index"] for c in service.tasks() if c["name"] == "hello-file")
    model = "Qwen/Qwen3-Coder-30B-A3B-Instruct:nebius"
    before = len(router[1])
    request = RunRequest(split="shipped", task_index=index, model="hf", model_name=model,
                         api_key=TOKEN, owner="visitor")  # fmt: skip
    queued = service.start(request)
    assert queued.model == {"kind": "hf", "model": model.split(":")[0], "provider": "nebius"}
    done = service.wait(queued.id, timeout_s=400)
    assert done.status == "ok", (done.reason, done.result and done.result.log_tail)
    assert done.result is not None and done.result.reward == 1.0
    assert done.model["kind"] == "hf" and done.model["provider"] == "nebius"
    assert done.model["url"] == f"{router[0]}/v1" and done.model["model"] == model.split(":")[0]
    calls = router[1][before:]
    assert calls and all(header == f"Bearer {TOKEN}" for header in calls)
    kept = [
        json.dumps(done.summary(), default=str),
        done.model_dump_json(),
        rollout_result(done).model_dump_json(),
        (service.capture(queued.id) or "").__repr__(),
        repr(done),
    ]
    assert not any(TOKEN in text for text in kept)


# -- in a browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hf_server(router: tuple[str, list[str]]) -> Iterator[str]:
    env = {hf_models.ROUTER_VARIABLE: router[0], "HF_TOKEN": MACHINE_TOKEN}
    with serve("tests.harbor_hf_apps:app", env=env, timeout=240) as url:
        yield url


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"harbor_hf_{name}.png"))


def test_a_visitor_picks_a_hugging_face_model_and_runs_a_task(
    page: Any, hf_server: str, router: tuple[str, list[str]]
) -> None:
    mini_swe_agent()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(hf_server + "/web/")
    page.wait_for_selector("#hb-cards .hb-card")
    page.click("#hb-cards .hb-card:has-text('hello-file')")
    page.click("#hb-run-this")
    page.wait_for_selector("#hb-rc-go")
    assert page.locator("#hb-rc-hf-box").is_hidden()  # no list fetched before it is asked for
    page.get_by_label("Hugging Face (Inference Providers)").check()
    page.wait_for_selector("#hb-rc-hf-box:visible")
    assert "billed to the token you give" in page.inner_text("#hb-rc-hf-note")
    page.click("#hb-rc-go")  # no model chosen yet: said, nothing started
    page.wait_for_selector("#hb-rc-msg .oe-error:has-text('Choose a Hugging Face model')")
    page.click("#hb-rc-hf-model input")
    page.keyboard.type("coder")
    page.wait_for_selector("[role=option]:has-text('Qwen3-Coder')")
    assert page.locator("[role=option]:has-text('Llama')").count() == 0  # filtered out
    _shot(page, "list_desktop")
    page.click("[role=option]:has-text('Qwen3-Coder')")
    page.click("#hb-rc-hf-provider input")
    page.click("[role=option]:has-text('nebius')")
    assert page.input_value("#hb-rc-hf-provider input").startswith("nebius")
    page.click("#hb-rc-go")  # no token: this public server never lends the machine's
    page.wait_for_selector("#hb-rc-msg .oe-error:has-text('paste a Hugging Face token')")
    page.click("#hb-rc-hf-token input")
    page.keyboard.type(TOKEN)
    _shot(page, "card_desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#hb-rc-hf-token").scroll_into_view_if_needed()
    _shot(page, "card_phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    before = len(router[1])
    page.click("#hb-rc-go")
    page.wait_for_selector("#hb-rn-view .hb-run")  # the Runs tab opens on the run
    page.wait_for_selector('#hb-rn-view .hb-run[data-status="ok"]', timeout=400_000)
    assert f"Bearer {TOKEN}" in router[1][before:]
    assert MACHINE_TOKEN not in "".join(router[1])
    view = page.inner_text("#hb-rn-view")
    assert "Hugging Face Inference Providers · Qwen/Qwen3-Coder-30B-A3B-Instruct" in view
    assert "provider nebius" in view
    assert TOKEN not in page.content()
    _shot(page, "run_desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    _shot(page, "run_phone")
    assert page.console_errors == [] and page.external_requests == []
