"""Echo server: ``uvicorn echo_env.server.app:app``."""

from echo_env.server.environment import EchoEnvironment
from openenv.server import create_app

app = create_app(EchoEnvironment)  # its playground gets the Tools tab of every tool env


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
