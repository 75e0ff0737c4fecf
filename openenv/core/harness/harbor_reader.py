"""Run by the ``harbor`` package's own interpreter (Python >= 3.12), not imported by openenv.

Reads ``{"dirs": [task folder, ...]}`` (JSON) on stdin; each folder is read by Harbor's task
model (``harbor.models.task.task.Task``), and what it read, or its error, is written as one JSON
object on stdout: ``{"version": "0.26.0", "tasks": [{"dir", "ok", "error" | settings}]}``.
Only the standard library and ``harbor`` are imported; errors are cut to ``MAX_ERROR_CHARS``.
"""

import hashlib
import importlib.metadata
import json
import sys

MAX_ERROR_CHARS = 600
MAX_DIRS = 1000


def _message(exc: BaseException) -> str:
    """Harbor's (or pydantic's) message on one line, without pydantic's help links."""
    lines = [line.strip() for line in str(exc).splitlines()]
    kept = [line for line in lines if line and not line.startswith("For further information")]
    text = "; ".join(kept) or type(exc).__name__
    return text[:MAX_ERROR_CHARS]


def _read(task_cls, folder: str) -> dict:
    try:
        task = task_cls(folder)
    except Exception as exc:  # Harbor's refusal, whatever its type, is the answer
        return {"dir": folder, "ok": False, "error": f"{type(exc).__name__}: {_message(exc)}"}
    config = task.config
    instruction = task.instruction.strip().encode()
    return {
        "dir": folder,
        "ok": True,
        "agent_timeout_s": config.agent.timeout_sec,
        "verifier_timeout_s": config.verifier.timeout_sec,
        "docker_image": config.environment.docker_image,
        "verifier_env": dict(config.verifier.env),
        "instruction_sha256": hashlib.sha256(instruction).hexdigest(),
    }


def main() -> None:
    from harbor.models.task.task import Task

    dirs = json.loads(sys.stdin.read())["dirs"][:MAX_DIRS]
    out = {"version": importlib.metadata.version("harbor"), "tasks": [_read(Task, d) for d in dirs]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
