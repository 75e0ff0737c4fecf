"""The echo environment: two tools, reward 0.0, the documented ready message."""

from __future__ import annotations

from echo_env import CallToolAction, CallToolObservation, ListToolsAction
from echo_env.server.environment import EchoEnvironment

from openenv.testing import check_env


def test_reset_says_the_environment_is_ready() -> None:
    obs = EchoEnvironment().reset()
    assert obs.metadata["message"] == "Echo environment ready!"
    assert obs.reward == 0.0 and obs.done is False


def test_echo_message_returns_the_message_with_reward_zero() -> None:
    env = EchoEnvironment()
    env.reset()
    obs = env.step(CallToolAction(tool_name="echo_message", arguments={"message": "Hello!"}))
    assert isinstance(obs, CallToolObservation)
    assert obs.result["data"] == "Hello!"
    assert obs.reward == 0.0 and obs.done is False
    assert obs.metadata == {"step_count": 1}


def test_echo_with_length_counts_characters() -> None:
    env = EchoEnvironment()
    env.reset()
    obs = env.step(CallToolAction(tool_name="echo_with_length", arguments={"message": "héllo"}))
    assert obs.result["data"] == {"message": "héllo", "length": 5}


def test_the_two_documented_tools_are_listed() -> None:
    env = EchoEnvironment()
    env.reset()
    tools = env.step(ListToolsAction()).tools
    assert [(t.name, t.input_schema["required"]) for t in tools] == [
        ("echo_message", ["message"]),
        ("echo_with_length", ["message"]),
    ]


def test_a_missing_message_is_an_invalid_arguments_error() -> None:
    env = EchoEnvironment()
    env.reset()
    obs = env.step(CallToolAction(tool_name="echo_message", arguments={}))
    assert obs.error is not None and obs.error.error_type.value == "invalid_args"
    assert "message" in obs.error.message
    assert env.state.step_count == 1


def test_echo_honours_the_contract_while_calling_tools() -> None:
    def say(env, rng):
        text = rng.choice(["a", "bb", "ccc"])
        return {
            "type": "call_tool",
            "tool_name": "echo_with_length",
            "arguments": {"message": text},
        }

    check_env(EchoEnvironment(), actions=say, steps=10)
