"""Chat server: ``uvicorn chat_env.server.app:app``. ``$TOKENIZER_NAME`` names the tokenizer
(default: the shipped one), ``$SYSTEM_PROMPT`` the system prompt, ``$CHAT_RUBRIC`` the reward."""

from typing import Any

from chat_env.server.environment import ChatEnvironment
from openenv.server import create_app


def playground_tab(api: Any) -> None:
    """The playground's own tab (Gradio is imported only when the page is built)."""
    from chat_env.server.playground import chat_tab

    chat_tab(api)


app = create_app(ChatEnvironment, gradio_builder=playground_tab, custom_tab_name="Chat")


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
