"""Environment code written for ``openenv`` 0.10 runs on this framework unchanged.

The envs of ``tests/compat/ref_envs`` (written for this test against 0.10's public API, in the
layouts its env packages use: package mode with ``..models`` imports and an ``EnvClient``
subclass; a standalone folder with no ``__init__.py``, no manifest, a dashed name and the
legacy ``openenv_core`` path; a tool env named like ours, ``echo_env``, whose ``step`` answers
tool actions) are served by our ``openenv serve`` with the playground at ``/web``, and played
through their own typed client in the reference's virtualenv and through ours.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, run_cli, served, stop_process_group, wait_healthy

from openenv.core.environment import Environment
from openenv.core.folders import Shadowed, duplicates, make_importable
from openenv.core.registry import find, read_folder
from openenv.core.rubrics import Rubric
from openenv.core.types import Action, Observation, State

sys.path.insert(0, str(ROOT / "tests" / "compat"))
from refvenv import ensure_ref_venv

REF_ENVS = ROOT / "tests" / "compat" / "ref_envs"

# The imports of 0.10's env packages (their own app.py, environment, models and client files).
IMPORTS = [
    ("openenv.core.client_types", "StepResult"),
    ("openenv.core.env_client", "EnvClient"),
    ("openenv.core.env_server", "create_app Action Observation State Environment"),
    ("openenv.core.env_server.http_server", "create_app create_fastapi_app HTTPEnvServer"),
    ("openenv.core.env_server.types", "Action Observation State EnvironmentMetadata"),
    ("openenv.core.env_server.types", "CodeExecResult ConcurrencyConfig"),
    ("openenv.core.env_server.interfaces", "Environment Transform Message Action Observation"),
    ("openenv.core.env_server.interfaces", "State"),
    ("openenv.core.env_server.mcp_types", "CallToolAction CallToolObservation ListToolsAction"),
    ("openenv.core.env_server.mcp_types", "Tool JsonRpcRequest JsonRpcResponse"),
    ("openenv.core.env_server.mcp_environment", "MCPEnvironment"),
    ("openenv.core.env_server.serialization", "serialize_observation deserialize_action"),
    ("openenv.core.env_server.base_transforms", "CompositeTransform NullTransform"),
    ("openenv.core.env_server.exceptions", "SessionCapacityError EnvironmentFactoryError"),
    ("openenv.core.env_server.route_config", "GetEndpointConfig register_get_endpoints"),
    ("openenv.core.mcp_client", "MCPToolClient"),
    ("openenv.core.generic_client", "GenericEnvClient"),
    ("openenv.core.sync_client", "SyncEnvClient"),
    ("openenv.core", "EnvClient"),
    ("openenv_core.env_server.types", "State Action Observation"),
    ("openenv_core.env_server.interfaces", "Environment"),
    ("openenv_core.env_server.http_server", "create_app"),
    ("openenv_core.env_client", "EnvClient"),
    ("openenv_core.client_types", "StepResult"),
]


@pytest.mark.parametrize(("module", "names"), IMPORTS)
def test_the_import_paths_of_0_10_env_code_resolve(module: str, names: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loaded = importlib.import_module(module)
    for name in names.split():
        assert getattr(loaded, name) is not None, f"{module}.{name}"


def test_the_old_and_new_paths_give_the_same_classes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from openenv_core.env_server.types import State as OldState
    from openenv.core.client_types import StepResult as RefStepResult
    from openenv.core.env_server.types import State as NewState

    assert OldState is NewState is State
    assert RefStepResult is importlib.import_module("openenv.core.types").StepResult


# -- the Environment contract, as 0.10's env code uses it ----------------------------------------


class Poke(Action):
    pass


class Pokes(Observation):
    count: int = 0


class NoArgReset(Environment):
    """0.10 style: ``reset(self)``, a rubric given to ``super().__init__``, scored by hand."""

    def __init__(self) -> None:
        super().__init__(rubric=CountingRubric())
        self.count = 0

    def reset(self) -> Pokes:
        self._reset_rubric()
        self.count = 0
        return Pokes(count=self.rng.randint(0, 10**6))

    def step(self, action: Poke) -> Pokes:
        self.count += 1
        obs = Pokes(count=self.count)
        obs.reward = self._apply_rubric(action, obs)
        return obs

    @property
    def state(self) -> State:
        return State(step_count=self.count)


class CountingRubric(Rubric):
    """1.0 per call: a rubric run twice per step would show as 2 calls."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, action: object, observation: object) -> float:
        self.calls += 1
        return 1.0


