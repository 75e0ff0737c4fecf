"""Rubrics: containers, hooks, trajectories, the LLM judge, and rewards explained on the wire."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest
from reward_apps import CoinAction, CoinEnvironment, CoinObservation

from openenv.core.rubrics import (
    FnRubric,
    Gate,
    LLMJudge,
    Rubric,
    RubricDict,
    RubricList,
    Sequential,
    TrajectoryRubric,
    WeightedSum,
)
from openenv.testing import EnvCheckError, check_env


def const(value: float, name: str = "const") -> Rubric:
    return FnRubric(lambda a, o: value, name=name)


def obs(done: bool = False) -> SimpleNamespace:
    return SimpleNamespace(done=done, reward=None, metadata={})


class Async(Rubric):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    async def forward(self, action, observation) -> float:
        await asyncio.sleep(0)
        return self.value


def test_gate_blocks_below_threshold_and_passes_at_it() -> None:
    assert Gate(const(0.4), threshold=0.5)(None, obs()) == 0.0
    assert Gate(const(0.5), threshold=0.5)(None, obs()) == 0.5


def test_weighted_sum_adds_weighted_scores() -> None:
    rubric = WeightedSum({"a": const(1.0), "b": const(0.5)}, {"a": 0.3, "b": 0.7})
    assert rubric(None, obs()) == pytest.approx(0.3 + 0.35)
    assert rubric.weights == {"a": 0.3, "b": 0.7}


def test_weighted_sum_can_require_weights_summing_to_one() -> None:
    with pytest.raises(ValueError, match=r"sum to 1\.0"):
        WeightedSum([const(1.0), const(1.0)], [0.5, 0.6], normalized=True)
    with pytest.raises(ValueError, match="2 rubrics but 1 weights"):
        WeightedSum([const(1.0), const(1.0)], [1.0])


def test_sequential_stops_at_the_first_zero() -> None:
    calls: list[str] = []

    def tracked(value: float, name: str) -> Rubric:
        return FnRubric(lambda a, o: calls.append(name) or value, name=name)

    assert Sequential(tracked(1.0, "a"), tracked(0.0, "b"), tracked(1.0, "c"))(None, obs()) == 0.0
    assert calls == ["a", "b"]
    assert Sequential(const(1.0), const(0.7))(None, obs()) == 0.7


def test_async_children_make_the_container_awaitable() -> None:
    rubric = WeightedSum({"sync": const(1.0), "async": Async(0.5)}, {"sync": 1.0, "async": 2.0})
    result = rubric(None, obs())
    assert asyncio.run(result) == pytest.approx(2.0)
    assert asyncio.run(Sequential(Async(1.0), const(0.0), Async(1.0))(None, obs())) == 0.0


def test_children_are_registered_and_named() -> None:
    class Outer(Rubric):
        def __init__(self) -> None:
            super().__init__()
            self.gate = Gate(const(1.0, "inner"), threshold=0.2)
            self.games = RubricList([const(0.1), const(0.2)])
            self.by_name = RubricDict({"x": const(0.3)})

        def forward(self, action, observation) -> float:
            return self.gate(action, observation)

    outer = Outer()
    names = [name for name, _ in outer.named_rubrics()]
    assert names == ["gate", "gate.rubric", "games", "games.0", "games.1", "by_name", "by_name.x"]
    assert outer.get_rubric("by_name.x")(None, obs()) == 0.3
    assert outer.state_dict()["gate.threshold"] == 0.2
    outer.load_state_dict({"gate.threshold": 0.9})
    assert outer.gate.threshold == 0.9
    with pytest.raises(KeyError, match="no child 'nope'"):
        outer.get_rubric("gate.nope")


def test_hooks_see_every_call_and_can_be_removed() -> None:
    rubric = const(0.25)
    seen: list[tuple] = []
    pre = rubric.register_forward_pre_hook(lambda r, a, o: seen.append(("pre", a)))
    post = rubric.register_forward_hook(lambda r, a, o, s: seen.append(("post", s)))
    rubric("act", obs())
    pre.remove()
    post.remove()
    rubric("act", obs())
    assert seen == [("pre", "act"), ("post", 0.25)]


class WinLoss(TrajectoryRubric):
    def score_trajectory(self, trajectory) -> float:
        return 1.0 if trajectory[-1][0] == "win" else -1.0


def test_trajectory_rubric_discounts_the_final_reward() -> None:
    rubric = WinLoss(gamma=0.9)
    assert [rubric(a, obs(done=a == "win")) for a in ("x", "y", "z", "win")] == [0, 0, 0, 1.0]
    # r_t = gamma^(T-1-t) * R_final, T = 4
    assert rubric.step_rewards() == pytest.approx([0.729, 0.81, 0.9, 1.0])
    rubric.reset()
    assert rubric.trajectory == [] and rubric.step_rewards() == []


class _JudgeHandler(BaseHTTPRequestHandler):
    replies: list[str] = []
    requests: list[dict] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        auth = self.headers["Authorization"]
        type(self).requests.append({"path": self.path, "auth": auth, **body})
        reply = type(self).replies.pop(0)
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def judge_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _JudgeHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", _JudgeHandler
    server.shutdown()


def test_llm_judge_scores_with_an_openai_compatible_endpoint(judge_server) -> None:
    url, handler = judge_server
    handler.replies[:] = ["Score: 0.8", "I refuse to grade", "7"]
    judge = LLMJudge("Grade {action} given {observation}", base_url=url, model="m", api_key="k")
    assert asyncio.run(judge("hello", "world")) == 0.8
    assert handler.requests[0]["path"] == "/v1/chat/completions"
    assert handler.requests[0]["auth"] == "Bearer k"
    assert handler.requests[0]["messages"][-1]["content"] == "Grade hello given world"
    assert asyncio.run(judge("a", "b")) == 0.0 and "no score" in judge.last_error
    assert asyncio.run(judge("a", "b")) == 1.0  # clamped into [0, 1]


def test_llm_judge_survives_an_unreachable_endpoint() -> None:
    judge = LLMJudge("{action}", base_url="http://127.0.0.1:9/v1", model="m", default_score=0.1)
    assert asyncio.run(judge("a", "b")) == 0.1
    assert "judge call failed" in judge.last_error


# -- an environment whose reward comes from a rubric (tests/reward_apps.py) ----------------


def test_reward_equals_the_sum_of_its_components_over_a_seeded_episode() -> None:
    env = CoinEnvironment()
    env.reset(seed=3)
    for i in range(10):
        o = env.step(CoinAction(guess="heads" if i % 2 else "tails"))
        comps, weights = o.metadata["reward_components"], o.metadata["reward_weights"]
        assert set(comps) == {"correct", "step_cost"}
        assert o.reward == pytest.approx(sum(comps[k] * weights[k] for k in comps))
        assert o.reward in (pytest.approx(0.95), pytest.approx(-0.05))
    check_env(CoinEnvironment())


def test_a_transform_that_changes_the_reward_shows_up_as_a_component() -> None:
    env = CoinEnvironment(scale=2.0)
    env.reset(seed=1)
    o = env.step(CoinAction(guess="heads"))
    comps = o.metadata["reward_components"]
    assert "transform:reward_scale" in comps
    total = sum(v * o.metadata["reward_weights"][k] for k, v in comps.items())
    assert o.reward == pytest.approx(total)
    check_env(CoinEnvironment(scale=2.0))


def test_check_env_catches_a_reward_that_disagrees_with_its_components() -> None:
    class Liar(CoinEnvironment):
        """Hand-writes components (no rubric) that do not add up to its reward."""

        def __init__(self) -> None:
            super().__init__()
            self.rubric = None

        def step(self, action: CoinAction) -> CoinObservation:
            o = super().step(action)
            o.reward = 1.0
            o.metadata = {"reward_components": {"made_up": 5.0}}
            return o

    with pytest.raises(EnvCheckError, match="weighted total"):
        check_env(Liar())
