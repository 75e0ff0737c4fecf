"""TRL's async GRPO harness worker (``trl.experimental.async_grpo.openenv_harness``, TRL >= 1.16)
on our framework, in its loop-owning mode, against a Harbor server on loopback.

TRL's ``_HarnessRolloutLoop`` is built through its own ``__init__`` (which calls our
``HarborSessionFactory`` with ``sampling=training_sampling(...)``), with a tokenizer and
queues it never uses in this mode; no vLLM, no CUDA. Its ``_run_session`` runs a rollout of
mini-swe-agent on the scripted TEST engine ([TRAIN] capture) in the process sandbox; what TRL
gets back is checked against the server's own capture: the engine's ids and logprobs, the
masks, the verifier's reward, TRL's temperature pinned on every model call. An agent that runs
past its time is flagged ``timed_out`` by TRL and still trained on its turns with the verifier's
reward. An eval-only capture stops TRL with its ``CaptureContractError``; closing a session
cancels its run; the example's factory builds from its command line.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import multiprocessing
import pickle
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from harbor_support import mini_swe_agent, shipped_server
from servers import ROOT, served

from openenv.core.harness import TrainableSession
from openenv.core.harness.capture.level import CaptureLevel
from openenv.core.harness.capture.upstream import training_sampling
from openenv.core.harness.engine import Engine, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.engine.tokenizer import build_tokenizer
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.core.llm_client import LLMResponse, ToolCall
from openenv.harbor import Endpoints, HarborService, open_endpoint
from openenv.harbor.app import create_harbor_app

if importlib.util.find_spec("trl") is None:
    pytest.skip("TRL is not installed (the trl extra)", allow_module_level=True)
if importlib.util.find_spec("trl.experimental.async_grpo.openenv_harness") is None:
    pytest.skip("the installed TRL has no async GRPO harness worker", allow_module_level=True)

from accelerate import PartialState  # TRL's own dependency
from datasets import Dataset
from harbor_env.client import HarborApiError
from harbor_env.sessions import HarborSessionFactory
from transformers import PreTrainedTokenizerFast
from trl.chat_template_utils import qwen3_template
from trl.experimental.async_grpo import openenv_harness

SPLIT = "shipped"
TASKS = load_tasks(shipped_tasks())
HELLO = next(i for i, t in enumerate(TASKS) if t.name == "hello-file")
TEMPERATURE = 0.8  # TRL's: the policy every model call of a rollout is sent with
AGENT_TIMEOUT_S = 40.0  # the slow agent's, which its command outlasts
PROMPT = [{"role": "user", "content": "a dataset row's prompt: the Harbor task's is used"}]


class RecordingFactory(HarborSessionFactory):
    """Our factory, keeping the sessions it made so a test can read what TRL got them to do."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sessions: list[Any] = []

    def create(self, task: Any = None, seed: int | None = None, episode_id: str | None = None):
        session = super().create(task, seed=seed, episode_id=episode_id)
        self.sessions.append(session)
        return session


@contextlib.contextmanager
def trl_loop(
    url: str,
    temperature: float = TEMPERATURE,
    session_factory: Any = None,
    harness_adapter: Any = None,
    **factory: Any,
) -> Iterator[Any]:
    """TRL's harness rollout loop, built by its own ``__init__``, on our factory at ``url``
    (``session_factory``: another; ``harness_adapter``: TRL samples each turn itself)."""
    PartialState()  # TRL logs through accelerate, which wants its state made
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=build_tokenizer())
    tokenizer.response_template = qwen3_template  # never parsed: the agent owns its loop
    mp = multiprocessing.get_context("spawn")
    loop = openenv_harness._HarnessRolloutLoop(
        harness_session_factory=session_factory
        or functools.partial(RecordingFactory, url, **factory),
        harness_adapter=harness_adapter,
        model_name="openenv/tiny-test-lm",
        dataset=Dataset.from_dict({"prompt": [PROMPT]}),
        reward_funcs=[],
        processing_class=tokenizer,
        eos_token_ids=[tokenizer.convert_tokens_to_ids("<|im_end|>")],
        rollout_buffer=mp.Queue(),
        model_version_value=mp.Value("i", 0),
        heartbeat_value=mp.Value("d", 0.0),
        failed_event=mp.Event(),
        exception_info_queue=mp.Queue(maxsize=1),
        metrics_queue=mp.Queue(),
        num_generations=2,
        max_inflight_tasks=2,
        temperature=temperature,
    )
    try:
        yield loop
    finally:
        loop._factory.close()
        loop._session_pool.shutdown(wait=True)
        loop._tool_pool.shutdown(wait=True)
        loop._loop.close()


@pytest.fixture(scope="module")
def mini() -> None:
    mini_swe_agent()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with shipped_server(SPLIT) as base:
        yield base


