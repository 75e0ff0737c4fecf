"""How long the chess opponents take to answer, per search depth.

Prints figures; asserts nothing. Reproduce with::

    python bench/bench_chess_engine.py            # our alpha-beta at depths 1..3
    python bench/bench_chess_engine.py --games 2  # fewer games

Each game pits a seeded random mover (White) against the engine (Black) until the game ends or
120 half-moves; the figures are milliseconds per engine move (median, 90th percentile, max).
moonfish is timed too when it is installed (``pip install --no-deps moonfish``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import chess
from chess_env.server.engine import best_move
from chess_env.server.opponents import moonfish_installed, picker

MAX_PLIES = 120


def engine_times(pick, games: int) -> list[float]:
    """Milliseconds per engine move over ``games`` games against a random mover."""
    times = []
    for seed in range(games):
        board, mover, rng = chess.Board(), random.Random(seed), random.Random(seed + 1000)
        while not board.is_game_over() and board.ply() < MAX_PLIES:
            if board.turn == chess.WHITE:
                board.push(mover.choice(list(board.legal_moves)))
                continue
            start = time.perf_counter()
            board.push(pick(board, rng))
            times.append(1000 * (time.perf_counter() - start))
    return times


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    print(
        f"{label:<22} moves {len(times):>4}  median {statistics.median(times):7.1f} ms  "
        f"p90 {p90:7.1f} ms  max {ordered[-1]:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    args = parser.parse_args()
    for depth in (1, 2, 3):
        times = engine_times(lambda b, r, d=depth: best_move(b, d, r), args.games)
        report(f"alphabeta depth {depth}", times)
    if moonfish_installed():
        pick = picker("moonfish", 2)
        report("moonfish depth 2", engine_times(pick, 1))
    else:
        print("moonfish is not installed (pip install --no-deps moonfish): skipped")


if __name__ == "__main__":
    main()
