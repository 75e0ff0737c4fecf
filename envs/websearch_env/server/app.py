"""Web search server: ``uvicorn websearch_env.server.app:app``."""

from openenv.server import create_app
from websearch_env.server.environment import WebSearchEnvironment

app = create_app(WebSearchEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
