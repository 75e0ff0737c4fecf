"""QED Math: a problem per episode, solutions graded on a 0–7 rubric. Client exports.

The server needs the ``qed_math`` extra (``math-verify``); the client needs nothing more.
"""

from qed_math_env.client import QedMathEnv
from qed_math_env.models import QedMathAction, QedMathObservation, QedMathState, RubricMark

__all__ = ["QedMathAction", "QedMathEnv", "QedMathObservation", "QedMathState", "RubricMark"]
