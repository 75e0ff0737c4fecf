"""Terminus server: ``uvicorn terminus_env.server.app:app``. Sandbox limits come from the
``CODING_*`` variables (coding_env's: one sandbox); ``MAX_CONCURRENT_ENVS`` bounds the
sessions (32 by default: each holds a sandbox)."""

import os

from openenv.server import create_app
from terminus_env.models import TerminusState
from terminus_env.server.environment import TerminusEnvironment
from terminus_env.server.playground import terminal_tab

MAX_SESSIONS = int(os.environ.get("MAX_CONCURRENT_ENVS") or 32)

app = create_app(
    TerminusEnvironment,
    state_cls=TerminusState,
    max_concurrent_envs=MAX_SESSIONS,
    gradio_builder=terminal_tab,
    custom_tab_name="Terminal",
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
