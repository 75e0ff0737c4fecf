"""FinQA server: ``uvicorn finqa_env.server.app:app``."""

from finqa_env.server.environment import FinQAEnvironment
from openenv.server import create_app

# Every session gets its own FinQAEnvironment, hence its own read-only table databases.
app = create_app(FinQAEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
