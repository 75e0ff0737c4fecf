"""Harbor tasks read from local directories: one task, or a dataset folder of tasks.

A task is a directory in Harbor's layout::

    task.toml               metadata, [verifier] / [agent] / [environment] settings
    instruction.md          what the agent is told
    environment/Dockerfile  the image (Docker sandbox); environment/app/ seeds the working
                            directory in the process sandbox
    tests/test.sh           the verifier: writes the reward to $LOGS_DIR/verifier/reward.txt
                            (/logs/verifier/reward.txt in Harbor's containers), or reward.json
    solution/solve.sh       the reference solution (optional)

``load_task(path)`` reads and checks one; ``load_tasks(path)`` reads a task or every task
directly under a dataset folder. Everything read is bounded (file sizes, file and task counts),
and a task that is not one says why (:class:`TaskError`). ``shipped_tasks()`` is the folder of
the small tasks this package ships.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_TOML_BYTES = 64 * 1024
MAX_INSTRUCTION_BYTES = 256 * 1024
MAX_TREE_BYTES = 8 * 1024 * 1024  # one of environment/, tests/, solution/, all files together
MAX_TREE_FILES = 2000
MAX_TASKS = 10_000
MAX_TIMEOUT_S = 24 * 3600.0
DEFAULT_AGENT_TIMEOUT_S = 600.0
DEFAULT_VERIFIER_TIMEOUT_S = 600.0
SHIPPED = Path(__file__).with_name("shipped")


class TaskError(ValueError):
    """A path that is not a readable Harbor task (or dataset), and why."""


@dataclass(frozen=True)
class HarborTask:
    """One task: its name, folder, instruction and checked settings."""

    name: str
    path: Path
    instruction: str
    config: dict[str, Any] = field(repr=False)
    agent_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S
    verifier_timeout_s: float = DEFAULT_VERIFIER_TIMEOUT_S
    docker_image: str | None = None

    @property
    def metadata(self) -> dict[str, Any]:
        """``[metadata]`` of task.toml (difficulty, category, tags, author...)."""
        meta = self.config.get("metadata", {})
        return meta if isinstance(meta, dict) else {}

    @property
    def verifier_env(self) -> dict[str, str]:
        """``[verifier].env``: variables the verifier runs with."""
        env = self.config.get("verifier", {}).get("env", {})
        return {str(k): str(v) for k, v in env.items()}

    def files(self, part: str) -> dict[str, bytes]:
        """The files under ``part`` (``environment``, ``tests``, ``solution``, or a folder in
        one, like ``environment/app``), by path relative to it; bounded, symlinks refused."""
        return read_tree(self.path / part, self.path)

    def summary(self) -> dict[str, Any]:
        """Name, path and the settings a listing shows."""
        meta = self.metadata
        return {
            "name": self.name,
            "path": str(self.path),
            "difficulty": meta.get("difficulty"),
            "category": meta.get("category"),
            "tags": meta.get("tags", []),
            "agent_timeout_s": self.agent_timeout_s,
            "verifier_timeout_s": self.verifier_timeout_s,
        }


def _read_text(path: Path, limit: int, what: str) -> str:
    if not path.is_file():
        raise TaskError(f"{path.parent}: no {path.name} ({what})")
    size = path.stat().st_size
    if size > limit:
        raise TaskError(f"{path}: {size} bytes, over the limit of {limit} for {path.name}")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _timeout(config: dict[str, Any], section: str, default: float, where: Path) -> float:
    table = config.get(section, {})
    if not isinstance(table, dict):
        raise TaskError(f"{where}: [{section}] must be a table")
    value = table.get("timeout_sec", default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TaskError(f"{where}: {section}.timeout_sec must be a number, got {value!r}")
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT_S:
        raise TaskError(
            f"{where}: {section}.timeout_sec must be in (0, {MAX_TIMEOUT_S:g}], got {value!r}"
        )
    return float(value)


def load_task(path: str | Path) -> HarborTask:
    """Read and check the task at ``path`` (a directory holding task.toml)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise TaskError(f"{root}: no such task directory")
    if not root.is_dir():
        raise TaskError(f"{root}: a task is a directory (holding task.toml and instruction.md)")
    toml_path = root / "task.toml"
    text = _read_text(toml_path, MAX_TOML_BYTES, "the task's settings: not a Harbor task")
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{toml_path}: not valid TOML: {exc}") from None
    for section in ("metadata", "verifier", "agent", "environment", "solution"):
        if not isinstance(config.get(section, {}), dict):
            raise TaskError(f"{toml_path}: [{section}] must be a table")
    env = config.get("verifier", {}).get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise TaskError(f"{toml_path}: verifier.env must be a table of strings")
    instruction = _read_text(
        root / "instruction.md", MAX_INSTRUCTION_BYTES, "what the agent is told"
    ).strip()
    if not instruction:
        raise TaskError(f"{root / 'instruction.md'}: empty: the agent would be told nothing")
    if not (root / "tests" / "test.sh").is_file():
        raise TaskError(f"{root}: no tests/test.sh (the verifier that writes the reward)")
    image = config.get("environment", {}).get("docker_image")
    if image is not None and not isinstance(image, str):
        raise TaskError(f"{toml_path}: environment.docker_image must be a string")
    return HarborTask(
        name=root.resolve().name,
        path=root.resolve(),
        instruction=instruction,
        config=config,
        agent_timeout_s=_timeout(config, "agent", DEFAULT_AGENT_TIMEOUT_S, toml_path),
        verifier_timeout_s=_timeout(config, "verifier", DEFAULT_VERIFIER_TIMEOUT_S, toml_path),
        docker_image=image,
    )


def load_tasks(path: str | Path) -> list[HarborTask]:
    """The task at ``path``, or every task directly under a dataset folder (by name)."""
    root = Path(path).expanduser()
    if (root / "task.toml").is_file():
        return [load_task(root)]
    if not root.is_dir():
        raise TaskError(f"{root}: no such task or dataset directory")
    dirs = []
    for child in sorted(root.iterdir()):
        if child.is_dir() and (child / "task.toml").is_file():
            dirs.append(child)
            if len(dirs) > MAX_TASKS:
                raise TaskError(f"{root}: more than {MAX_TASKS} tasks")
    if not dirs:
        raise TaskError(f"{root}: neither a task (no task.toml) nor a dataset of tasks")
    return [load_task(d) for d in dirs]


def read_tree(folder: Path, task_root: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path, within the bounds; a symlink, or a path
    leaving the task, is refused (a task must not read the host's files into a sandbox)."""
    if not folder.is_dir():
        return {}
    files: dict[str, bytes] = {}
    total = 0
    for item in sorted(folder.rglob("*")):
        if item.is_symlink():
            raise TaskError(f"{item}: symlinks are not allowed in a task")
        if not item.is_file():
            continue
        if not item.resolve().is_relative_to(task_root.resolve()):
            raise TaskError(f"{item}: outside the task directory")
        if len(files) >= MAX_TREE_FILES:
            raise TaskError(f"{folder}: more than {MAX_TREE_FILES} files")
        total += item.stat().st_size
        if total > MAX_TREE_BYTES:
            raise TaskError(f"{folder}: over {MAX_TREE_BYTES} bytes of files")
        files[item.relative_to(folder).as_posix()] = item.read_bytes()
    return files


def shipped_tasks() -> Path:
    """The dataset folder of the tasks this package ships (tiny, made by us, for tests)."""
    return SHIPPED


__all__ = [
    "HarborTask",
    "TaskError",
    "load_task",
    "load_tasks",
    "read_tree",
    "shipped_tasks",
]
