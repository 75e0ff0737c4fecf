"""Git server: ``uvicorn git_env.server.app:app``. Sandbox limits come from the ``CODING_*``
variables (coding_env's: one sandbox), the repositories' base directory from
``GIT_ENV_DATA_DIR`` (default /var/tmp); ``MAX_CONCURRENT_ENVS`` bounds the sessions (32 by
default: each holds a sandbox)."""

import os

from git_env.server.environment import GitEnvironment
from openenv.server import create_app

MAX_SESSIONS = int(os.environ.get("MAX_CONCURRENT_ENVS") or 32)

app = create_app(GitEnvironment, max_concurrent_envs=MAX_SESSIONS)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
