"""The Harbor server's core (openenv.harbor.service), without HTTP: tasks listed without their
answers, runs on the shipped scripted TEST engine (mini-swe-agent in the process sandbox, as a
served run is), the live capture, cancelling, and the bounds and refusals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from harbor_support import mini_swe_agent

from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.harbor import Endpoints, HarborService, RunRequest, ServiceError

SPLIT = "shipped"


@pytest.fixture
def service() -> Iterator[HarborService]:
    svc = HarborService({SPLIT: load_tasks(shipped_tasks())}, Endpoints(), max_queued=2)
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def mini() -> None:
    mini_swe_agent()


def index_of(service: HarborService, name: str) -> int:
    return next(c["index"] for c in service.tasks(SPLIT) if c["name"] == name)


def test_tasks_are_listed_with_their_settings_and_without_answers(service: HarborService) -> None:
    assert service.splits() == [{"name": SPLIT, "n_tasks": 2}]
    cards = service.tasks()
    assert {c["name"] for c in cards} == {"fix-add", "hello-file"}
    assert all("path" not in c for c in cards)  # the server's disk is not shown
    view = service.task_view(SPLIT, index_of(service, "hello-file"))
    assert view["instruction"] and view["has_solution"]
    paths = [f["path"] for f in view["files"]]
    assert "tests/test.sh" in paths and not any(p.startswith("solution/") for p in paths)
    assert "solution" not in view["settings"]
    assert "reward" in service.task_file(SPLIT, view["index"], "tests/test.sh")


def test_answer_fields_and_the_solution_are_never_shown(service: HarborService) -> None:
    index = index_of(service, "hello-file")
    task = service.task(SPLIT, index)
    task.config["metadata"]["gold_answer"] = "secret"
    try:
        assert "gold_answer" not in service.task_view(SPLIT, index)["metadata"]
        assert all("gold_answer" not in c["metadata"] for c in service.tasks())
    finally:
        del task.config["metadata"]["gold_answer"]
    with pytest.raises(ServiceError, match="environment/ and tests/ only"):
        service.task_file(SPLIT, index, "solution/solve.sh")
    with pytest.raises(ServiceError, match="no such file"):
        service.task_file(SPLIT, index, "tests/../../task.toml")


def test_bad_requests_are_refused_with_the_reason(service: HarborService) -> None:
    with pytest.raises(ServiceError, match="no split 'nope'"):
        service.start(RunRequest(split="nope", task_index=0))
    with pytest.raises(ServiceError, match="has 2 task"):
        service.start(RunRequest(split=SPLIT, task_index=7))
    with pytest.raises(ServiceError, match="unknown sandbox"):
        service.start(RunRequest(split=SPLIT, task_index=0, sandbox="moon"))
    with pytest.raises(ServiceError, match="unknown harness"):
        service.start(RunRequest(split=SPLIT, task_index=0, harness="nope", model="test"))
    with pytest.raises(ServiceError, match="without --llm-url"):
        service.start(RunRequest(split=SPLIT, task_index=0, model="server"))
    with pytest.raises(ServiceError, match="needs its URL"):
        service.start(RunRequest(split=SPLIT, task_index=0, model="url"))
    assert service.runs() == []


def test_a_run_on_the_test_engine_solves_the_task_and_keeps_its_trace(
    service: HarborService, mini: None
) -> None:
    index = index_of(service, "hello-file")
    record = service.start(RunRequest(split=SPLIT, task_index=index, model="test"))
    assert record.status == "queued" and record.task == "hello-file"
    done = service.wait(record.id, timeout_s=300)
    assert done.status == "ok", (done.reason, done.result and done.result.log_tail)
    assert done.result is not None and done.result.reward == 1.0
    assert done.result.trace is not None and done.result.trace.turns
    assert done.model["kind"] == "test" and done.model["label"] == "[TRAIN]"
    capture = service.capture(record.id)
    assert capture is not None and capture.nodes
    assert [r.id for r in service.runs("ok")] == [record.id]
    summary = service.runs()[0].summary()
    assert summary["reward"] == 1.0 and summary["n_turns"] == len(capture.nodes)


def test_a_run_can_be_cancelled_and_the_queue_is_bounded(
    service: HarborService, mini: None
) -> None:
    index = index_of(service, "hello-file")
    request = RunRequest(split=SPLIT, task_index=index, model="test", timeout_s=600)
    # Two workers and two places in the queue: a start past those is refused (how many got in
    # first depends on how fast the workers took the first ones: 2 to 4).
    records = []
    with pytest.raises(ServiceError, match="waiting already"):
        for _ in range(10):
            records.append(service.start(request))
    assert 2 <= len(records) <= 4
    for record in records:
        service.cancel(record.id)
    ended = [service.wait(r.id, timeout_s=120) for r in records]
    assert all(r.finished for r in ended), [r.status for r in ended]
    assert {r.status for r in ended} <= {"cancelled", "ok"}
    assert any(r.status == "cancelled" for r in ended)
