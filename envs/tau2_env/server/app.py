"""τ²-bench server: ``uvicorn tau2_env.server.app:app``."""

from openenv.server import create_app
from tau2_env.server.environment import Tau2Environment
from tau2_env.server.policy_tab import policy_tab

# Every session gets its own Tau2Environment: its own copy-on-write database and conversation.
app = create_app(Tau2Environment, gradio_builder=policy_tab, custom_tab_name="Policy")


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
