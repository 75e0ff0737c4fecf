"""The documentation of ``openenv`` 0.10 runs as pasted, against our servers.

The code blocks of the doc pages that cover what we implement are extracted verbatim by
tests/compat/extract_seed_snippets.py into tests/compat/seed_snippets/ (committed: CI has no
copy of the docs; where the docs are, ``$OPENENV_SEED_DOCS`` or /work/shared/seed, the copy is
checked against a fresh extraction). Every snippet is run (``PY``, ``SHELL``), checked against
our models (``FIELDS``: field listings), or listed in ``NOT_RUN`` with the reason.

A snippet's text is never edited. The substitutions, all of them where it lands on our side:

- ``http://localhost:8000``, ``http://localhost:7860``, ``https://openenv-echo-env.hf.space``
  become the URL of our server of the page's environment (``PAGE_ENV``, served in this
  process); in a shell snippet, ``localhost:<port>`` is the server an earlier command of it
  started on that port;
- a Docker image is our server of the environment it names (``IMAGES``), configured as the
  image says (``IMAGE_ENV``): ``from_docker_image`` gets a fake Docker provider
  (``FakeDocker``) that hands out that server and records the image, its variables and its
  stop; ``docker run IMAGE`` starts a local server process of that environment with the
  command's ``-e`` variables (the Docker lane runs real images: tests/test_docker_lane.py);
- a server command's ``--host 0.0.0.0 --port 8000`` becomes loopback and a free port (or
  ``$HOST`` / ``$PORT`` for one without flags); ``python``, ``uvicorn`` are this interpreter's;
  servers the test starts serve the API only (``ENABLE_WEB_INTERFACE=0``);
- the chess server plays the agent as white unless asked otherwise (``WhiteAgentChess``), and
  the app pattern runs in a package made of the type-safety block (``PACKAGE``).

Python snippets run in this process as ``python snippet.py`` runs them (``__name__`` is
``"__main__"``, the repository root on ``sys.path``, as the doc's "from the OpenEnv root"); one
with top-level ``await`` runs as a notebook cell does, the whole cell in an event loop. What a
snippet prints is checked against what the doc says it prints. Shell snippets run command by
command (``Shell``); a command we cannot run here is skipped with its reason (``skip_reason``).

Snippets that rely on the client answering plain sync code (``env.reset()`` without ``await``
or ``.sync()``, ``with Client(...)``): dm-control__using-the-client__L4077.py and
dm-control__switching-environments__L4096.py.

(Over 400 lines: the substitution table, the two runners and the list of snippets not run are
one account of the docs; every snippet must be in exactly one of them, checked together.)
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import inspect
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from chess_env.server.environment import ChessEnvironment
from conftest import ROOT, free_port, served, server_process
from fake_hub import HF_TOKEN, hub_environ

from openenv.client import GenericEnvClient
from openenv.runtime.base import Provider
from openenv.runtime.process import LocalProcessProvider, app_of_package
from openenv.server import create_app

sys.path.insert(0, str(ROOT / "tests" / "compat"))
import extract_seed_snippets as extract

SNIPPETS = extract.OUT
DOCS = Path(os.environ.get("OPENENV_SEED_DOCS", str(extract.DOCS)))
PLACEHOLDERS = (
    "http://localhost:8000",
    "http://localhost:7860",
    "https://openenv-echo-env.hf.space",
)
PAGE_ENV = {  # the environment whose server a page's placeholder addresses become
    "readme": "echo",
    "getting-started": "echo",
    "patterns": "echo",
    "atari": "atari",
    "chess": "chess",
    "coding": "coding",
    "connect4": "connect4",
    "dm-control": "dm_control",
    "echo": "echo",
    "grid-world": "grid_world",
}
IMAGES = {  # the Docker images the doc names, and the environment each one serves
    "atari-env:latest": "atari",
    "chess-env:latest": "chess",
    "coding-env:latest": "coding",
    "dm_control:latest": "dm_control",
    "echo-env:latest": "echo",
    "grid-world-env:latest": "grid_world",
    "registry.hf.space/openenv-echo-env:latest": "echo",
}
# What an image sets (its ENV). The atari snippets read the screen as the reference sends it,
# `np.array(screen).reshape(screen_shape)`: a flat list, which our servers send when
# OPENENV_FRAME_ENCODING=list (by default a frame is compressed; `screen_array()` decodes any).
# The example script plays 10 episodes of Pong until done with a random policy, minutes of
# emulation: the test's image ends an episode after 2 steps.
IMAGE_ENV = {
    "atari-env:latest": {"OPENENV_FRAME_ENCODING": "list", "ATARI_MAX_EPISODE_STEPS": "2"},
}
API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}  # servers this test starts: the playground is not tested

# -- what is not run, and why --------------------------------------------------------------------

REGISTRY = "installs from a package index or the Hub: there is none here"
DOCKERFILE = (
    "builds from a Dockerfile of the reference's source tree; ours are generated: "
    "`openenv build envs/<name>_env -t TAG` (the Docker lane builds and runs one)"
)
UV_PROJECT = (
    "runs the environment as a uv project of its own; ours are packages of one distribution: "
    "`openenv serve envs/<name>_env` or `python -m <name>_env.server.app`"
)
REFERENCE_FILE = "runs a file of the reference repository that we do not ship"
FRAGMENT = "a method shown out of its class: it names types and helpers the page never defines"

NOT_RUN = {
    "readme__quick-start__L27.sh": REGISTRY + " (and it would install the reference)",
    "readme__quick-start__L31.sh": REGISTRY,
    "getting-started__install-openenv__L183.sh": REGISTRY + " (and it would install the reference)",
    "getting-started__use-containers-or-local-servers__L297.sh": f"{UV_PROJECT}; {REGISTRY}",
    "grid-world__quick-start__L5009.sh": UV_PROJECT,
    "atari__option-2-docker-recommended__L2233.sh": DOCKERFILE,
    "coding__building-the-docker-image__L3734.sh": DOCKERFILE,
    "echo__building-the-docker-image__L4245.sh": DOCKERFILE,
    "coding__running-tests__L3787.sh": f"{REFERENCE_FILE} (its test suite); {REGISTRY}",
    "coding__running-the-full-example__L3801.sh": REFERENCE_FILE,
    "echo__direct-environment-testing__L4305.sh": REFERENCE_FILE,
    "echo__running-the-full-example__L4319.sh": REFERENCE_FILE,
    "dm-control__examples__L4166.sh": REFERENCE_FILE + " (pygame control demos)",
    "patterns__error-handling__L781.py": FRAGMENT,
    "patterns__reward-computation__L794.py": FRAGMENT,
}


def skip_reason(words: list[str], cwd: Path) -> str | None:
    """Why a shell command is not run here, or ``None`` when it is."""
    while "=" in words[0]:  # VAR=value before the command
        words = words[1:]
    if words[0] == "pip" or words[:2] == ["uv", "pip"]:
        return REGISTRY
    if words[:2] == ["docker", "build"]:
        return DOCKERFILE
    if words[0] == "uv" and "pytest" in words:
        return REFERENCE_FILE
    if words[0] in ("uv", "source"):
        return UV_PROJECT
    if words[0] in ("python", "python3") and words[1].endswith(".py"):
        return None if (cwd / words[1]).is_file() else REFERENCE_FILE
    return None


# -- Python snippets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Py:
    """How a Python snippet runs and what it must print (lines the doc shows or promises)."""

    prints: tuple[str, ...] = ()
    image: str | None = None  # the image it passes to from_docker_image
    prelude: str = ""  # for a fragment: the names it takes from the snippet above it
    process: bool = False  # run as a script of its own: it leaves servers to stop at exit


DM_CONTROL_CLIENT = (
    "from envs.dm_control_env import DMControlEnv, DMControlAction\n"
    'env = DMControlEnv(base_url="http://localhost:8000")\n'
)  # the `env` of dm-control__using-the-client, which the next snippet goes on with
PY = {
    "readme__quick-start__L35.py": Py(("Echo environment ready!", "Hello, World!", "0.0")),
    "readme__quick-start__L59.py": Py(("Hello, World!",)),
    "getting-started__try-an-environment__L201.py": Py(
        ("Echo environment ready!", "Hello, OpenEnv!")
    ),
    "getting-started__try-an-environment__L219.py": Py(process=True),
    "getting-started__connect-to-a-running-environment__L230.py": Py(("0.0",)),
    "getting-started__connect-to-a-running-environment__L252.py": Py(("'data': 'Hello, World!'",)),
    "getting-started__use-containers-or-local-servers__L268.py": Py(
        ("Echo environment ready!",), image="registry.hf.space/openenv-echo-env:latest"
    ),
    "getting-started__use-containers-or-local-servers__L290.py": Py(),
    "getting-started__use-containers-or-local-servers__L303.py": Py(),
    "patterns__type-safety-pattern__L716.py": Py(),
    "patterns__pydantic-models__L765.py": Py(),
    "atari__option-1-local-development-without-docker__L2200.py": Py(
        ("Screen shape: [210, 160, 3]", "Legal actions: [0, 1, 2, 3, 4, 5]", "Done: False")
    ),
    "atari__option-1-local-development-without-docker__L2222.py": Py(("Reward: 0.0",)),
    "atari__option-2-docker-recommended__L2263.py": Py(
        ("Screen shape: (210, 160, 3)",), image="atari-env:latest"
    ),
    "atari__example-script__L2406.py": Py(
        ("Episode 0: reward=", "Episode 9: reward=", "steps=2\n"), image="atari-env:latest"
    ),
    "chess__using-the-client__L3605.py": Py(
        (
            "Starting position: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "Legal moves: ['a2a3',",
            "Reward: 0.0, Done: False",
            "Game result: ",
        )
    ),
    "chess__using-the-client__L3630.py": Py(("Reward: 0.0",)),
    "coding__quick-start__L3687.py": Py(
        (
            "Reset complete: exit_code=0",
            "→ stdout: Hello, World!",
            "→ stdout: Result: 8",
            "→ stdout: 3.141592653589793",
            "→ exit_code: 0",
        ),
        image="coding-env:latest",
    ),
    "coding__quick-start__L3716.py": Py(("Hello!",)),
    "coding__connecting-to-an-existing-server__L3767.py": Py(),
    "connect4__quick-start__L3898.py": Py(
        ("Legal moves: [0, 1, 2, 3, 4, 5, 6]", "Reward: 0.0, Done: False")
    ),
    "dm-control__using-the-client__L4077.py": Py(
        ("Observations: dict_keys(['position', 'velocity'])", "Done: False")
    ),
    "dm-control__switching-environments__L4096.py": Py(prelude=DM_CONTROL_CLIENT),
    "echo__quick-start__L4194.py": Py(
        ("Sent: 'Hello, World!'", "Sent: 'Final message'", "'data': 'Testing echo'", "0.0"),
        image="echo-env:latest",
    ),
    "echo__quick-start__L4222.py": Py(("'data': 'Hello!'",)),
    "echo__connecting-to-an-existing-server__L4275.py": Py(),
    "grid-world__quick-start__L5013.py": Py(
        ("Welcome to Grid World! Goal is at [4, 4].", "DOWN 1 0 -0.1 False", "RIGHT 4 4 1.0 True")
    ),
}
# Field listings (``class AtariAction(Action): action_id: int ...``): our model of that name has
# every field. Their defaults are not compared: ours are None where the server's setting applies.
FIELDS = {
    "atari__atariaction__L2370.py": "atari_env.models",
    "atari__atariobservation__L2379.py": "atari_env.models",
    "atari__ataristate__L2392.py": "atari_env.models",
    "dm-control__action__L4126.py": "dm_control_env.models",
    "dm-control__observation__L4137.py": "dm_control_env.models",
    "dm-control__state__L4145.py": "dm_control_env.models",
}
# The app pattern is a package: the type-safety block is its models.py (the block writes models,
# client and environment in one module, under `# models.py`, `# client.py`... comments), the
# app pattern is its server/app.py; server/my_environment.py re-exports MyEnvironment.
PACKAGE = "patterns__fastapi-app-pattern__L809.py"
PACKAGE_MODELS = "patterns__type-safety-pattern__L716.py"


class WhiteAgentChess(ChessEnvironment):
    """The doc's chess snippets open with e2e4 right after reset(): they assume the agent plays
    white. The reference (agent_color=None alternates) and we (drawn from the seed) choose the
    colour per episode, so the test's chess server makes white the default."""

    def reset(self, seed: int | None = None, episode_id: str | None = None, **options: Any) -> Any:
        options.setdefault("agent_color", "white")
        return super().reset(seed, episode_id, **options)


