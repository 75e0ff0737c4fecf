"""The reference-style envs of ``tests/compat/ref_envs``, served by ``openenv==0.10.0`` in its
own virtualenv and driven over their real ``/ws`` by our ``GenericEnvClient``: what their
schemas and observations say, the rewards they give, how they refuse an illegal action (and go
on), and the helpers that run them (``tests/compat/ref_servers.py``). The playground's tests in
front of the same servers build on what these pin down.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from openenv.client import GenericEnvClient
from openenv.core import ClientError
from openenv.core.errors import ToolCallError
from tests.compat.ref_servers import MODULES, RefServer, ref_server, ref_servers_fixture

pytestmark = pytest.mark.compat

ONE_SESSION = {"REF_MAX_CONCURRENT_ENVS": "1"}
servers = ref_servers_fixture(
    *MODULES, lone_grid=("literal_grid", ONE_SESSION), doomed_grid=("literal_grid", {})
)

# module: (its action's fields, its observation's fields), as the module docstrings say.
FIELDS = {
    "literal_grid": ({"move"}, {"board", "position", "message"}),
    "frames": (
        {"action_id"},
        {"screen", "screen_shape", "legal_actions", "action_meanings", "balls_left"},
    ),
    "text": ({"message"}, {"prompt", "messages"}),
    "chess_fen": ({"move"}, {"fen", "legal_moves", "result"}),
    "mcp_tools": ({"type", "tool_name", "arguments"}, {"tool_name", "result", "error"}),
}
RESET_FIELDS = {**{m: obs for m, (_, obs) in FIELDS.items()}, "mcp_tools": {"metadata"}}
H, W = 24, 32
AFTER_E4 = "rnbqkbnr/1ppppppp/8/p7/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"  # black: a7a5


def client(server: RefServer) -> Any:
    return GenericEnvClient(base_url=server.url).sync()


def refused(env: Any, action: dict[str, Any]) -> ClientError:
    with pytest.raises(ClientError) as caught:
        env.step(action)
    return caught.value


# -- every env ------------------------------------------------------------------------------


@pytest.mark.parametrize("module", MODULES)
def test_the_schema_names_the_documented_fields(servers, module: str) -> None:
    schema = httpx.get(servers[module].url + "/schema").json()
    action, observation = FIELDS[module]
    assert action <= schema["action"]["properties"].keys()
    assert observation <= schema["observation"]["properties"].keys()


@pytest.mark.parametrize("module", MODULES)
def test_reset_returns_the_documented_observation(servers, module: str) -> None:
    with client(servers[module]) as env:
        first = env.reset(seed=1)
    assert RESET_FIELDS[module] <= first.observation.keys()
    assert (first.reward, first.done) == (0.0, False)


# -- literal_grid ---------------------------------------------------------------------------


def test_a_grid_walk_costs_a_tenth_per_step_and_pays_one_at_the_goal(servers) -> None:
    with client(servers["literal_grid"]) as env:
        start = env.reset()
        assert start.observation["board"] == "A....\n.....\n.....\n.....\n....G"
        results = [env.step({"move": m}) for m in ["down"] * 4 + ["right"] * 4]
    assert [r.reward for r in results] == pytest.approx([-0.1] * 7 + [1.0])
    assert [r.done for r in results] == [False] * 7 + [True]
    assert results[-1].observation["position"] == [4, 4]
    assert results[-1].observation["board"].splitlines()[-1] == "....A"


def test_a_move_into_the_wall_stays_put_and_still_costs(servers) -> None:
    with client(servers["literal_grid"]) as env:
        env.reset()
        bumped = env.step({"move": "up"})
    assert bumped.observation["position"] == [0, 0] and bumped.reward == pytest.approx(-0.1)


def test_a_move_outside_the_literal_is_refused_and_the_walk_goes_on(servers) -> None:
    with client(servers["literal_grid"]) as env:
        env.reset()
        assert refused(env, {"move": "diagonal"}).server_code == "VALIDATION_ERROR"
        assert env.step({"move": "down"}).observation["position"] == [1, 0]


def test_the_reference_refuses_a_move_with_pydantics_own_errors(servers) -> None:
    # The wire shape a playground has to read: "Invalid message" plus the field's errors.
    with connect(servers["literal_grid"].url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {}}))
        ws.recv(timeout=20)
        ws.send(json.dumps({"type": "step", "data": {"move": "diagonal"}}))
        reply = json.loads(ws.recv(timeout=20))
    assert reply["type"] == "error"
    data = reply["data"]
    assert (data["code"], data["message"]) == ("VALIDATION_ERROR", "Invalid message")
    assert [(e["loc"], e["type"]) for e in data["errors"]] == [(["move"], "literal_error")]


def test_two_sessions_walk_apart(servers) -> None:
    with client(servers["literal_grid"]) as one, client(servers["literal_grid"]) as two:
        one.reset()
        two.reset()
        one.step({"move": "down"})
        one.step({"move": "down"})
        assert two.step({"move": "right"}).observation["position"] == [0, 1]
        assert one.state()["step_count"] == 2


def test_a_server_allowing_one_session_refuses_a_second(servers) -> None:
    with client(servers["lone_grid"]) as first:
        first.reset()
        with client(servers["lone_grid"]) as second, pytest.raises(ClientError) as full:
            second.reset()
        assert full.value.server_code == "CAPACITY_REACHED"
        assert first.step({"move": "down"}).observation["position"] == [1, 0]


# -- frames ---------------------------------------------------------------------------------


def test_a_frame_is_a_flat_rgb_list_of_its_shape_with_named_actions(servers) -> None:
    with client(servers["frames"]) as env:
        obs = env.reset(seed=4).observation
    assert obs["screen_shape"] == [H, W, 3] and len(obs["screen"]) == H * W * 3
    assert all(0 <= v <= 255 for v in obs["screen"])
    pixels = [tuple(obs["screen"][i : i + 3]) for i in range(0, H * W * 3, 3)]
    assert pixels.count((255, 200, 40)) == 1  # the ball
    assert pixels[(H - 1) * W :].count((80, 160, 255)) == 6  # the paddle, on the bottom row
    assert (obs["legal_actions"], obs["action_meanings"]) == ([0, 1, 2], ["NOOP", "LEFT", "RIGHT"])


def play_catch(env: Any, seed: int) -> tuple[list[int], list[float]]:
    first = env.reset(seed=seed).observation["screen"]
    rewards = []
    while True:
        result = env.step({"action_id": 0})
        rewards.append(result.reward)
        if result.done:
            return first, rewards


def test_three_balls_each_pay_one_or_cost_one_and_a_seed_replays_them(servers) -> None:
    with client(servers["frames"]) as env:
        screen, rewards = play_catch(env, seed=4)
        again = play_catch(env, seed=4)
    assert len(rewards) == 3 * (H - 1)  # a ball takes H - 1 steps to reach the paddle
    scored = [r for r in rewards if r]
    assert len(scored) == 3 and set(scored) <= {1.0, -1.0}  # one catch or miss per ball
    assert (screen, rewards) == again


def test_an_action_id_outside_legal_actions_is_refused_and_the_game_goes_on(servers) -> None:
    with client(servers["frames"]) as env:
        env.reset(seed=4)
        error = refused(env, {"action_id": 7})
        assert error.server_code == "EXECUTION_ERROR"
        assert error.message == "action_id 7 is not one of the legal actions [0, 1, 2]"
        assert refused(env, {"action_id": "x"}).server_code == "VALIDATION_ERROR"
        assert env.step({"action_id": 2}).done is False
        assert env.state()["step_count"] == 1


# -- text -----------------------------------------------------------------------------------


def guess_by_halves(env: Any, seed: int) -> tuple[int, list[Any]]:
    """Find the secret by bisection, reading the replies; return it and the step results."""
    env.reset(seed=seed)
    low, high, results = 1, 20, []
    while True:
        guess = (low + high) // 2
        results.append(env.step({"message": str(guess)}))
        reply = results[-1].observation["messages"][-1]["content"]
        if reply == "Correct!":
            return guess, results
        low, high = (guess + 1, high) if reply == "Higher." else (low, guess - 1)


def test_guessing_the_number_pays_one_and_the_history_alternates(servers) -> None:
    with client(servers["text"]) as env:
        secret, results = guess_by_halves(env, seed=3)
        assert guess_by_halves(env, seed=3)[0] == secret  # the seed fixes the number
    assert [r.reward for r in results] == [0.0] * (len(results) - 1) + [1.0]
    assert [r.done for r in results] == [False] * (len(results) - 1) + [True]
    messages = results[-1].observation["messages"]
    assert [m["role"] for m in messages] == ["user"] + ["assistant", "user"] * len(results)
    assert messages[-2] == {"role": "assistant", "content": str(secret)}


def test_six_wrong_guesses_end_the_game_with_nothing(servers) -> None:
    with client(servers["text"]) as env:
        secret, _ = guess_by_halves(env, seed=5)
        env.reset(seed=5)
        wrong = [g for g in range(1, 21) if g != secret][:6]
        results = [env.step({"message": str(g)}) for g in wrong]
    assert [r.done for r in results] == [False] * 5 + [True]
    assert [r.reward for r in results] == [0.0] * 6
    assert f"it was {secret}" in results[-1].observation["messages"][-1]["content"]


def test_a_guess_that_is_not_a_number_from_1_to_20_is_refused_and_uses_no_guess(servers) -> None:
    with client(servers["text"]) as env:
        env.reset(seed=1)
        for bad in ("ten", "25", "0", "-3"):
            error = refused(env, {"message": bad})
            assert error.server_code == "EXECUTION_ERROR"
            assert error.message == f"{bad!r} is not a whole number from 1 to 20"
        after = env.step({"message": "10"})
    assert len(after.observation["messages"]) == 3  # the prompt, the guess, the reply


# -- chess_fen ------------------------------------------------------------------------------


def test_white_moves_and_black_answers_with_its_first_legal_move(servers) -> None:
    with client(servers["chess_fen"]) as env:
        start = env.reset().observation
        assert len(start["legal_moves"]) == 20 and start["legal_moves"] == sorted(
            start["legal_moves"]
        )
        moved = env.step({"move": "e2e4"})
    assert moved.observation["fen"] == AFTER_E4
    assert (moved.reward, moved.done, moved.observation["result"]) == (0.0, False, None)


def test_a_checkmate_by_white_pays_one(servers) -> None:
    with client(servers["chess_fen"]) as env:
        env.reset()
        results = [env.step({"move": m}) for m in ("e2e4", "d1h5", "f1c4", "h5f7")]
    mate = results[-1]
    assert (mate.reward, mate.done, mate.observation["result"]) == (1.0, True, "1-0")
    assert mate.observation["legal_moves"] == []
    assert [r.reward for r in results[:-1]] == [0.0] * 3


def test_an_illegal_or_malformed_move_is_refused_and_the_position_stays(servers) -> None:
    with client(servers["chess_fen"]) as env:
        env.reset()
        illegal = refused(env, {"move": "e2e5"})
        assert (illegal.server_code, illegal.message) == (
            "EXECUTION_ERROR",
            "e2e5 is not legal in this position",
        )
        assert refused(env, {"move": "zz"}).message == "'zz' is not a UCI move such as e2e4"
        assert env.step({"move": "e2e4"}).observation["fen"] == AFTER_E4


# -- mcp_tools ------------------------------------------------------------------------------


def test_the_tools_are_listed_and_called_over_the_session(servers) -> None:
    with client(servers["mcp_tools"]) as env:
        env.reset()
        tools = env.list_tools()
        assert [t.name for t in tools] == ["add", "remember", "recall"]
        assert tools[0].input_schema["properties"] == {
            "a": {"type": "integer"},
            "b": {"type": "integer"},
        }
        assert env.call_tool("add", a=2, b=3) == 5


def test_notes_belong_to_their_session_and_reset_clears_them(servers) -> None:
    with client(servers["mcp_tools"]) as one, client(servers["mcp_tools"]) as two:
        one.reset()
        two.reset()
        assert one.call_tool("remember", note="milk") == "noted (1)"
        assert two.call_tool("recall") == []
        assert one.call_tool("recall") == ["milk"]
        one.reset()
        assert one.call_tool("recall") == []


def test_a_call_tool_step_answers_with_the_tools_result_and_no_reward(servers) -> None:
    with client(servers["mcp_tools"]) as env:
        env.reset()
        result = env.step({"type": "call_tool", "tool_name": "add", "arguments": {"a": 2, "b": 3}})
    obs = result.observation
    assert (obs["tool_name"], obs["error"], obs["result"]["data"]) == ("add", None, 5)
    assert (result.reward, result.done) == (None, False)


def test_an_unknown_tool_is_an_observed_error_as_a_step_and_refused_as_a_call(servers) -> None:
    with client(servers["mcp_tools"]) as env:
        env.reset()
        step = env.step({"type": "call_tool", "tool_name": "nope", "arguments": {}})
        assert step.observation["error"] == {
            "error_type": "tool_not_found",
            "message": "Unknown tool: 'nope'",
        }
        with pytest.raises(ToolCallError) as call:
            env.call_tool("nope")
        assert call.value.server_code == "-32603" and "Unknown tool" in call.value.message
        assert env.call_tool("add", a=1, b=1) == 2


def test_an_action_that_is_no_tool_call_is_refused_and_tools_still_list(servers) -> None:
    with client(servers["mcp_tools"]) as env:
        env.reset()
        assert refused(env, {"message": "hi"}).server_code == "VALIDATION_ERROR"
        listed = env.step({"type": "list_tools"}).observation
    assert [t["name"] for t in listed["tools"]] == ["add", "remember", "recall"]


# -- the helpers ----------------------------------------------------------------------------


def test_a_server_taken_down_mid_episode_fails_the_next_call(servers) -> None:
    doomed = servers["doomed_grid"]
    with client(doomed) as env:
        env.reset()
        env.step({"move": "down"})
        doomed.stop()
        doomed.stop()  # a second stop is harmless
        assert doomed.process.poll() is not None
        with pytest.raises(ClientError):
            env.step({"move": "down"})


def test_a_server_that_cannot_start_says_why() -> None:
    with pytest.raises(RuntimeError, match="no_such_module"), ref_server("no_such_module"):
        pass
