"""QED math server: ``uvicorn qed_math_env.server.app:app`` (``qed_math`` extra).

Proofs are graded by the judge model set with ``OPENENV_LLM_JUDGE_URL`` / ``OPENENV_LLM_URL``;
``QED_MATH_GRADER=keyword`` selects the deterministic stand-in instead (tests, offline demos).
"""

from openenv.server import create_app
from qed_math_env.server.environment import QedMathEnvironment

app = create_app(QedMathEnvironment)


def main() -> None:
    from openenv.cli.serve import run

    run(app)


if __name__ == "__main__":
    main()
