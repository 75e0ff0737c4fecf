"""REPL server: ``uvicorn repl_env.server.app:app``. Sandbox limits come from ``CODING_*``
variables (those of coding_env: one sandbox), ``REPL_MAX_ITERATIONS`` sets the default number
of steps, ``MAX_CONCURRENT_ENVS`` the number of sessions (default 64: each has a sandbox)."""

import os
from typing import Any

from openenv.server import create_app
from repl_env.server.environment import REPLEnvironment


def playground_tab(api: Any) -> None:
    """The playground's own tab (Gradio is imported only when the page is built)."""
    from repl_env.server.playground import repl_tab

    repl_tab(api)


MAX_SESSIONS = int(os.environ.get("MAX_CONCURRENT_ENVS") or 64)

app = create_app(
    REPLEnvironment,
    gradio_builder=playground_tab,
    custom_tab_name="REPL",
    max_concurrent_envs=MAX_SESSIONS,
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
