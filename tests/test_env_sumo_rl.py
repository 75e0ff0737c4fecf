"""SUMO traffic signals over the wire: phases by name, sumo-rl's reward, exact replays, one SUMO
process per session, and refused actions that leave the session as it was."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import time
from pathlib import Path

import pytest
from websockets.sync.client import connect

if any(importlib.util.find_spec(name) is None for name in ("sumo", "traci", "sumo_rl")):
    pytest.skip("sumo_rl_env needs its extra (eclipse-sumo, sumo-rl)", allow_module_level=True)

from sumo_rl_env import SumoAction, SumoRLEnv
from sumo_rl_env.server import drawing
from sumo_rl_env.server.app import DEFAULT_MAX_SESSIONS, app
from sumo_rl_env.server.environment import SumoEnvironment
from sumo_rl_env.server.network import Link, load

from openenv.core import ClientError
from tests.conftest import env_fixtures

url, env = env_fixtures("sumo_rl_env.server.app:app", SumoRLEnv)
SINGLE_LANES = ["n_t_0", "n_t_1", "w_t_0", "w_t_1"]


def play(env, seed: int, actions: list[dict], **options) -> list:
    """Observations and rewards of an episode that takes ``actions`` from ``reset(seed)``."""
    first = env.reset(seed=seed, **options)
    trace = [first.observation.model_dump()]
    for action in actions:
        result = env.step(SumoAction(**action))
        trace.append((result.observation.model_dump(), result.reward, result.done))
    return trace


def test_the_first_observation_names_the_light_its_phases_and_lanes(env):
    obs = env.reset(seed=1).observation
    assert obs.time == obs.sim_time == 0.0
    assert obs.phase == {"t": 0}
    (light,) = obs.traffic_lights
    assert light.id == "t" and light.phase_names == ["N-S green", "E-W green"]
    assert light.lanes == SINGLE_LANES and list(obs.density) == SINGLE_LANES
    # sumo-rl's vector: phase one-hot (2), min_green (1), density (4), queue (4).
    assert obs.observation_shape == [11] and len(obs.observation) == 11
    assert obs.observation[:3] == [1.0, 0.0, 0.0]
    assert obs.action_mask == [0, 1]


def test_a_step_runs_delta_time_and_pays_sumo_rls_waiting_time_difference(env):
    env.reset(seed=1)
    for _ in range(10):
        result = env.step(SumoAction(phase_id=0))
    obs = result.observation
    assert obs.time == 50.0 and obs.vehicles > 0
    parts, weights = obs.metadata["reward_components"], obs.metadata["reward_weights"]
    assert set(parts) == {"diff_waiting_time", "waiting_time", "queue", "pressure", "average_speed"}
    assert weights["diff_waiting_time"] == 1.0 and sum(weights.values()) == 1.0
    assert result.reward == pytest.approx(parts["diff_waiting_time"])
    # E-W is red all along: its queue and waiting time grow, so the reward is negative.
    assert parts["queue"] < 0 and parts["waiting_time"] < 0 and result.reward < 0
    assert sum(obs.queue[lane] for lane in ("w_t_0", "w_t_1")) > 0
    assert obs.waiting_time == pytest.approx(-100 * parts["waiting_time"])


def test_switching_goes_through_yellow_and_min_green_holds_a_new_request(env):
    env.reset(seed=1)
    early = env.step(SumoAction(phase_id=1)).observation  # 0 s of green < 2 + 5 s
    assert early.phase == {"t": 0} and "waits for min_green" in early.message
    assert not early.traffic_lights[0].min_green
    env.step(SumoAction(phase_id=0))
    switched = env.step(SumoAction(phase_id=1)).observation
    assert switched.phase == {"t": 1} and "switching to E-W green" in switched.message
    assert switched.traffic_lights[0].signal == "rrGG"  # 2 s of yellow, then 3 s of green
    held = env.step(SumoAction(phase_id=0)).observation
    assert held.phase == {"t": 1} and "waits for min_green" in held.message
    assert env.step(SumoAction(phase_id=0)).observation.phase == {"t": 0}


def test_a_seed_replays_its_episode_exactly(env):
    rng = random.Random(5)
    actions = [{"phase_id": rng.randrange(2)} for _ in range(30)]
    first = play(env, 42, actions)
    assert play(env, 42, actions) == first
    other = play(env, 43, actions)
    assert [o[0]["vehicles"] for o in other[1:]] != [o[0]["vehicles"] for o in first[1:]]


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"phase_id": 2}, "light t has green phases 0 to 1"),
        ({"phase_id": -1}, "got -1"),
        ({"phase_id": 0, "ts_id": "nowhere"}, "unknown traffic light 'nowhere'"),
        ({"phases": {"t": 5}}, "got 5"),
        ({}, "give phase_id"),
        ({"phase_id": 0, "phases": {"t": 0}}, "not both"),
    ],
)
def test_an_unknown_light_or_phase_is_refused_and_nothing_runs(env, action, reason):
    env.reset(seed=3)
    env.step(SumoAction(phase_id=1))
    before = env.state()
    with pytest.raises(ClientError) as refused:
        env.step(SumoAction(**action))
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert reason in refused.value.message
    assert env.state() == before
    assert env.step(SumoAction(phase_id=0)).observation.time == 10.0


def test_an_action_of_the_wrong_type_is_refused_and_the_session_goes_on(url):
    with connect(url.replace("http", "ws", 1) + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 3}}))
        assert json.loads(ws.recv())["type"] == "observation"
        for bad in ({"phase_id": "north"}, {"phases": ["t", 1]}, {"phase_id": 1.5}):
            ws.send(json.dumps({"type": "step", "data": bad}))
            answer = json.loads(ws.recv())
            assert answer["type"] == "error"
            assert answer["data"]["code"] == "VALIDATION_ERROR"
            assert "phase" in answer["data"]["message"]
        ws.send(json.dumps({"type": "step", "data": {"phase_id": 1}}))
        answer = json.loads(ws.recv())
        assert answer["type"] == "observation"
        assert answer["data"]["observation"]["time"] == 5.0


def test_the_grid_has_four_lights_each_set_by_name(env):
    obs = env.reset(seed=2, net="grid2x2").observation
    assert sorted(obs.phase) == ["1", "2", "5", "6"]
    names = obs.traffic_lights[0].phase_names
    assert names == ["N-S green", "N-S left", "E-W green", "E-W left"]
    assert len(obs.density) == 32 and len(obs.observation) == 4 * (4 + 1 + 16)
    env.step(SumoAction(phase_id=0))
    env.step(SumoAction(phase_id=0))  # now every light is past min_green
    obs = env.step(SumoAction(phases={"1": 2, "6": 1})).observation
    assert obs.phase == {"1": 2, "2": 0, "5": 0, "6": 1}
    obs = env.step(SumoAction(phase_id=3, ts_id="2")).observation
    assert obs.phase["2"] == 3 and obs.phase["1"] == 2  # not yet past min_green: held
    with pytest.raises(ClientError, match="unknown traffic light 't'"):
        env.step(SumoAction(phases={"t": 0}))


def test_the_episode_ends_after_num_seconds_and_then_needs_a_reset(env):
    env.reset(seed=0, num_seconds=12)
    assert [env.step(SumoAction(phase_id=0)).done for _ in range(3)] == [False, False, True]
    with pytest.raises(ClientError, match="reset"):
        env.step(SumoAction(phase_id=0))
    assert env.reset(seed=0).observation.time == 0.0


def test_reward_fn_chooses_the_component_that_is_the_reward(env):
    env.reset(seed=1, reward_fn="queue")
    for _ in range(6):
        result = env.step(SumoAction(phase_id=0))
    parts = result.observation.metadata["reward_components"]
    assert result.observation.metadata["reward_weights"]["queue"] == 1.0
    assert result.reward == parts["queue"] < 0


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"delta_time": 2, "yellow_time": 2}, "longer than yellow_time"),
        ({"net": "manhattan"}, "net"),
        ({"num_seconds": 10**9}, "num_seconds"),
    ],
)
def test_bad_reset_options_are_refused(env, options, reason):
    with pytest.raises(ClientError, match=reason):
        env.reset(seed=0, **options)
    assert env.reset(seed=0).observation.time == 0.0


def sumo_children() -> set[int]:
    """SUMO processes started by this test process (the servers run in its threads)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            name = fields[0].split("(", 1)[1]
        except (OSError, IndexError):
            continue
        if name == "sumo" and int(fields[1].split()[1]) == os.getpid():
            found.add(int(stat.parent.name))
    return found


