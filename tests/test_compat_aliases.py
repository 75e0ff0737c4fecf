"""The names ``openenv`` 0.10's documentation uses, where ours differ: what each alias does.

The doc's own snippets run in test_seed_snippets.py; here is the behaviour behind them:
``openenv.core``'s lazy client names, ``openenv.core.env_server``, ``create_app`` given an
instance, ``from_docker_image(environment=...)``, ``openenv build -t`` and
``openenv validate --level static --skip-build``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli, served
from echo_env import EchoEnv

from openenv.client import GenericEnvClient
from openenv.core import Action, Environment, Observation, State

# -- import paths ------------------------------------------------------------------------------

LOADED_BY = """
import sys
import {module}
print(sorted({{m.split(".")[1] for m in sys.modules if m.startswith(("openenv.client",
      "openenv.server"))}}))
"""


@pytest.mark.parametrize("module", ["openenv.core", "openenv.core.env_server"])
def test_importing_core_loads_neither_client_nor_server(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOADED_BY.format(module=module)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_client_names_of_openenv_core_are_ours() -> None:
    import openenv.client
    import openenv.core
    from openenv.core import EnvClient, GenericEnvClient, MCPToolClient, SyncEnvClient

    assert EnvClient is openenv.client.EnvClient
    assert SyncEnvClient is openenv.client.SyncEnvClient
    assert (GenericEnvClient, MCPToolClient) == (
        openenv.client.GenericEnvClient,
        openenv.client.MCPToolClient,
    )
    assert "EnvClient" in dir(openenv.core)
    with pytest.raises(AttributeError, match="no attribute 'HTTPEnvServer'"):
        openenv.core.HTTPEnvServer  # noqa: B018


def test_env_server_re_exports_the_server_side_names() -> None:
    import openenv.core.env_server as env_server
    from openenv.core.env_server import (
        CallToolAction,
        Environment,
        MCPEnvironment,
        Message,
        Transform,
        create_app,
    )
    from openenv.core.environment import Environment as OurEnvironment
    from openenv.core.mcp import CallToolAction as OurCallToolAction
    from openenv.core.mcp import MCPEnvironment as OurMCPEnvironment
    from openenv.core.transforms import Transform as OurTransform

    assert Environment is OurEnvironment
    assert (CallToolAction, Transform) == (OurCallToolAction, OurTransform)
    # 0.10's constructor (a FastMCP server) and argument order, on ours:
    assert issubclass(MCPEnvironment, OurMCPEnvironment)
    assert create_app(Counter, Tick, Count, "counter").state.openenv.manifest.name == "counter"
    assert Message(role="user", content="hi") == {"role": "user", "content": "hi"}
    assert set(env_server.__all__) <= set(dir(env_server))


# -- create_app(instance) ----------------------------------------------------------------------


class Tick(Action):
    pass


class Count(Observation):
    count: int = 0


class Counter(Environment[Tick, Count, State]):
    """Counts steps from ``start``: a constructor argument a copy must keep."""

    def __init__(self, start: int = 0) -> None:
        self.start, self.count, self._state = start, start, State()

    def reset(self, seed: int | None = None, episode_id: str | None = None) -> Count:
        self.count, self._state = self.start, State(episode_id=episode_id or "episode")
        return Count(count=self.count)

    def step(self, action: Tick) -> Count:
        self.count += 1
        self._state.step_count += 1
        return Count(count=self.count, reward=0.0)

    @property
    def state(self) -> State:
        return self._state


def counts(client: Any, *calls: str) -> list[int]:
    return [getattr(client, call)(*([{}] if call == "step" else [])).observation["count"]
            for call in calls]  # fmt: skip


def test_an_instance_is_the_template_of_every_session() -> None:
    from openenv.core.env_server import create_app

    template = Counter(start=10)
    app = create_app(template, Tick, Count, enable_web=False)
    with (
        served(app) as url,
        GenericEnvClient(base_url=url).sync() as a,
        GenericEnvClient(base_url=url).sync() as b,
    ):
        assert counts(a, "reset", "step", "step") == [10, 11, 12]
        assert counts(b, "reset", "step") == [10, 11]  # its own copy, with start=10
        assert counts(a, "step") == [13]
    assert (template.count, template.episode_started) == (10, False)  # never stepped itself


def test_a_class_and_a_factory_still_make_one_environment_per_session() -> None:
    from openenv.server import create_app

    for source, first in ((Counter, 0), (lambda: Counter(start=5), 5)):
        app = create_app(source, Tick, Count, enable_web=False)
        with served(app) as url, GenericEnvClient(base_url=url).sync() as client:
            assert counts(client, "reset", "step") == [first, first + 1]


class Locked(Counter):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()  # cannot be copied


def test_an_instance_that_cannot_be_copied_is_refused_with_the_fix() -> None:
    from openenv.server import create_app

    with pytest.raises(TypeError, match=r"cannot be copied.*create_app\(Locked, \.\.\.\)"):
        create_app(Locked(), Tick, Count, enable_web=False)
    with pytest.raises(TypeError, match="an Environment class, a factory"):
        create_app("Counter", Tick, Count, enable_web=False)  # type: ignore[arg-type]


# -- from_docker_image(environment=...) ---------------------------------------------------------


class Recorded(Exception):
    """Raised by the fake Docker provider once it has recorded how it was made."""


def test_from_docker_image_takes_the_variables_as_environment(monkeypatch) -> None:
    made: list[dict[str, Any]] = []

    def fake_docker(image: str, **options: Any) -> Any:
        made.append({"image": image, **options})
        raise Recorded

    monkeypatch.setattr("openenv.runtime.docker_provider.DockerProvider", fake_docker)
    with pytest.raises(Recorded):
        EchoEnv.from_docker_image("echo-env:latest", environment={"MODE": "x"}).sync()
    assert made[0]["image"] == "echo-env:latest" and made[0]["env_vars"] == {"MODE": "x"}
    with pytest.raises(TypeError, match="env_vars or environment, not both"):
        EchoEnv.from_docker_image("echo-env:latest", environment={}, env_vars={})


# -- the CLI flags -----------------------------------------------------------------------------


def test_build_takes_the_tag_as_t(tmp_path: Path) -> None:
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock"}  # no engine
    done = run_cli(
        "build", str(ROOT / "envs" / "grid_world_env"), "-t", "seed-tag:1", "--out",
        str(tmp_path / "bundle"), cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"docker build -t seed-tag:1 {tmp_path / 'bundle'}" in done.stdout


@pytest.fixture
def broken_env(tmp_path: Path) -> Path:
    """A scaffolded package whose environment module raises when it is imported."""
    assert run_cli("init", "broken", cwd=tmp_path).returncode == 0
    environment = tmp_path / "broken_env" / "server" / "environment.py"
    environment.write_text(environment.read_text() + '\nraise RuntimeError("imported")\n')
    return tmp_path


def test_validate_level_static_runs_no_package_code(broken_env: Path) -> None:
    static = run_cli("validate", "broken_env", "--level", "static", "--skip-build", cwd=broken_env)
    assert static.returncode == 0, static.stdout + static.stderr
    assert "static.layout" in static.stdout and "Verdict: PASS" in static.stdout
    assert "check_env" not in static.stdout
    full = run_cli("validate", "broken_env", "--skip-build", cwd=broken_env)
    assert full.returncode == 1 and "imported" in full.stdout


def test_validate_refuses_an_unknown_level(tmp_path: Path) -> None:
    done = run_cli("validate", "--level", "thorough", cwd=tmp_path)
    assert done.returncode == 2 and "invalid choice: 'thorough'" in done.stderr