@pytest.fixture(scope="module")
def eval_server() -> Iterator[tuple[str, HarborService]]:
    """An endpoint captured at the text level (eval only), one worker, one place in the queue."""
    solve = (TASKS[HELLO].path / "solution" / "solve.sh").read_text(encoding="utf-8").strip()
    with contextlib.ExitStack() as stack:
        engine = stack.enter_context(
            serve_in_thread(create_engine_app(Engine(script=bash_policy([solve]))))
        )
        level = CaptureLevel(model="openenv/tiny-test-lm")  # text: eval only
        endpoint = open_endpoint("server", f"{engine}/v1", level=level)
        service = HarborService({SPLIT: TASKS}, Endpoints(endpoint), max_running=1, max_queued=4)
        stack.callback(service.close)
        yield stack.enter_context(served(create_harbor_app(service, enable_web=False))), service


@pytest.fixture(scope="module")
def trained(url: str, mini: None) -> dict[str, Any]:
    """One rollout through TRL's ``_run_session``: what TRL returned, and the server's capture."""
    with trl_loop(url) as loop:
        (rollout, metrics) = loop._run_session(PROMPT, HELLO)  # group_id is the seed
        factory = loop._factory
        (session,) = factory.sessions
        entries = session.fetch_proxy_trace()  # closed by TRL; the run's trace stays downloadable
    run_id = session.result.run_id
    capture = httpx.get(f"{url}/harbor_env/runs/{run_id}/capture.json", timeout=60).json()
    kept = [n for n in capture["nodes"] if n["status"] == "kept"]
    return {"rollout": rollout, "metrics": metrics, "factory": factory, "session": session,
            "entries": entries, "nodes": kept}  # fmt: skip


def test_trl_gets_the_engines_tokens_logprobs_and_masks(trained: dict[str, Any]) -> None:
    completion, completion_ids, sequences, n_tools, n_failures, reward = trained["rollout"]
    nodes = trained["nodes"]
    assert len(nodes) >= 2 and trained["metrics"]["turns"] == len(nodes)
    # The completion ids are the engine's sampled ids, every turn in order.
    assert completion_ids == [i for n in nodes for i in n["completion_token_ids"]]
    # One training row: each turn's prompt extends the row so far, its completion is trained
    # (mask 1) with the engine's logprobs; the prompt tokens between are context (mask 0).
    (row,) = sequences
    last = nodes[-1]
    assert row.input_ids == last["prompt_token_ids"] + last["completion_token_ids"]
    trained_at = []
    for node in nodes:
        start, ids = len(node["prompt_token_ids"]), node["completion_token_ids"]
        assert row.input_ids[start : start + len(ids)] == ids
        assert row.old_log_probs[start : start + len(ids)] == node["per_token_logps"]
        trained_at += range(start, start + len(ids))
    assert [i for i, m in enumerate(row.completion_mask) if m] == trained_at
    assert trained["metrics"]["tally"]["fork"] == 0
    # The reward is the verifier's; the transcript ends with the agent's last reply.
    assert reward == 1.0 and trained["session"].verify([]).env_reward == 1.0
    assert completion[-1] == {"role": "assistant", "content": last["reply"]["content"]}
    assert n_tools == sum(len(n["reply"].get("tool_calls") or []) for n in nodes) and n_tools >= 1
    assert n_failures == 0


def test_the_factory_got_trls_policy_and_the_seed_chose_the_task(
    trained: dict[str, Any],
) -> None:
    factory, session = trained["factory"], trained["session"]
    assert factory.sampling == training_sampling({"temperature": TEMPERATURE, "top_k": 0})
    assert factory.sampling["top_k"] == -1 and factory.sampling["temperature"] == TEMPERATURE
    for node in trained["nodes"]:  # pinned on every call the agent made, over its own ask
        assert node["sampling_params"] == factory.sampling
    assert session.task.task_name == "hello-file" and session.result.task_name == "hello-file"
    assert isinstance(session, TrainableSession)
    assert session.initial_messages()[0]["content"] == session.task.instruction
    assert session.call_tool("bash", {}).error  # the agent owns its tools
    entries = trained["entries"]
    assert entries[-1]["response"]["choices"][0]["message"]["role"] == "assistant"
    assert all(e["loss_mask"].count(1) == len(e["completion_token_ids"]) for e in entries)


@pytest.fixture(scope="module")
def slow_server() -> Iterator[str]:
    """An engine whose agent runs commands that outlast any agent timeout ([TRAIN])."""
    with contextlib.ExitStack() as stack:
        engine = stack.enter_context(
            # mini-swe-agent stops a command at 30 s of its own: five of them outlast any
            # agent timeout here, whenever the agent got going
            serve_in_thread(create_engine_app(Engine(script=bash_policy(["sleep 600"] * 5))))
        )
        endpoint = open_endpoint("server", f"{engine}/v1")  # probed: the engine is [TRAIN]
        service = HarborService({SPLIT: TASKS}, Endpoints(endpoint))
        stack.callback(service.close)
        yield stack.enter_context(served(create_harbor_app(service, enable_web=False)))


