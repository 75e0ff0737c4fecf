"""Coding server: ``uvicorn coding_env.server.app:app``. Limits come from ``CODING_*`` variables."""

from typing import Any

from coding_env.server.environment import CodingEnvironment
from openenv.server import create_app


def playground_tab(api: Any) -> None:
    """The playground's Code tab (Gradio is imported only when the page is built)."""
    from openenv.web.page.tools import code_tab

    code_tab(api)


app = create_app(CodingEnvironment, gradio_builder=playground_tab, custom_tab_name="Code")


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