def test_reset_without_parameters_gets_no_seed_yet_the_seed_still_counts() -> None:
    env = NoArgReset()
    first = env.reset(seed=7, episode_id="e")
    assert env.reset(seed=7).count == first.count
    assert env.step(Poke()).reward == 1.0
    assert env.rubric.calls == 1  # scored once: by hand, not again by the base class


def test_a_step_gets_only_the_keywords_it_declares() -> None:
    env = NoArgReset()
    env.reset()
    assert env.step(Poke(), timeout_s=5.0).count == 1  # 0.10's /step passes timeout_s


# -- served by `openenv serve`, played by their own clients --------------------------------------


def serve_folder(folder: Path, logs: Path) -> Iterator[tuple[str, Path]]:
    """``openenv serve FOLDER`` in a subprocess; yield its URL and the file its output goes to."""
    port = free_port()
    log = logs / f"{folder.name}.log"
    cmd = [sys.executable, "-m", "openenv.cli", "serve", str(folder), "--host", "127.0.0.1",
           "--port", str(port)]  # fmt: skip
    # PYTHONPATH: openenv_core comes from the checkout even where the editable install
    # predates it (a wheel ships it).
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            wait_healthy(f"http://127.0.0.1:{port}", proc)
            yield f"http://127.0.0.1:{port}", log
        finally:
            stop_process_group(proc)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="module")
def counter(logs: Path) -> Iterator[tuple[str, Path]]:
    yield from serve_folder(REF_ENVS / "counter_env", logs)


@pytest.fixture(scope="module")
def walk(logs: Path) -> Iterator[tuple[str, Path]]:
    yield from serve_folder(REF_ENVS / "standalone-walk", logs)


@pytest.fixture(scope="module")
def shout(logs: Path) -> Iterator[tuple[str, Path]]:
    yield from serve_folder(REF_ENVS / "echo_env", logs)


def test_each_layout_is_served_with_the_playground(counter, walk, shout) -> None:
    for (url, _), name in ((counter, "counter_env"), (walk, "walk"), (shout, "echo_env")):
        assert httpx.get(url + "/metadata", timeout=30).json()["name"] == name
        page = httpx.get(url + "/web/", timeout=60)
        assert page.status_code == 200 and "<html" in page.text.lower()


def test_a_folder_named_like_our_echo_env_is_served_and_the_clash_is_said(shout) -> None:
    url, log = shout
    said = log.read_text()
    assert "named like the package echo_env installed at" in said
    assert str(ROOT / "envs" / "echo_env") in said
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    tools = httpx.post(url + "/mcp", json=body, timeout=30).json()["result"]["tools"]
    assert [t["name"] for t in tools] == ["shout", "count"]  # the folder's, not ours


def test_the_package_mode_env_plays_through_its_own_client_on_ours(counter) -> None:
    make_importable(read_folder(REF_ENVS / "counter_env"))
    from counter_env import CounterAction, CounterEnv

    with CounterEnv(base_url=counter[0]).sync() as env:
        assert env.reset(seed=1).observation.count == 0
        for amount in (2, 2, 2, 2):
            env.step(CounterAction(amount=amount))
        last = env.step(CounterAction(amount=2))
        assert (last.observation.count, last.reward, last.done) == (10, 1.0, True)
        assert env.state().step_count == 5


def test_our_clients_play_the_standalone_and_the_tool_env(walk, shout) -> None:
    from openenv.client import GenericEnvClient, MCPToolClient

    with GenericEnvClient(base_url=walk[0]).sync() as env:
        assert env.reset(start=2).observation["position"] == 2
        end = env.step({"delta": 1})
        assert (end.observation["position"], end.reward, end.done) == (3, 1.0, True)
    with MCPToolClient(base_url=shout[0]).sync() as env:
        env.reset()
        assert env.call_tool("shout", text="hey") == "HEY"
        assert env.call_tool("count", text="hey") == 3


REFERENCE_PLAY = """
import json, sys
sys.path.insert(0, sys.argv[1])
from counter_env import CounterAction, CounterEnv
from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient
seen = {}
with CounterEnv(base_url=sys.argv[2]).sync() as env:
    env.reset()
    for _ in range(5):
        last = env.step(CounterAction(amount=2))
    seen["counter"] = [last.observation.count, last.reward, last.done]
with GenericEnvClient(base_url=sys.argv[3]).sync() as env:
    env.reset(start=1)
    env.step({"delta": 1})
    last = env.step({"delta": 1})
    seen["walk"] = [last.observation["position"], last.reward, last.done]
with MCPToolClient(base_url=sys.argv[4]).sync() as env:
    env.reset()
    seen["tools"] = [t.name for t in env.list_tools()]
    seen["shout"] = env.call_tool("shout", text="hi")
print(json.dumps(seen))
"""


