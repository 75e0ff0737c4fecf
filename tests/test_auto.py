"""AutoEnv / AutoAction: every usual spelling of a name finds the env's typed client and Action."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from grid_world_env import GridWorldAction, GridWorldEnv

from openenv import AutoAction, AutoEnv
from openenv.runtime import EnvNotFound, LocalProcessProvider, app_of_package

API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}

ECHO_FILES = {
    "__init__.py": """
        from echo_env.client import EchoEnv
        from echo_env.models import EchoAction, EchoObservation
    """,
    "openenv.yaml": """
        spec_version: 1
        name: echo
        app: echo_env.server.app:app
    """,
    "models.py": """
        from openenv.core import Action, Observation, State

        class EchoAction(Action):
            message: str

        class EchoObservation(Observation):
            echoed: str = ""
    """,
    "client.py": """
        from echo_env.models import EchoAction, EchoObservation
        from openenv.client import EnvClient
        from openenv.core import State

        class EchoEnv(EnvClient[EchoAction, EchoObservation, State]):
            pass
    """,
    "server/__init__.py": "",
    "server/app.py": """
        from echo_env.models import EchoAction, EchoObservation
        from openenv.core import Environment, State
        from openenv.server import create_app

        class EchoEnvironment(Environment[EchoAction, EchoObservation, State]):
            def __init__(self):
                self._state = State()

            def reset(self, seed=None, episode_id=None):
                self._state = State(episode_id=episode_id)
                return EchoObservation(echoed="ready")

            def step(self, action):
                self._state.step_count += 1
                return EchoObservation(echoed=action.message, reward=float(len(action.message)))

            @property
            def state(self):
                return self._state

        app = create_app(EchoEnvironment)
    """,
}


@pytest.fixture(scope="module")
def echo_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A minimal ``echo_env`` package installed on sys.path for this module only."""
    root = tmp_path_factory.mktemp("site")
    for name, text in ECHO_FILES.items():
        path = root / "echo_env" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for name in [m for m in sys.modules if m == "echo_env" or m.startswith("echo_env.")]:
        del sys.modules[name]


@pytest.mark.parametrize("name", ["grid_world", "grid-world", "grid_world_env", "Grid-World-Env"])
def test_every_name_form_finds_the_grid_world(name: str):
    assert AutoEnv.get_env_class(name) is GridWorldEnv
    assert AutoAction.from_env(name) is GridWorldAction


@pytest.mark.parametrize("name", ["echo", "echo-env", "echo_env", "ECHO"])
def test_every_name_form_finds_an_installed_echo_package(echo_package: Path, name: str):
    client_cls = AutoEnv.get_env_class(name)
    assert client_cls.__name__ == "EchoEnv"
    assert AutoAction.from_env(name).__name__ == "EchoAction"
    assert "echo" in AutoEnv.list_environments()


def test_from_env_starts_the_env_locally_and_closing_stops_it(echo_package: Path):
    env_vars = {"PYTHONPATH": str(echo_package), **API_ONLY}
    env = AutoEnv.from_env("echo-env", env_vars=env_vars)
    assert type(env).__name__ == "EchoEnv"
    provider = env._provider
    with env.sync() as client:
        assert client.reset().observation.echoed == "ready"
        result = client.step(AutoAction.from_env("echo")(message="hello"))
        assert (result.observation.echoed, result.reward) == ("hello", 5.0)
    assert provider.base_url is None and not provider.is_alive()


async def test_from_env_with_base_url_connects_without_starting_anything():
    server = LocalProcessProvider(app_of_package("grid_world_env"), env_vars=API_ONLY)
    with server:
        env = AutoEnv.from_env("grid-world", base_url=server.base_url)
        assert isinstance(env, GridWorldEnv) and env._provider is None
        async with env:
            await env.reset(seed=0)
            result = await env.step_move("DOWN")
            assert (result.observation.x, result.observation.y) == (1, 0)
        assert server.is_alive()  # the client did not own it


def test_an_unknown_name_suggests_the_closest_installed_one():
    with pytest.raises(EnvNotFound, match="Did you mean grid_world"):
        AutoEnv.from_env("grid_wrld")


def test_a_space_id_without_hub_support_says_spaces_are_offline(monkeypatch):
    monkeypatch.setitem(sys.modules, "openenv.hub.spaces", None)  # as if not installed
    with pytest.raises(EnvNotFound, match="not reachable"):
        AutoEnv.from_env("openenv/grid_world")


def test_a_space_id_gives_the_typed_client_of_the_space(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    env = AutoEnv.from_env("Someone/grid_world")
    assert isinstance(env, GridWorldEnv) and env._provider is None
    assert env.base_url == "https://someone-grid-world.hf.space"
    assert env._headers["Authorization"] == "Bearer hf_test_token"
    local = AutoEnv.from_env("someone/grid-world-env", base_url="http://127.0.0.1:9")
    assert isinstance(local, GridWorldEnv) and local.base_url == "http://127.0.0.1:9"


def test_a_space_of_an_env_not_installed_is_not_downloaded():
    with pytest.raises(EnvNotFound, match="no installed environment package"):
        AutoEnv.from_env("someone/teleporter")


def test_auto_classes_are_factories_only():
    with pytest.raises(TypeError, match="from_env"):
        AutoEnv()
    with pytest.raises(TypeError, match="from_env"):
        AutoAction()
