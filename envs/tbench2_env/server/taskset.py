"""Terminal-Bench tasks: where they are and how one is read.

Two layouts are read, each a directory named after its task id:

* the ``terminal-bench`` package's (``task.yaml`` with the instruction and metadata,
  ``Dockerfile``, ``run-tests.sh``, ``tests/``, ``solution.sh``): the tasks this package ships
  (``tbench2_env/tasks/``, written for it) are in this layout;
* Terminal-Bench 2's (``instruction.md``, ``task.toml``, ``environment/Dockerfile``,
  ``tests/test.sh``, ``solution/solve.sh``), as in its public repository.

Where tasks are looked up: the shipped ones, then ``TB2_TASKS_DIR`` (a checkout of the
Terminal-Bench 2 repository, or any folder of task directories). When a task id is found in
neither and ``TB2_REPO_URL`` is set (a zip of the repository), it is downloaded once into
``TB2_CACHE_DIR`` (default ``$TB2_OUTPUT_DIR/repo_cache``) and read from there.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import tomllib
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

SHIPPED = Path(__file__).resolve().parent.parent / "tasks"
DEFAULT_TASK = "hello-world"
WORKDIR = "/app"
MAX_FILE_BYTES = 2_000_000  # a task file copied into the local sandbox
MAX_ZIP_BYTES = 200_000_000
_TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_COPY = re.compile(r"^\s*(?:COPY|ADD)\s+(?!--)(.+?)\s*$", re.IGNORECASE)


class TaskNotFound(LookupError):
    """No task of that id (the message lists the ones there are)."""


@dataclass(frozen=True)
class Task:
    """One task, read from its directory."""

    task_id: str
    path: Path
    layout: str  # "terminal-bench" or "tb2"
    instruction: str
    difficulty: str = ""
    category: str = ""
    tags: tuple[str, ...] = ()
    agent_timeout_s: float = 360.0
    test_timeout_s: float = 60.0
    dockerfile: Path | None = None
    docker_image: str | None = None  # tb2: a prebuilt image named by task.toml
    tests_dir: Path | None = None
    test_script: str = "run-tests.sh"  # relative to the folder copied to $TEST_DIR
    extra: dict = field(default_factory=dict)

    @property
    def context(self) -> Path:
        """The Docker build context (the folder of the Dockerfile)."""
        return self.dockerfile.parent if self.dockerfile else self.path

    def test_files(self) -> dict[str, bytes]:
        """What is copied to ``$TEST_DIR`` before the tests run (never before: the agent does
        not see them): the tests folder and, in the terminal-bench layout, ``run-tests.sh``."""
        files = _read_tree(self.tests_dir) if self.tests_dir and self.tests_dir.is_dir() else {}
        if self.layout == "terminal-bench":
            files["run-tests.sh"] = (self.path / "run-tests.sh").read_bytes()
        return files

    def workdir_files(self) -> dict[str, tuple[bytes, bool]]:
        """The files the Dockerfile copies into ``/app`` (``COPY src /app/...``): what local
        mode, which builds no image, puts in the working directory. ``RUN`` steps are not
        replayed there (a task that needs them needs Docker mode)."""
        if self.dockerfile is None:
            return {}
        files: dict[str, tuple[bytes, bool]] = {}
        for line in self.dockerfile.read_text(encoding="utf-8", errors="replace").splitlines():
            match = _COPY.match(line)
            if not match:
                continue
            *sources, dest = match.group(1).split()
            if not (dest == WORKDIR or dest.startswith(WORKDIR + "/") or not dest.startswith("/")):
                continue
            dest = dest if dest.startswith("/") else f"{WORKDIR}/{dest}"
            rel_dest = dest[len(WORKDIR) :].strip("/")
            for source in sources:
                src = (self.context / source).resolve()
                if not src.is_relative_to(self.context.resolve()) or not src.exists():
                    continue
                if src.is_dir():
                    for rel, data in _read_tree(src).items():
                        files[_join(rel_dest, rel)] = (data, os.access(src / rel, os.X_OK))
                else:
                    into = dest.endswith("/") or len(sources) > 1
                    name = _join(rel_dest, src.name) if into else rel_dest or src.name
                    files[name] = (src.read_bytes()[:MAX_FILE_BYTES], os.access(src, os.X_OK))
        return files

    def fingerprint(self) -> str:
        """A hash of the build context (the Docker image's tag), tests and solution left out."""
        digest = hashlib.sha256()
        for rel, data in sorted(_read_tree(self.context).items()):
            if rel.split("/")[0] in ("tests", "solution") or rel == "solution.sh":
                continue
            digest.update(rel.encode() + b"\0" + data + b"\0")
        return digest.hexdigest()[:12]


def load_task(path: Path) -> Task:
    """Read the task in ``path`` (either layout)."""
    if (path / "task.yaml").is_file():
        meta = yaml.safe_load((path / "task.yaml").read_text(encoding="utf-8")) or {}
        return Task(
            task_id=path.name,
            path=path,
            layout="terminal-bench",
            instruction=str(meta.get("instruction", "")).strip(),
            difficulty=str(meta.get("difficulty", "")),
            category=str(meta.get("category", "")),
            tags=tuple(str(t) for t in meta.get("tags") or ()),
            agent_timeout_s=float(meta.get("max_agent_timeout_sec", 360.0)),
            test_timeout_s=float(meta.get("max_test_timeout_sec", 60.0)),
            dockerfile=path / "Dockerfile" if (path / "Dockerfile").is_file() else None,
            tests_dir=path / "tests",
            test_script="run-tests.sh",
        )
    if (path / "task.toml").is_file():
        meta = tomllib.loads((path / "task.toml").read_text(encoding="utf-8"))
        about = meta.get("metadata", {})
        env = meta.get("environment", {})
        dockerfile = path / "environment" / "Dockerfile"
        instruction = path / "instruction.md"
        return Task(
            task_id=path.name,
            path=path,
            layout="tb2",
            instruction=instruction.read_text(encoding="utf-8").strip()
            if instruction.is_file()
            else "",
            difficulty=str(about.get("difficulty", "")),
            category=str(about.get("category", "")),
            tags=tuple(str(t) for t in about.get("tags") or ()),
            agent_timeout_s=float(meta.get("agent", {}).get("timeout_sec", 360.0)),
            test_timeout_s=float(meta.get("verifier", {}).get("timeout_sec", 60.0)),
            dockerfile=dockerfile if dockerfile.is_file() else None,
            docker_image=env.get("docker_image"),
            tests_dir=path / "tests",
            test_script="test.sh",
        )
    raise TaskNotFound(f"{path} holds no task.yaml or task.toml")


def task_dirs(root: Path) -> dict[str, Path]:
    """Task directories under ``root`` (itself, its children, or its ``tasks/`` folder)."""
    found: dict[str, Path] = {}
    for base in (root, root / "tasks"):
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            if (child / "task.yaml").is_file() or (child / "task.toml").is_file():
                found.setdefault(child.name, child)
    return found


def shipped() -> dict[str, Path]:
    """The tasks this package ships."""
    return task_dirs(SHIPPED)


def roots() -> list[Path]:
    """Where tasks are looked for, in order."""
    out = [SHIPPED]
    if os.environ.get("TB2_TASKS_DIR"):
        out.append(Path(os.environ["TB2_TASKS_DIR"]))
    cache_dir = _cache_dir()
    if cache_dir.is_dir():
        out.append(cache_dir)
    return out


def find(task_id: str | None = None, task_path: str | None = None) -> Task:
    """The task named ``task_id`` (or at ``task_path``, which must lie under a task root)."""
    if task_path:
        path = Path(task_path).resolve()
        if not any(path.is_relative_to(r.resolve()) for r in roots()):
            raise TaskNotFound(
                f"task_path {task_path!r} is outside the task folders (the shipped tasks, "
                "TB2_TASKS_DIR, the download cache)"
            )
        return load_task(path)
    task_id = task_id or DEFAULT_TASK
    if not _TASK_ID.match(task_id):
        raise TaskNotFound(f"bad task id {task_id!r}")
    for root in roots():
        path = task_dirs(root).get(task_id)
        if path is not None:
            return load_task(path)
    if os.environ.get("TB2_REPO_URL"):
        path = task_dirs(download(os.environ["TB2_REPO_URL"])).get(task_id)
        if path is not None:
            return load_task(path)
    known = ", ".join(sorted(shipped()))
    raise TaskNotFound(
        f"no task {task_id!r}: shipped tasks are {known}; set TB2_TASKS_DIR to a Terminal-Bench "
        "2 checkout (or TB2_REPO_URL to a zip of it) for the others"
    )


def download(url: str) -> Path:
    """Download and unpack the repository zip at ``url`` into the cache (once); its root."""
    target = _cache_dir() / hashlib.sha256(url.encode()).hexdigest()[:16]
    if target.is_dir():
        return _single_child(target)
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            data = answer.read(MAX_ZIP_BYTES + 1)
    except OSError as exc:
        raise TaskNotFound(f"could not download the tasks from {url}: {exc}") from exc
    if len(data) > MAX_ZIP_BYTES:
        raise TaskNotFound(f"{url} is larger than {MAX_ZIP_BYTES} bytes")
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                out = (partial / member.filename).resolve()
                if not out.is_relative_to(partial.resolve()):
                    raise TaskNotFound(f"{url}: the zip names a path outside itself")
            archive.extractall(partial)
    except zipfile.BadZipFile as exc:
        raise TaskNotFound(f"{url} is not a zip file: {exc}") from exc
    partial.rename(target)
    return _single_child(target)


def _cache_dir() -> Path:
    output = os.environ.get("TB2_OUTPUT_DIR") or "/tmp/tbench2_env_runs"
    return Path(os.environ.get("TB2_CACHE_DIR") or Path(output) / "repo_cache")


def _single_child(path: Path) -> Path:
    children = [c for c in path.iterdir() if c.is_dir()]
    return children[0] if len(children) == 1 and not task_dirs(path) else path


def _read_tree(root: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts:
            files[path.relative_to(root).as_posix()] = path.read_bytes()[:MAX_FILE_BYTES]
    return files


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b
