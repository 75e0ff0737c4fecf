"""The chat environment over /ws with the typed client: token ids in, a tokenised history out.

The server's tokenizer is the shipped byte-level BPE (no download); the tests tokenise with the
same one, loaded on the client side the way a user would (``chat_env.load_tokenizer()``)."""

from __future__ import annotations

import json

import pytest
from chat_env import ChatAction, ChatEnv, load_tokenizer
from chat_env.models import MAX_ACTION_TOKENS
from chat_env.server.environment import ChatEnvironment
from chat_env.tokenizer import SHIPPED, decode_message, encode_message
from pydantic import ValidationError
from websockets.sync.client import connect

from openenv.core import InvalidAction
from openenv.core.rubrics import FnRubric
from tests.conftest import env_fixtures

url, env = env_fixtures("chat_env.server.app:app", ChatEnv)


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer()


def say(env, tok, role: str, content: str):
    return env.step(env.message_to_action({"role": role, "content": content}, tok))


def test_the_shipped_tokenizer_loads_offline_through_autotokenizer(tok):
    assert tok.name_or_path == SHIPPED and len(tok) == 1024
    ids = encode_message(tok, {"role": "user", "content": "Héllo 🙂, world!"})
    assert decode_message(tok, ids) == {"role": "user", "content": "Héllo 🙂, world!"}


def test_the_system_prompt_comes_first(env, tok):
    first = env.reset().observation
    assert first.messages == [{"role": "system", "content": "You are a helpful assistant."}]
    assert first.tokens == encode_message(tok, first.messages[0])
    own = env.reset(system_prompt="Answer in French.").observation
    assert own.messages[0] == {"role": "system", "content": "Answer in French."}
    assert env.reset(system_prompt="").observation.messages == []


def test_tokens_round_trip_and_the_history_grows(env, tok):
    start = env.reset().observation
    action = env.message_to_action({"role": "user", "content": "What is 2+2?"}, tok)
    first = env.step(action).observation
    assert first.messages[-1] == {"role": "user", "content": "What is 2+2?"}
    assert first.tokens == start.tokens + action.tokens
    raw = tok.encode("It is 4.", add_special_tokens=False)  # a model's generation, no template
    second = env.step(ChatAction(tokens=raw)).observation
    assert second.messages[-1] == {"role": "assistant", "content": "It is 4."}
    assert second.tokens == first.tokens + raw
    state = env.state()
    assert state.history_messages == second.messages and state.step_count == 2
    assert state.history_tokens == [start.tokens, action.tokens, raw]


def test_a_tensor_or_array_of_ids_is_accepted(env, tok):
    import numpy as np

    env.reset()
    ids = np.array([encode_message(tok, {"role": "user", "content": "Hi"})])  # shape (1, n)
    assert env.step(ChatAction(tokens=ids)).observation.messages[-1]["content"] == "Hi"


def test_the_rubric_rewards_a_finished_assistant_turn(env, tok):
    env.reset()
    asked = say(env, tok, "user", "Hello?")
    assert asked.reward == 0.0  # the prompt, not the policy's output
    answered = say(env, tok, "assistant", "Hello! How can I help?")
    assert answered.reward == pytest.approx(1.0)
    assert answered.observation.metadata["reward_components"] == {
        "non_empty": 1.0,
        "closed_turn": 1.0,
    }
    cut = env.step(ChatAction(tokens=tok.encode("I think", add_special_tokens=False)))
    assert cut.reward == pytest.approx(0.5)  # no end-of-turn token: cut off
    assert cut.observation.metadata["reward_components"]["closed_turn"] == 0.0


