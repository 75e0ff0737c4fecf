"""Reasoning Core server: ``uvicorn reasoning_core_env.server.app:app`` (its extra installed)."""

from openenv.server import create_app
from reasoning_core_env.server.environment import ReasoningCoreEnvironment

app = create_app(ReasoningCoreEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
