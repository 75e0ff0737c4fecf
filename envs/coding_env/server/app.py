"""Coding server: ``uvicorn coding_env.server.app:app``. Limits come from ``CODING_*`` variables."""

from coding_env.server.environment import CodingEnvironment
from openenv.server import create_app

app = create_app(CodingEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
