"""Python CodeAct server: ``uvicorn python_codeact_env.server.app:app``."""

from openenv.server import create_app
from python_codeact_env.server.environment import PythonCodeactEnvironment

app = create_app(PythonCodeactEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