@pytest.mark.compat
def test_the_reference_clients_play_all_three(counter, walk, shout) -> None:
    python = ensure_ref_venv()
    done = subprocess.run(
        [str(python), "-c", REFERENCE_PLAY, str(REF_ENVS), counter[0], walk[0], shout[0]],
        cwd=python.parent, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "counter": [10, 1.0, True],
        "walk": [3, 1.0, True],
        "tools": ["shout", "count"],
        "shout": "HI",
    }


# -- what a user is told -----------------------------------------------------------------------


def test_a_missing_dependency_is_advised_as_the_env_declares_it(tmp_path: Path) -> None:
    folder = tmp_path / "needy-env"
    shutil.copytree(REF_ENVS / "standalone-walk", folder)
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "needy"\nversion = "0.1.0"\n'
        'dependencies = ["openenv-core>=0.2", "from-nowhere-pkg>=1.2"]\n'
    )
    app = folder / "server" / "app.py"
    app.write_text("import from_nowhere_pkg\n" + app.read_text())
    done = run_cli("serve", str(folder), "--port", str(free_port()), cwd=ROOT, timeout=120)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert 'pip install "from-nowhere-pkg>=1.2"' in said
    assert "pip install server" not in said and "openenv-core" not in said


def test_a_0_10_manifest_warns_and_does_not_fail_validation() -> None:
    done = run_cli(
        "validate", str(REF_ENVS / "counter_env"), "--level", "static", "--skip-build", cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "static.manifest" in done.stdout and "lacks version, description" in done.stdout
    assert "Verdict: WARN" in done.stdout


def test_two_distributions_shipping_one_env_package_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = tmp_path / "openenv_echo_env-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: openenv-echo-env\nVersion: 0.1.0\n"
    )
    (info / "top_level.txt").write_text("echo_env\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert duplicates()["echo_env"] == ["openenv-echo-env", "openenv-playground"]
    with pytest.warns(Shadowed, match="echo_env is shipped by openenv-echo-env and openenv-pla"):
        assert find("echo").path == ROOT / "envs" / "echo_env"


# -- 0.10's other server entry points ------------------------------------------------------------


class Tally(Environment):
    """A counter on 0.10's Action/Observation, served by HTTPEnvServer and create_fastapi_app."""

    def reset(self) -> Pokes:
        self.count = 0
        return Pokes(count=0)

    def step(self, action: Poke) -> Pokes:
        self.count += 1
        return Pokes(count=self.count, done=self.count >= 2, reward=float(self.count))

    @property
    def state(self) -> State:
        return State(step_count=self.count)


def test_http_env_server_adds_the_routes_to_an_app_of_ones_own() -> None:
    from fastapi import FastAPI

    from openenv.client import GenericEnvClient
    from openenv.core.env_server import ConcurrencyConfig, HTTPEnvServer

    app = FastAPI()

    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    config = ConcurrencyConfig(max_concurrent_envs=2)
    HTTPEnvServer(Tally, Poke, Pokes, concurrency_config=config).register_routes(app)
    with served(app) as url:
        assert httpx.get(url + "/hello", timeout=10).json() == {"hello": "world"}
        assert httpx.get(url + "/health", timeout=10).json()["status"] == "healthy"
        with GenericEnvClient(base_url=url).sync() as env:
            env.reset()
            assert env.step({}).observation["count"] == 1
            assert env.step({}).done


def test_create_fastapi_app_serves_the_api_without_the_playground() -> None:
    from openenv.core.env_server.http_server import create_fastapi_app

    app = create_fastapi_app(Tally, Poke, Pokes, max_concurrent_envs=3)
    paths = {getattr(route, "path", None) for route in app.routes} | set(app.openapi()["paths"])
    assert {"/reset", "/step", "/schema", "/mcp", "/ws"} <= paths and "/web" not in paths
    assert app.state.openenv.manager.max_sessions == 3


REFERENCE_VALIDATE = """
import json, sys
from typer.testing import CliRunner
from openenv.cli.__main__ import app
for url in sys.argv[1:]:
    done = CliRunner().invoke(app, ["validate", "--url", url, "--json"])
    print(json.dumps({"url": url, "exit_code": done.exit_code, "report": json.loads(done.output)}))
"""


@pytest.mark.compat
def test_the_reference_validator_passes_the_served_folders(counter, walk, shout) -> None:
    python = ensure_ref_venv()
    urls = [counter[0], walk[0], shout[0]]
    done = subprocess.run(
        [str(python), "-c", REFERENCE_VALIDATE, *urls],
        cwd=python.parent, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for line in done.stdout.splitlines():
        result = json.loads(line)
        failed = [c["id"] for c in result["report"]["criteria"] if not c["passed"]]
        assert (result["exit_code"], failed) == (0, []), result["url"]