def wait_for(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_each_session_runs_its_own_sumo_and_closing_it_ends_the_process(url):
    before = sumo_children()
    with SumoRLEnv(base_url=url).sync() as a, SumoRLEnv(base_url=url).sync() as b:
        a.reset(seed=1)
        b.reset(seed=1)
        ours = sumo_children() - before
        assert len(ours) == 2
        a.step(SumoAction(phase_id=1))
        assert b.state().step_count == 0  # two visitors, two simulations
    assert wait_for(lambda: not (sumo_children() & ours))


def test_the_server_bounds_the_sessions_it_runs():
    assert app.state.openenv.manager.max_sessions == int(
        os.environ.get("MAX_CONCURRENT_ENVS") or DEFAULT_MAX_SESSIONS
    )


# -- in process: the fast path, the buttons, the drawing ----------------------------------


def test_subscriptions_give_exactly_the_episode_sumo_rls_own_calls_give():
    def episode(subscribed: bool) -> list[str]:
        sim, rng = SumoEnvironment(subscribed=subscribed), random.Random(9)
        trace = [sim.reset(seed=4, net="grid2x2").model_dump_json()]
        for _ in range(40):
            action = SumoAction(**rng.choice(sim.legal_actions()).action)
            trace.append(sim.step(action).model_dump_json())
        trace.append(sim.render().markup)
        sim.close()
        return trace

    assert episode(True) == episode(False)


def test_one_button_per_green_phase_named_by_what_it_lets_through():
    sim = SumoEnvironment()
    sim.reset(seed=0)
    buttons = sim.legal_actions()
    assert [(b.label, b.action, b.key) for b in buttons] == [
        ("N-S green", {"phase_id": 0}, "1"),
        ("E-W green", {"phase_id": 1}, "2"),
    ]
    sim.reset(seed=0, net="grid2x2")
    labels = [b.label for b in sim.legal_actions()]
    assert len(labels) == 4 * 4 + 4
    assert "Light 5: E-W left" in labels and "All lights: N-S green" in labels
    sim.close()


def test_the_drawing_shows_lanes_vehicles_and_signal_heads():
    sim = SumoEnvironment()
    sim.reset(seed=0)
    for _ in range(8):
        sim.step(SumoAction(phase_id=0))
    markup = sim.render().markup
    assert markup.startswith("<svg") and 'width="560"' in markup
    assert markup.count("<title>lane ") == 8
    assert "traffic light t: GGrr" in markup
    assert markup.count(f'r="{drawing.VEHICLE_RADIUS}"') == len(sim._sim.vehicles())
    sim.close()


def test_the_drawing_is_bounded_and_escapes_what_the_network_names():
    network = load("single-intersection")
    evil = "<script>alert(1)</script>"
    link = Link(0, evil, 0, (150.0, 150.0), (0.0, -1.0), "N-S", "s")
    hostile = type(network)(
        **{**network.__dict__, "lanes": ((evil, 3.2, ((0.0, 0.0), (1.0, 1.0))),)},
    )
    hostile = type(network)(**{**hostile.__dict__, "links": {evil: (link,)}})
    crowd = [(150.0, 150.0, 1.0)] * (drawing.MAX_VEHICLES + 500)
    markup = drawing.draw(hostile, crowd, {evil: "G" + evil}, caption=evil)
    assert "<script" not in markup and "&lt;script&gt;" in markup
    assert markup.count("<circle") <= drawing.MAX_VEHICLES + 10
    assert len(markup) < 200_000


def test_the_longest_queue_oracle_meets_the_service_level_a_fixed_time_plan_misses():
    from sumo_rl_env.server.oracle import LIMIT_S, ORACLE

    from openenv.validation.play import oracle_chooser, play

    local = SumoEnvironment()
    options = dict(ORACLE.reset_options)

    def fixed_time(env, obs, i):  # the two phases in turn, 10 s each (its best period here)
        return {"phase_id": (i // 2) % 2}

    try:
        best = play(local, "oracle", "oracle", oracle_chooser(ORACLE), seed=4, options=options,
                    budget=ORACLE.max_steps)  # fmt: skip
        fixed = play(local, "fixed", "fixed", fixed_time, seed=4, options=options,
                     budget=ORACLE.max_steps)  # fmt: skip
    finally:
        local.close()
    assert best.done and len(best.steps) == 200 and ORACLE.score_episode(best) == 1.0
    waits = [s.observation["waiting_time"] for s in best.steps]
    assert sum(waits) / len(waits) <= LIMIT_S
    assert fixed.done and ORACLE.score_episode(fixed) < 0.7
