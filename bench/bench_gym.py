"""Cost per step of the Gymnasium wrapper (openenv.integrations.gymnasium) over the bare client.

    python bench/bench_gym.py                        # grid world, CartPole, Atari Pong
    python bench/bench_gym.py --envs grid_world --steps 4000 --rounds 7

Each env is served from a child process (API only), so the server's work does not share this
process's interpreter. One blocking client steps it bare (``client.step(action)``, the action
model built once; for Atari the screen decoded to an array too, as a trainer needs it), and one
``GymEnv`` steps it through the wrapper (``env.step(i)``: the action encoded, the observation
turned into numpy, terminated/truncated read), both resetting when an episode ends. The rounds
alternate bare and wrapped, so a change in the machine's load hits both; the figure is the
median over rounds. On a busy machine the network figures move by more than the wrapper
costs, so the client-side columns time the same loops against a recorded result (the server
and the socket taken out): what the wrapper adds there, relative to a real bare step, is its
overhead. Goal: under 10 % per step.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atari_env import AtariAction, AtariEnv
from grid_world_env import GridWorldAction, GridWorldEnv
from gymnasium_env import GymnasiumAction, GymnasiumEnv

from openenv.integrations.gymnasium import GymEnv
from openenv.runtime import LocalProcessProvider, app_of_package


@dataclass(frozen=True)
class Case:
    package: str
    client_cls: type
    actions: list[Any]  # the bare client's actions; the wrapper steps their indices
    reset_options: dict[str, Any]
    decode: Callable[[Any], Any] = lambda observation: observation


CASES = {
    "grid_world": Case(
        "grid_world_env",
        GridWorldEnv,
        [GridWorldAction(action=m) for m in ("UP", "DOWN", "LEFT", "RIGHT")],
        {},
    ),
    "cartpole": Case(
        "gymnasium_env",
        GymnasiumEnv,
        [GymnasiumAction(action=a) for a in (0, 1)],
        {"env_id": "CartPole-v1"},
    ),
    "atari": Case(
        "atari_env",
        AtariEnv,
        [AtariAction(action_id=a) for a in range(6)],
        {"game_name": "pong"},
        decode=lambda observation: observation.screen_array(),
    ),
}


def bare_round(client: Any, case: Case, steps: int) -> float:
    """Seconds per step of the bare client."""
    client.reset(seed=0, **case.reset_options)
    start = time.perf_counter()
    for i in range(steps):
        result = client.step(case.actions[i % len(case.actions)])
        case.decode(result.observation)
        if result.done:
            client.reset(**case.reset_options)
    return (time.perf_counter() - start) / steps


def wrapped_round(env: GymEnv, case: Case, steps: int) -> float:
    """Seconds per step through the wrapper."""
    env.reset(seed=0)
    start = time.perf_counter()
    for i in range(steps):
        _, _, terminated, truncated, _ = env.step(i % len(case.actions))
        if terminated or truncated:
            env.reset()
    return (time.perf_counter() - start) / steps


class Replay:
    """A stand-in for the blocking client: converts the action as the real client does (its
    ``_step_payload``), then returns a recorded result, so only client-side work is timed."""

    def __init__(self, client: Any, case: Case) -> None:
        self._client = client
        self._result = client.reset(seed=0, **case.reset_options)

    @property
    def client(self) -> Any:
        return self._client.client  # the EnvClient: its action model, as for the real one

    def reset(self, **kwargs: Any) -> Any:
        return self._result

    def step(self, action: Any) -> Any:
        self.client._step_payload(action)
        return self._result

    def state(self) -> Any:
        return self._client.state()

    def close(self) -> None:
        pass


def client_side(client: Any, case: Case, schema: dict[str, Any], steps: int) -> tuple[float, float]:
    """Seconds per step spent in this process, bare and wrapped, the server taken out."""
    replay = Replay(client, case)
    env = GymEnv(replay, reset_options=case.reset_options, schema=schema)  # type: ignore[arg-type]
    return bare_round(replay, case, steps), wrapped_round(env, case, steps)


def measure(name: str, steps: int, rounds: int) -> tuple[float, float, float, float]:
    case = CASES[name]
    provider = LocalProcessProvider(
        app_of_package(case.package), env_vars={"ENABLE_WEB_INTERFACE": "0"}
    )
    provider.start()
    try:
        provider.wait_until_healthy()
        bare = case.client_cls(provider.base_url).sync()
        env = GymEnv(case.client_cls(provider.base_url), reset_options=case.reset_options)
        try:
            bare_round(bare, case, steps // 10)  # warm-up: connections, caches
            wrapped_round(env, case, steps // 10)
            times: tuple[list[float], list[float]] = ([], [])
            for _ in range(rounds):
                times[0].append(bare_round(bare, case, steps))
                times[1].append(wrapped_round(env, case, steps))
            local = [client_side(bare, case, env.schema, steps) for _ in range(rounds)]
            return (
                statistics.median(times[0]),
                statistics.median(times[1]),
                statistics.median(t[0] for t in local),
                statistics.median(t[1] for t in local),
            )
        finally:
            bare.close()
            env.close()
    finally:
        provider.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--steps", type=int, default=2000, help="steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(
        f"GymEnv vs bare client, {os.cpu_count()} CPUs, {args.rounds} rounds of "
        f"{args.steps} steps (median)\n"
        f"{'env':>12} {'bare µs/step':>13} {'GymEnv µs/step':>15} {'overhead':>9}"
        f" {'client-side bare/GymEnv µs':>27} {'overhead':>9}"
    )
    for name in args.envs:
        bare, wrapped, local_bare, local_wrapped = measure(name, args.steps, args.rounds)
        overhead = (wrapped - bare) / bare * 100
        added = (local_wrapped - local_bare) / bare * 100  # the wrapper's work, per real step
        print(
            f"{name:>12} {bare * 1e6:>13.1f} {wrapped * 1e6:>15.1f} {overhead:>8.1f}%"
            f" {local_bare * 1e6:>16.1f} / {local_wrapped * 1e6:<8.1f} {added:>8.1f}%",
            flush=True,
        )


if __name__ == "__main__":
    main()