@pytest.mark.parametrize(
    ("tokens", "said"),
    [
        ([5, 1024], "outside the tokenizer's vocabulary (ids 0 to 1023)"),
        ([5, -1], "greater than or equal to 0"),
        (["five"], "valid integer"),
        ([1.5], "valid integer"),
        ("hello", "valid list"),
        ([], "at least 1 item"),
        ([5] * (MAX_ACTION_TOKENS + 1), f"at most {MAX_ACTION_TOKENS} items"),
    ],
)
def test_bad_tokens_are_refused_clearly_and_the_session_goes_on(url, tok, tokens, said):
    with connect(url.replace("http", "ws") + "/ws", max_size=2**24) as ws:
        ws.send(json.dumps({"type": "reset", "data": {}}))
        before = json.loads(ws.recv())["data"]["observation"]
        ws.send(json.dumps({"type": "step", "data": {"tokens": tokens}}))
        error = json.loads(ws.recv())
        assert error["type"] == "error" and error["data"]["code"] == "VALIDATION_ERROR"
        assert said in error["data"]["message"]
        ws.send(json.dumps({"type": "state"}))
        assert json.loads(ws.recv())["data"]["history_messages"] == before["messages"]
        good = encode_message(tok, {"role": "user", "content": "still here"})
        ws.send(json.dumps({"type": "step", "data": {"tokens": good}}))
        after = json.loads(ws.recv())["data"]["observation"]
        assert after["messages"][-1] == {"role": "user", "content": "still here"}


def test_an_out_of_vocabulary_id_is_a_typed_error_for_the_client(env):
    env.reset()
    with pytest.raises(InvalidAction, match="outside the tokenizer's vocabulary"):
        env.step(ChatAction(tokens=[99_999]))
    with pytest.raises(ValidationError):  # validated before it leaves the client, too
        ChatAction(tokens=["x"])
    assert len(env.state().history_messages) == 1


def test_the_history_budget_refuses_a_message_that_would_overflow(monkeypatch, tok):
    monkeypatch.setenv("CHAT_MAX_HISTORY_TOKENS", "40")
    environment = ChatEnvironment(tokenizer=tok)
    environment.reset()
    with pytest.raises(InvalidAction, match="over the limit of 40"):
        environment.step(ChatAction(tokens=[5] * 30))
    assert len(environment.state.history_messages) == 1


def test_the_episode_ends_after_max_turns(env, tok):
    env.reset(max_turns=2)
    assert not say(env, tok, "user", "one").done
    assert say(env, tok, "assistant", "two").done


def test_a_rubric_of_your_own_replaces_the_default(tok):
    count = FnRubric(lambda action, obs: len(action.tokens), name="length")
    environment = ChatEnvironment(tokenizer=tok, rubric=count)
    environment.reset()
    obs = environment.step(ChatAction(tokens=[5, 6, 7]))
    assert obs.reward == 3.0 and obs.metadata["reward_components"] == {"length": 3.0}


def token_count_rubric():
    """A rubric factory for $CHAT_RUBRIC (used below)."""
    return FnRubric(lambda action, obs: -len(action.tokens), name="brevity")


def test_a_server_names_its_rubric_with_an_environment_variable(monkeypatch, tok):
    monkeypatch.setenv("CHAT_RUBRIC", "tests.test_env_chat:token_count_rubric")
    environment = ChatEnvironment(tokenizer=tok)
    environment.reset()
    assert environment.step(ChatAction(tokens=[5, 6])).reward == -2.0
    monkeypatch.setenv("CHAT_RUBRIC", "none")
    plain = ChatEnvironment(tokenizer=tok)
    plain.reset()
    assert plain.step(ChatAction(tokens=[5, 6])).reward is None


def test_the_playground_draws_escaped_bubbles_and_offers_messages(tok):
    environment = ChatEnvironment(tokenizer=tok)
    environment.reset()
    environment.step(environment.message_to_action({"role": "user", "content": "<b>&\x00"}))
    markup = environment.render().markup
    assert markup.startswith("<svg") and "&lt;b&gt;&amp;\ufffd" in markup
    assert "<b>" not in markup and "user · " in markup
    labels = [choice.label for choice in environment.legal_actions()]
    assert labels[0] == "user: Hello! What is two plus two?"
