"""Echo server: ``uvicorn echo_env.server.app:app``."""

from typing import Any

from echo_env.server.environment import EchoEnvironment
from openenv.server import create_app


def playground_tab(api: Any) -> None:
    """The playground's Tools tab (Gradio is imported only when the page is built)."""
    from web.tools_panel import tools_tab

    tools_tab(api)


app = create_app(EchoEnvironment, gradio_builder=playground_tab, custom_tab_name="Tools")


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
