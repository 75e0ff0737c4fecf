"""KernRL server: ``uvicorn kernrl_env.server.app:app``."""

from kernrl_env.server.environment import KernrlEnvironment
from openenv.server import create_app

app = create_app(KernrlEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
