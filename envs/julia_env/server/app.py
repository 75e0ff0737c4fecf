"""Julia server: ``uvicorn julia_env.server.app:app``; Julia from ``JULIA_BIN`` or ``PATH``."""

from julia_env.server.environment import JuliaEnvironment
from openenv.server import create_app

app = create_app(JuliaEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
