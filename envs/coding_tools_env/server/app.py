"""coding_tools_env server: ``uvicorn coding_tools_env.server.app:app``.

Sandbox limits come from the manifest's ``sandbox:`` block and ``CODING_*``; the provider from
``CODING_TOOLS_PROVIDER`` (``local``, the default, or ``e2b`` with ``E2B_API_KEY``);
``MAX_CONCURRENT_ENVS`` bounds the sessions (4 by default, as documented: each holds a sandbox).
"""

import os

from coding_tools_env.models import CodingToolsState
from coding_tools_env.server.environment import CodingToolsEnvironment
from openenv.server import create_app

MAX_SESSIONS = int(os.environ.get("MAX_CONCURRENT_ENVS") or 4)

app = create_app(
    CodingToolsEnvironment, state_cls=CodingToolsState, max_concurrent_envs=MAX_SESSIONS
)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
