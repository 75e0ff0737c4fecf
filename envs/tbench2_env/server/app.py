"""tbench2_env server: ``uvicorn tbench2_env.server.app:app``.

``TB2_MODE`` picks where commands run (``local``, the default: our sandbox, limits from the
manifest's ``sandbox:`` block and ``CODING_*``; ``docker``: a container per episode on the
local engine); ``TB2_TASKS_DIR`` / ``TB2_REPO_URL`` add tasks; ``MAX_CONCURRENT_ENVS`` bounds
the sessions (8 by default: each holds a sandbox or a container).
"""

import os

from openenv.server import create_app
from tbench2_env.models import Tbench2Action, Tbench2Observation, Tbench2State
from tbench2_env.server.environment import Tbench2Environment
from tbench2_env.server.playground import terminal_tab

MAX_SESSIONS = int(os.environ.get("MAX_CONCURRENT_ENVS") or 8)

app = create_app(
    Tbench2Environment,
    Tbench2Action,
    Tbench2Observation,
    state_cls=Tbench2State,
    max_concurrent_envs=MAX_SESSIONS,
    gradio_builder=terminal_tab,
    custom_tab_name="Terminal",
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
