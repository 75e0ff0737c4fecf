"""Wire types of KernRL, shared by its client and its server."""

from __future__ import annotations

from pydantic import Field

from openenv.core import Action, Observation, State

MAX_SOURCE_CHARS = 20_000
STARTER = """import torch
import triton
import triton.language as tl

@triton.jit
def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # TODO: load, compute, store

def solve(x):  # takes the task's inputs, returns the output tensor
    out = torch.empty_like(x)
    kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out
"""


class KernrlAction(Action):
    source: str = Field(
        default=STARTER,
        max_length=MAX_SOURCE_CHARS,
        description="Python source with @triton.jit kernel(s) and solve(*inputs) -> output tensor",
        json_schema_extra={"format": "textarea"},
    )


class KernrlObservation(Observation):
    task_id: str = Field(default="", description="The task, e.g. softmax")
    task: str = Field(default="", description="The op to implement, its inputs and shapes")
    signature: str = Field(default="", description="The function to define, e.g. solve(x, y)")
    reference: str = Field(default="", description="The PyTorch reference expression")
    starter: str = Field(default="", description="A template to start from (it is not correct)")
    attempt: int = Field(default=0, description="Attempts used so far")
    max_attempts: int = Field(default=3, description="Attempts allowed this episode")
    correct: bool = Field(default=False, description="This attempt matched the reference")
    max_abs_error: float | None = Field(default=None, description="Largest |out - reference|")
    timing_mode: str = Field(
        default="", description="'interpreter timings (CPU)' or 'GPU timings (CUDA)'"
    )
    kernel_ms: float | None = Field(default=None, description="Median time of your solve, ms")
    baseline_ms: float | None = Field(default=None, description="Same for the baseline kernel")
    torch_ms: float | None = Field(default=None, description="PyTorch eager, for reference")
    speedup: float | None = Field(default=None, description="baseline_ms / kernel_ms")
    error: str = Field(default="", description="Compile or runtime error, if any")
    traceback: str = Field(default="", description="The error's traceback tail")
    best_reward: float = Field(default=0.0, description="Best attempt's reward so far")
    message: str = Field(default="", description="What happened")


class KernrlState(State):
    task_id: str = ""
    max_attempts: int = 3
    attempts: int = 0
    best_reward: float = 0.0
    solved: bool = False
    task_source: str | None = None  # the task file or dataset the task is a row of
    task_index: int | None = None  # its row there
