"""Stable-Baselines3's PPO learns grid world over /ws: ``examples/sb3_grid_world.py``, run here.

4 sessions step together (one batched policy call for the four); its 4096 steps take 5-20 s
on 2 busy cores. Every seed tried (0-21) walks the shortest path (8 steps) after 4096 steps,
and seeds 0-9 already do after 2048: the budget is twice what is needed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from types import ModuleType

import pytest

pytest.importorskip("stable_baselines3", reason="the sb3 extra is not installed")

import torch
from grid_world_env import GridWorldEnv

from tests.conftest import ROOT, env_fixtures

url, env = env_fixtures("grid_world_env.server.app:app", GridWorldEnv)

SHORTEST_PATH = 8  # (0, 0) to (4, 4)


def load_example() -> ModuleType:
    path = ROOT / "examples" / "sb3_grid_world.py"
    spec = importlib.util.spec_from_file_location("sb3_grid_world", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def torch_threads() -> Iterator[None]:
    """The example runs torch on one thread; the rest of the suite gets its threads back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.slow
def test_ppo_learns_to_walk_to_the_goal(url: str, torch_threads: None) -> None:
    lengths = load_example().main(["--base-url", url, "--seed", "0"])
    reached = [n for n in lengths if n is not None]
    assert len(reached) >= 0.9 * len(lengths), lengths
    assert max(reached) <= 2 * SHORTEST_PATH, lengths  # it learnt the way, not a lucky walk