def _app(env: str) -> Any:
    if env == "chess":
        from chess_env.models import ChessAction, ChessObservation, ChessState

        return create_app(
            WhiteAgentChess, ChessAction, ChessObservation, state_cls=ChessState, enable_web=False
        )
    from conftest import api_app

    return api_app(app_of_package(f"{env}_env"))


class Servers:
    """Our servers of the documented environments, in this process, each started on first use."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self._stack = stack
        self._urls: dict[str, str] = {}

    def url(self, env: str) -> str:
        if env not in self._urls:
            self._urls[env] = self._stack.enter_context(served(_app(env)))
        return self._urls[env]


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with contextlib.ExitStack() as stack:
        yield Servers(stack)


class FakeDocker(Provider):
    """Stands in for DockerProvider: "runs" an image by handing out our server of its env."""

    def __init__(
        self, image: str, env_vars: Any = None, port: Any = None, container_port: Any = None
    ) -> None:
        super().__init__()
        self.image, self.env_vars, self.running = image, dict(env_vars or {}), False
        self.servers.append(self)

    servers: list[FakeDocker]
    url_of: Callable[[str], str]

    def _start(self) -> str:
        self.running = True
        return self.url_of(IMAGES[self.image])

    def _stop(self) -> None:
        self.running = False

    def is_alive(self) -> bool:
        return self.running

    def logs(self, tail: int = 100) -> str:
        return ""


@pytest.fixture
def fake_docker(monkeypatch: pytest.MonkeyPatch, servers: Servers) -> list[FakeDocker]:
    """``DockerProvider`` replaced by :class:`FakeDocker`; the list of the ones made."""
    started: list[FakeDocker] = []
    fake = type("FakeDockerProvider", (FakeDocker,), {"servers": started, "url_of": servers.url})
    monkeypatch.setattr("openenv.runtime.docker_provider.DockerProvider", fake)
    return started


def substituted(code: str, url: str) -> str:
    for placeholder in PLACEHOLDERS:
        code = code.replace(placeholder, url)
    return code


def run_python(code: str, filename: str) -> tuple[str, dict[str, Any]]:
    """Run ``code`` as a script (or, with top-level await, as a notebook cell); its output."""
    compiled = compile(code, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": filename}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cell = eval(compiled, namespace)  # a coroutine when the code awaits at top level
        if inspect.iscoroutine(cell):
            asyncio.run(cell)
    return out.getvalue(), namespace


def page_of(name: str) -> str:
    return name.split("__", 1)[0]


@pytest.mark.filterwarnings("ignore:Support for class-based `config`")  # the doc's pydantic v1
@pytest.mark.parametrize("name", sorted(PY))
def test_python_snippet_runs_as_pasted(
    name: str,
    servers: Servers,
    fake_docker: list[FakeDocker],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    spec = PY[name]
    url = servers.url(PAGE_ENV[page_of(name)])
    code = substituted((SNIPPETS / name).read_text(encoding="utf-8"), url)
    if spec.process:
        return run_as_script(code, tmp_path / name)
    monkeypatch.syspath_prepend(str(ROOT))
    for key, value in IMAGE_ENV.get(spec.image or "", {}).items():
        monkeypatch.setenv(key, value)  # in-process servers read their variables per episode
    prelude = substituted(spec.prelude, url)
    printed, namespace = run_python(prelude + code, str(SNIPPETS / name))
    for line in spec.prints:
        assert line in printed, f"{name} should print {line!r}; it printed:\n{printed[:3000]}"
    if spec.image is not None:
        assert [(d.image, d.running) for d in fake_docker] == [(spec.image, False)], (
            "from_docker_image starts the image, and the client's close stops it"
        )
    if "env" in namespace and spec.prelude:
        namespace["env"].close()


def run_as_script(code: str, path: Path) -> None:
    """``python snippet.py`` from the repository root; the servers it starts serve no web UI."""
    path.write_text(code, encoding="utf-8")
    env = {**os.environ, **API_ONLY, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_documented_fields_are_fields_of_our_model(name: str) -> None:
    tree = ast.parse((SNIPPETS / name).read_text(encoding="utf-8"))
    listed = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    fields = [
        n.target.id
        for n in listed.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    ]
    ours = getattr(importlib.import_module(FIELDS[name]), listed.name)
    assert fields and [f for f in fields if f not in ours.model_fields] == []


def test_the_app_pattern_serves_the_type_safety_pattern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "my_env"
    (package / "server").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text((SNIPPETS / PACKAGE_MODELS).read_text(encoding="utf-8"))
    (package / "server" / "__init__.py").write_text("")
    (package / "server" / "my_environment.py").write_text(
        "from my_env.models import MyEnvironment  # noqa: F401\n"
    )
    (package / "server" / "app.py").write_text((SNIPPETS / PACKAGE).read_text(encoding="utf-8"))
    sys.path.insert(0, str(tmp_path))
    monkeypatch.setenv("ENABLE_WEB_INTERFACE", "0")  # the server's setting: the API is under test
    try:
        app = importlib.import_module("my_env.server.app").app
        with served(app) as url:
            assert httpx.get(url + "/health").json() == {"status": "healthy"}
            schema = httpx.get(url + "/schema").json()
        assert "command" in schema["action"]["properties"]
        client = importlib.import_module("my_env.models").MyEnv(base_url=url)
        assert client.base_url == url
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m == "my_env" or m.startswith("my_env.")]:
            del sys.modules[module]


# -- shell snippets ----------------------------------------------------------------------------


def commands(code: str) -> list[list[str]]:
    """The commands of a shell snippet as words: comments dropped, ``\\`` continuations
    joined, a quoted argument over several lines kept whole (``python -c "..."``)."""
    found, current = [], ""
    for line in code.splitlines():
        current += line + "\n"
        if current.rstrip().endswith("\\") or current.count('"') % 2:
            continue
        words = shlex.split(current.replace("\\\n", " "), comments=True)
        if words:
            found.append(words)
        current = ""
    return found


def docker_run(words: list[str]) -> tuple[str, int, dict[str, str]]:
    """``docker run [-p H:C] [-e K=V]... IMAGE``: the image, the host port and the variables."""
    image, host_port, env = "", 8000, {}
    args = iter(words[2:])
    for arg in args:
        if arg == "-p":
            host_port = int(next(args).split(":")[0])
        elif arg == "-e":
            key, _, value = next(args).partition("=")
            env[key] = value
        elif not arg.startswith("-"):
            image = arg
    return image, host_port, env


def docker_runs_in(names: list[str]) -> list[tuple[str, int, dict[str, str]]]:
    return [
        docker_run(words)
        for name in names
        for words in commands((SNIPPETS / name).read_text(encoding="utf-8"))
        if words[:2] == ["docker", "run"]
    ]


class Containers:
    """The local servers standing in for every ``docker run`` of the shell snippets, all
    started at once (they boot concurrently), each found again by its image and variables."""

    def __init__(self, runs: list[tuple[str, int, dict[str, str]]]) -> None:
        self._providers: dict[tuple[str, frozenset], Provider] = {}
        for image, _, env in runs:
            key = (image, frozenset(env.items()))
            if key not in self._providers:
                variables = {**IMAGE_ENV.get(image, {}), **API_ONLY, **env}
                app = app_of_package(f"{IMAGES[image]}_env")
                self._providers[key] = LocalProcessProvider(app, env_vars=variables)
                self._providers[key].start()

    def url(self, image: str, env: dict[str, str]) -> str:
        provider = self._providers[(image, frozenset(env.items()))]
        provider.wait_until_healthy(120)
        assert provider.base_url is not None
        return provider.base_url

    def stop(self) -> None:
        for provider in self._providers.values():
            provider.stop()


@dataclass
class Shell:
    """Runs a shell snippet's commands in order, the way a user types them, from the repository
    root: servers stay up until the snippet ends; ``localhost:<port>`` in a later command is the
    server an earlier one started on that port."""

    containers: Containers
    stack: contextlib.ExitStack
    cwd: Path = ROOT
    env: dict[str, str] = field(default_factory=lambda: {**os.environ, **API_ONLY})
    ports: dict[int, str] = field(default_factory=dict)
    output: list[str] = field(default_factory=list)
    started: list[tuple[str, dict[str, str], str]] = field(default_factory=list)  # docker runs

    def run(self, words: list[str]) -> bool:
        """Run one command; ``False`` when it is skipped (``skip_reason`` says why)."""
        if skip_reason(words, self.cwd) is not None:
            return False
        run = {
            "cd": self._cd,
            "export": self._export,
            "openenv": self._openenv,
            "curl": self._curl,
            "python": self._python,
            "python3": self._python,
            "uvicorn": self._uvicorn,
            "docker": self._docker,
        }
        run[words[0]](words)
        return True

    def _local(self, text: str) -> str:
        return re.sub(r"https?://localhost:(\d+)", lambda m: self.ports[int(m[1])], text)

    def _completed(self, cmd: list[str]) -> None:
        done = subprocess.run(
            cmd, cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{shlex.join(cmd)} failed:\n{done.stdout}{done.stderr}"
        self.output.append(done.stdout)

    def _serving(self, cmd: list[str], port: int, listens_on: int) -> None:
        env = {**self.env, "HOST": "127.0.0.1", "PORT": str(port)}
        url = self.stack.enter_context(server_process(cmd, port, cwd=self.cwd, env=env))
        self.ports[listens_on] = url

    def _cd(self, words: list[str]) -> None:
        self.cwd = ROOT if words[1] == "OpenEnv" else self.cwd / words[1]  # OpenEnv: the clone
        assert self.cwd.is_dir(), f"no directory {self.cwd}"

    def _export(self, words: list[str]) -> None:
        key, _, value = words[1].partition("=")
        self.env[key] = value

    def _openenv(self, words: list[str]) -> None:
        self._completed([sys.executable, "-m", "openenv.cli", *words[1:]])

    def _curl(self, words: list[str]) -> None:
        self._completed(["curl", "-sS", "--fail", *[self._local(w) for w in words[1:]]])

    def _python(self, words: list[str]) -> None:
        if words[1] == "-c":
            return self._completed([sys.executable, "-c", self._local(words[2])])
        assert words[1] == "-m", shlex.join(words)
        self._serving([sys.executable, *words[1:]], free_port(), listens_on=8000)

    def _uvicorn(self, words: list[str]) -> None:
        port, args = free_port(), list(words[1:])
        listens_on = int(args[args.index("--port") + 1])
        args[args.index("--port") + 1] = str(port)
        args[args.index("--host") + 1] = "127.0.0.1"
        self._serving([sys.executable, "-m", "uvicorn", *args], port, listens_on)

    def _docker(self, words: list[str]) -> None:
        image, host_port, env = docker_run(words)
        url = self.containers.url(image, env)
        self.ports[host_port] = url
        self.started.append((image, env, url))


ATARI_SETTINGS = {  # a documented variable of the atari image, and the state field it sets
    "ATARI_GAME": "game_name",
    "ATARI_OBS_TYPE": "obs_type",
    "ATARI_FULL_ACTION_SPACE": "full_action_space",
    "ATARI_REPEAT_ACTION_PROB": "repeat_action_probability",
    "ATARI_FRAMESKIP": "frameskip",
}
SHELL = {  # each shell snippet run, and what its commands print together
    "readme__build-your-own-environment__L83.sh": (
        "Created",
        "Verdict: PASS",
        "Published tester/my",
    ),
    "getting-started__use-containers-or-local-servers__L287.sh": (),
    "atari__option-2-docker-recommended__L2243.sh": (),
    "atari__1-rgb-default__L2289.sh": (),
    "atari__2-grayscale__L2297.sh": (),
    "atari__3-ram__L2305.sh": (),
    "atari__minimal-action-set-default__L2316.sh": (),
    "atari__full-action-set__L2341.sh": (),
    "atari__example-breakout-with-custom-settings__L2358.sh": (),
    "atari__local-testing__L2450.sh": (
        "Initial obs: [210, 160, 3]",
        "After step: reward=0.0, done=False",
    ),
    "atari__docker-testing__L2469.sh": ('{"status":"healthy"}', '"screen_shape":[210,160,3]'),
    "chess__using-docker__L3595.sh": (),
    "dm-control__running-the-server__L4107.sh": (),
    "dm-control__using-docker__L4116.sh": (),
    "grid-world__docker__L5029.sh": (),
}


@pytest.fixture(scope="module")
def containers() -> Iterator[Containers]:
    started = Containers(docker_runs_in(sorted(SHELL)))
    try:
        yield started
    finally:
        started.stop()


@pytest.mark.parametrize("name", sorted(SHELL))
def test_shell_snippet_runs_as_typed(
    name: str, containers: Containers, hub: Any, tmp_path: Path
) -> None:
    with contextlib.ExitStack() as stack:
        shell = Shell(containers, stack)
        if page_of(name) == "readme":  # `openenv init` writes where it is typed; push: the Hub
            shell.cwd, shell.env = tmp_path, {**hub_environ(hub, tmp_path, HF_TOKEN), **API_ONLY}
        ran = [shell.run(words) for words in commands((SNIPPETS / name).read_text("utf-8"))]
        assert any(ran), f"{name}: every command is skipped: list it in NOT_RUN"
        printed = "".join(shell.output)
        for line in SHELL[name]:
            assert line in printed, f"{name} should print {line!r}; it printed:\n{printed[:3000]}"
        for image, env, url in shell.started:
            check_container(image, env, url)
    if page_of(name) == "readme":
        assert [(c["organization"], c["name"], c["sdk"]) for c in hub.created] == [
            ("tester", "my", "docker")
        ]
        assert "Dockerfile" in hub.files and "envs/my_env/server/app.py" in hub.files


def check_container(image: str, env: dict[str, str], url: str) -> None:
    """The server of a ``docker run`` answers, and honours the documented variables it got."""
    assert httpx.get(url + "/health").json() == {"status": "healthy"}
    settings = {ATARI_SETTINGS[k]: v for k, v in env.items() if k in ATARI_SETTINGS}
    if not settings:
        return
    with GenericEnvClient(base_url=url).sync() as client:
        client.reset()
        state = client.state()
    assert {k: str(state[k]).lower() for k in settings} == {
        k: v.lower() for k, v in settings.items()
    }


# -- every snippet is accounted for; the committed copy is the doc's ------------------------------


def test_every_snippet_is_run_checked_or_listed_with_its_reason() -> None:
    committed = set(extract.committed())
    accounted = {*PY, *FIELDS, *SHELL, *NOT_RUN, PACKAGE}
    assert committed - accounted == set(), "new snippets: run them or list them in NOT_RUN"
    assert accounted - committed == set(), "snippets gone from the doc: drop them here"
    assert {*PY, *FIELDS, *SHELL, PACKAGE} & set(NOT_RUN) == set()


@pytest.mark.parametrize("name", sorted(n for n in NOT_RUN if n.endswith(".sh")))
def test_a_shell_snippet_not_run_has_no_command_we_could_run(name: str) -> None:
    cwd = ROOT
    for words in commands((SNIPPETS / name).read_text(encoding="utf-8")):
        if words[0] == "cd":
            continue  # where the skipped commands would run
        assert skip_reason(words, cwd), f"{name}: {shlex.join(words)} could run here"


@pytest.mark.skipif(not DOCS.is_file(), reason=f"the seed documentation is not here ({DOCS})")
def test_the_committed_snippets_are_a_fresh_extraction_of_the_doc() -> None:
    fresh, committed = extract.extract(DOCS), extract.committed()
    changed = sorted(
        name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name)
    )
    assert changed == [], "run `python tests/compat/extract_seed_snippets.py` and update this test"
    pages = {path for path, _, _ in extract.pages(DOCS.read_text(encoding="utf-8").splitlines())}
    unsorted = pages - set(extract.PAGES) - set(extract.OTHER_PAGES)
    assert unsorted == set(), "pages neither extracted nor listed with a reason in OTHER_PAGES"
