"""The τ²-bench env over the wire: a typed client solves airline and retail tasks to reward 1.0
against the scripted customer, a visitor-style customer drives the scripted agent (seat=user),
the same seed replays the same call, bad input gets a clear observation and the call goes on,
the LLM customer and judge go through the operator's endpoint (a local stand-in here) and say
so when there is none."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI
from tau2_env import Tau2Action, Tau2Env
from tau2_env.server import domains
from tau2_env.server.environment import Tau2Environment
from tau2_env.server.oracle import reference_plan

from openenv.testing import check_task_source
from tests.conftest import env_fixtures
from tests.servers import served

url, env = env_fixtures("tau2_env.server.app:app", Tau2Env)


def play(env, plan: list[dict]) -> list:
    results = []
    for action in plan:
        results.append(
            env.step(Tau2Action(tool_name=action["tool_name"], arguments=action["arguments"]))
        )
    return results


def task(domain: str, task_id: str) -> dict:
    return domains.load(domain).task(task_id)


def test_the_reference_solution_of_an_airline_task_scores_one(env):
    first = env.reset(domain="airline", task_id="7")
    obs = first.observation
    assert obs.domain == "airline" and obs.task_id == "7" and obs.user_simulator == "scripted"
    assert obs.messages[0]["role"] == "user" and "XEHM4B" in obs.messages[0]["content"]
    assert "airline agent" in obs.policy
    results = play(env, reference_plan(task("airline", "7")))
    assert [r.done for r in results] == [False] * (len(results) - 1) + [True]
    assert all(r.reward == 0.0 for r in results[:-1])
    last = results[-1]
    assert last.reward == 1.0 and "that's all" in last.observation.customer_said.lower()
    components = last.observation.metadata["reward_components"]
    assert components == {"database": 1.0, "communicated": 1.0, "task_success": 1.0}
    state = env.state()
    assert state.conversation_over and state.changed_records == {
        "reservations": ["59XX6W", "XEHM4B"]
    }


def test_ending_without_acting_scores_zero_and_names_what_failed(env):
    env.reset(domain="airline", task_id="7")
    result = env.step(
        Tau2Action(tool_name="send_message", arguments={"content": "Is there anything else?"})
    )
    assert result.done and result.reward == 0.0
    assert result.observation.metadata["reward_components"]["database"] == 0.0
    assert result.observation.metadata["details"]["not_communicated"] == ["1628"]


def test_a_retail_exchange_scores_one(env):
    env.reset(domain="retail", task_id="0")
    results = play(env, reference_plan(task("retail", "0")))
    assert results[-1].done and results[-1].reward == 1.0
    assert "exchange requested" in results[4].observation.result["data"]


def test_the_same_seed_draws_the_same_call_and_rewards(env):
    runs = []
    for _ in range(2):
        obs = env.reset(seed=11, domain="retail").observation
        plan = reference_plan(task("retail", obs.task_id))
        runs.append((obs.task_id, obs.messages, [r.reward for r in play(env, plan)]))
    assert runs[0] == runs[1] and runs[0][2][-1] > 0
    assert env.reset(seed=12, domain="retail").observation.task_id != runs[0][0]


def test_bad_input_gets_a_clear_observation_and_the_call_goes_on(env):
    env.reset(domain="airline", task_id="7")
    cases = [
        ("cancel_everything", {}, "tool_not_found", "unknown tool"),
        ("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": "May 20"},
         "invalid_args", "date"),
        ("get_order_details", {"order_id": "#W1"}, "execution_error", "not a airline tool"),
        ("get_reservation_details", {"reservation_id": "NOPE00"}, "execution_error",
         "Reservation NOPE00 not found"),
        ("calculate", {"expression": "9**9**9**9"}, "execution_error", "not supported"),
        ("send_message", {"content": "x" * 5000}, "invalid_args", "content"),
    ]  # fmt: skip
    for name, arguments, kind, words in cases:
        result = env.step(Tau2Action(tool_name=name, arguments=arguments))
        error = result.observation.error
        assert error is not None and error.error_type == kind and words in error.message, name
        assert not result.done
    ok = env.step(Tau2Action(tool_name="calculate", arguments={"expression": "(1628 - 28) / 2"}))
    assert ok.observation.error is None and ok.observation.result["data"] == "800.0"
    with pytest.raises(Exception, match="no task '999'"):
        env.reset(domain="airline", task_id="999")


def test_the_visitor_can_play_the_customer_against_the_scripted_agent(env):
    obs = env.reset(domain="airline", task_id="7", seat="user").observation
    assert obs.seat == "user" and obs.user_simulator == "human"
    assert "XEHM4B" in obs.scenario and obs.messages == [
        {"role": "assistant", "content": "Hi! How can I help you today?"}
    ]
    refused = env.step(
        Tau2Action(tool_name="cancel_reservation", arguments={"reservation_id": "XEHM4B"})
    )
    assert "you play the customer" in refused.observation.error.message
    say = lambda text: env.step(Tau2Action(tool_name="send_message", arguments={"content": text}))  # noqa: E731
    answer = say("Hi, please cancel XEHM4B and 59XX6W. My user id is daiki_muller_1116.")
    asked = 0
    while "Shall I proceed" in answer.observation.agent_said:
        asked += 1
        answer = say("Yes, go ahead.")
    assert asked == 3 and "1628" in answer.observation.agent_said
    end = say("That's all, thanks! ###STOP###")
    assert end.done and end.reward == 1.0


def test_sessions_never_share_a_database(url):
    with Tau2Env(base_url=url).sync() as a, Tau2Env(base_url=url).sync() as b:
        a.reset(domain="airline", task_id="7")
        b.reset(domain="airline", task_id="7")
        a.step(Tau2Action(tool_name="cancel_reservation", arguments={"reservation_id": "59XX6W"}))
        seen = b.step(
            Tau2Action(tool_name="get_reservation_details", arguments={"reservation_id": "59XX6W"})
        )
        assert '"status": null' in seen.observation.result["data"]
    assert "status" not in domains.load("airline").module._base_db()["reservations"]["59XX6W"]


# -- the operator's model: simulated customer and judge (in process, local stand-in) ----------


def fake_model(replies: list[str]) -> FastAPI:
    """A local stand-in of an OpenAI-compatible endpoint answering ``replies`` in turn."""
    app = FastAPI()
    app.state.seen = []

    @app.post("/v1/chat/completions")
    def complete(body: dict) -> dict:
        app.state.seen.append(body["messages"])
        reply = replies[min(len(app.state.seen) - 1, len(replies) - 1)]
        return {"choices": [{"message": {"role": "assistant", "content": reply}}]}

    return app


def test_the_llm_customer_speaks_through_the_operator_endpoint(monkeypatch):
    model = fake_model(["Hello, I want to cancel XEHM4B.", "Thanks, bye! ###STOP###"])
    with served(model) as base:
        monkeypatch.setenv("OPENENV_LLM_USER_URL", f"{base}/v1")
        environment = Tau2Environment()
        obs = environment.reset(domain="airline", task_id="7", user="llm")
        assert (
            obs.user_simulator == "llm"
            and obs.messages[0]["content"] == "Hello, I want to cancel XEHM4B."
        )
        done = environment.step(
            Tau2Action(tool_name="send_message", arguments={"content": "Done."})
        )
    system = model.state.seen[0][0]
    assert system["role"] == "system" and "XEHM4B" in system["content"]
    assert model.state.seen[1][-1] == {"role": "user", "content": "Done."}  # roles flipped
    assert done.done and done.customer_said == "Thanks, bye!" and done.reward == 0.0


def test_a_failing_model_leaves_the_message_undelivered_and_the_call_open(monkeypatch):
    model = fake_model(["Hello, I want to cancel XEHM4B."])
    with served(model) as base:
        monkeypatch.setenv("OPENENV_LLM_USER_URL", f"{base}/v1")
        environment = Tau2Environment()
        environment.reset(domain="airline", task_id="7", user="llm")
    # the endpoint is gone now: the next customer reply cannot be had
    result = environment.step(Tau2Action(tool_name="send_message", arguments={"content": "Hi"}))
    assert result.error is not None and "not delivered" in result.error.message
    assert not result.done and [m["role"] for m in result.messages] == ["user"]


def test_without_a_model_the_llm_customer_and_the_judge_say_so(monkeypatch):
    for name in ("OPENENV_LLM_URL", "OPENENV_LLM_USER_URL", "OPENENV_LLM_JUDGE_URL"):
        monkeypatch.delenv(name, raising=False)
    environment = Tau2Environment()
    obs = environment.reset(domain="airline", task_id="7", user="llm")
    assert obs.done and obs.reward is None and "OPENENV_LLM_URL" in obs.metadata["message"]
    # retail task 2 has a natural-language assertion: not judged, and the reward says what counted
    environment.reset(domain="retail", task_id="2")
    assert task("retail", "2")["evaluation_criteria"]["nl_assertions"]
    for action in reference_plan(task("retail", "2")):
        last = environment.step(Tau2Action(**action))
    assert last.done and "nl_assertions" in last.metadata["not_judged"]
    assert "nl_assertions" not in last.metadata["reward_components"]


def test_a_judge_grades_the_assertions(monkeypatch):
    with served(fake_model(["1: yes"])) as base:
        monkeypatch.setenv("OPENENV_LLM_JUDGE_URL", f"{base}/v1")
        environment = Tau2Environment()
        environment.reset(domain="retail", task_id="2")
        for action in reference_plan(task("retail", "2")):
            last = environment.step(Tau2Action(**action))
    assert last.reward == 1.0 and last.metadata["reward_components"]["nl_assertions"] == 1.0


def test_the_stage_draws_the_chat_the_database_and_the_reward():
    environment = Tau2Environment()
    environment.reset(domain="airline", task_id="7")
    for action in reference_plan(task("airline", "7")):
        environment.step(Tau2Action(**action))
    svg = environment.render().markup
    for words in (
        "XEHM4B",
        "cancel_reservation",
        "reservations/59XX6W",
        "Reward 1",
        "✓ database 1",
    ):
        assert words in svg, words


def test_a_tau2_data_folder_replaces_the_shipped_data(monkeypatch, tmp_path):
    shipped = domains.load("airline").module._base_db()
    folder = tmp_path / "tau2" / "domains" / "airline"
    folder.mkdir(parents=True)
    small = {
        "flights": {},
        "users": {"emma_kim_9957": shipped["users"]["emma_kim_9957"]},
        "reservations": {"EHGLP3": shipped["reservations"]["EHGLP3"]},
    }
    (folder / "db.json").write_text(json.dumps(small))
    (folder / "policy.md").write_text("# Airline policy (test copy)\nCancel when asked.")
    custom = {
        "id": "cancel-1",
        "user_scenario": {"instructions": {"reason_for_call": "Cancel EHGLP3.", "known_info": ""}},
        "evaluation_criteria": {
            "actions": [{"name": "cancel_reservation", "arguments": {"reservation_id": "EHGLP3"}}],
            "reward_basis": ["DB"],
        },
    }
    (folder / "tasks.json").write_text(json.dumps([custom]))
    monkeypatch.setenv("TAU2_DATA_DIR", str(tmp_path))
    environment = Tau2Environment()
    obs = environment.reset(domain="airline")
    assert obs.task_id == "cancel-1" and obs.policy.startswith("# Airline policy (test copy)")
    absent = environment.step(
        Tau2Action(tool_name="get_user_details", arguments={"user_id": "mia_li_3668"})
    )
    assert (
        "User mia_li_3668 not found" in absent.error.message
    )  # the small database, not the package's
    for action in reference_plan(custom):
        last = environment.step(Tau2Action(**action))
    assert last.done and last.reward == 1.0
    with pytest.raises(Exception, match="TAU2_DATA_DIR has no retail domain"):
        environment.reset(domain="retail")


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_domain_task_it_names(env):
    obs = env.reset(task_source="starter.jsonl", task_index=0).observation
    assert (obs.domain, obs.task_id) == ("airline", "7") and "XEHM4B" in obs.messages[0]["content"]
    state = env.state()
    assert (state.task_source, state.task_index) == ("starter.jsonl", 0)
    results = play(env, reference_plan(task("airline", "7")))
    assert results[-1].done and results[-1].reward == 1.0  # the domain's own task scores it
    obs = env.reset(domain="airline", task_source="starter.jsonl", task_index=3).observation
    assert (obs.domain, obs.task_id) == ("retail", "0")  # the row names its domain


BAD_ROWS = [  # each refused naming the row, with these words
    ({"domain": "airline", "task_id": "999"}, r"row 0 of bad.jsonl: no task '999' in airline"),
    ({"domain": "telecom", "task_id": "1"}, r"row 0 of bad.jsonl: Input should be 'airline'"),
    ({"task_id": 7}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task_id": "x" * 21}, r"row 0 of bad.jsonl: String should have at most 20"),
    ({"action": "cancel_reservation"}, r"row 0 of bad.jsonl has no column for 'task_id'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from tau2_env.server.environment import TASK_ROWS, row_task

    check_task_source(
        Tau2Environment,
        TASK_ROWS,
        rows=6,
        gives="task",
        replaced={"task_id": "7"},
        read=lambda picked: row_task(picked, "airline"),
        bad_rows=BAD_ROWS,
    )