def test_an_agent_past_its_time_is_flagged_and_still_trained(slow_server: str, mini: None):
    # long enough for mini-swe-agent to start and make its first call on a loaded machine
    with trl_loop(slow_server, agent_timeout_s=AGENT_TIMEOUT_S) as loop:
        rollout, metrics = loop._run_session(PROMPT, HELLO)
        (session,) = loop._factory.sessions
    completion, completion_ids, sequences, n_tools, _, reward = rollout
    result = session.result
    assert result.timed_out and result.exception_type == "AgentTimeoutError"
    assert not result.ok and f"ran past its {AGENT_TIMEOUT_S:g} s" in (result.error or "")
    assert metrics is not None and metrics["loop_exhausted"] is True  # TRL's timed_out
    assert reward == 0.0 == result.reward  # the verifier judged what the agent left
    assert metrics["turns"] >= 1 and sequences and completion_ids  # its turns still train
    assert n_tools >= 1 and completion[-1]["role"] == "assistant"


def test_an_eval_only_capture_stops_trl_with_its_contract_error(
    eval_server: tuple[str, HarborService], mini: None
) -> None:
    url, _ = eval_server
    with trl_loop(url) as loop, pytest.raises(openenv_harness.CaptureContractError) as refused:
        loop._run_session(PROMPT, HELLO)
    assert "eval only" in str(refused.value)
    assert "--return-tokens-as-token-ids" in str(refused.value)
    (session,) = loop._factory.sessions
    assert session.result.ok and session.result.reward == 1.0  # the run itself went fine


def test_closing_a_session_cancels_its_run_and_a_group_shares_its_task(
    eval_server: tuple[str, HarborService],
) -> None:
    url, service = eval_server
    gate = threading.Event()
    service._pool.submit(gate.wait)  # the one worker is busy: the runs stay queued
    factory = HarborSessionFactory(url)
    before = {r.id for r in service.runs()}
    try:
        group = [factory.create(PROMPT, seed=7, episode_id=f"g{n}") for n in range(2)]
        runs = wait_for(service, lambda r: r.id not in before, 2)
        assert {r.task for r in runs} == {TASKS[7 % len(TASKS)].name}  # one task per seed
        for session in group:
            session.close()
            session.close()  # twice is fine
        cancelled = threading.Event()
        for _ in range(2400):  # the server hears the dropped sockets (within 120 s)
            if all(service._cancel[r.id].is_set() for r in runs):
                break
            cancelled.wait(0.05)
    finally:
        gate.set()
        factory.close()
    for run in runs:  # cancelled while queued: no agent ever ran
        assert service.wait(run.id, timeout_s=120).status == "cancelled"
    with pytest.raises(RuntimeError, match="closed"):
        group[0].fetch_training_trace()


def wait_for(service: HarborService, match: Any, count: int, timeout_s: float = 120.0) -> list:
    """The first ``count`` of the service's runs that ``match``, polled until ``timeout_s``."""
    done = threading.Event()
    for _ in range(int(timeout_s / 0.05)):
        found = [r for r in service.runs() if match(r)]
        if len(found) >= count:
            return found
        done.wait(0.05)
    raise AssertionError(f"timed out waiting for {count} runs")


def test_bad_arguments_fail_at_the_factory_with_the_reason(url: str) -> None:
    with pytest.raises(ValueError, match=r"top_p=1\.0"):
        HarborSessionFactory(url, sampling={"temperature": 1.0, "top_p": 0.9})
    with pytest.raises(HarborApiError, match="no split 'nope'"):
        HarborSessionFactory(url, split="nope")
    with pytest.raises(ValueError, match="has 2 task"):
        HarborSessionFactory(url, task_indices=[5])
    factory = HarborSessionFactory(url)
    try:
        with pytest.raises(ValueError, match="give a seed"):
            factory.create(PROMPT)
    finally:
        factory.close()
    # TRL's worker starts its loop in a spawned process: the factory must pickle.
    partial = functools.partial(HarborSessionFactory, url, harness="mini-swe-agent")
    assert pickle.loads(pickle.dumps(partial)).args == (url,)


def test_a_reply_round_trips_through_the_reference_shapes() -> None:
    reply = LLMResponse("ok", [ToolCall(id="c1", name="bash", args={"command": "ls"})])
    message = reply.to_message_dict()
    assert message["tool_calls"][0]["function"]["arguments"] == '{"command": "ls"}'
    assert LLMResponse.from_message(message) == reply
    broken = {"tool_calls": [{"function": {"name": "bash", "arguments": "{nope"}}]}
    with pytest.raises(ValueError, match="not JSON"):
        LLMResponse.from_message(broken)


def test_the_example_builds_its_factory_from_the_command_line(url: str) -> None:
    spec = importlib.util.spec_from_file_location(
        "harbor_trl_async", ROOT / "examples" / "harbor_trl" / "async_grpo.py"
    )
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--harbor-url", url, "--dry-run"]) == 0
