"""KernRL's task set: five PyTorch ops to write as Triton kernels.

Each task names the op, its input shapes, the reference (a PyTorch expression, run in the
sandbox on seeded random inputs), the tolerance of the comparison, a *baseline* Triton kernel
(correct but naive: small blocks, many programs, the speed-up is measured against it), our
*reference* kernel (the oracle's answer: correct and much faster in the interpreter) and the
starter template the code box opens with. A submission defines ``solve(*inputs)``: it gets the
input tensors (in the order of ``inputs``) and returns the output tensor, computed by one or more
``@triton.jit`` kernels it launches.

Shapes are small on purpose: on a CPU, Triton runs kernels through its interpreter
(``TRITON_INTERPRET=1``), which costs about a millisecond per program launched.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n\n"


@dataclass(frozen=True)
class Task:
    task_id: str
    title: str
    description: str
    inputs: tuple[tuple[str, tuple[int, ...]], ...]  # (name, shape), float32 each
    reference: str  # a PyTorch expression of the inputs' names
    atol: float
    rtol: float
    baseline: str  # Triton source defining solve()
    solution: str  # our reference Triton kernel, defining solve()
    starter: str  # the code box's template

    @property
    def signature(self) -> str:
        return f"solve({', '.join(name for name, _ in self.inputs)})"

    @property
    def shapes(self) -> str:
        return ", ".join(f"{n}: {tuple(s)}" for n, s in self.inputs)


VECTOR_ADD = Task(
    task_id="vector_add",
    title="Vector add",
    description="out = x + y, element-wise",
    inputs=(("x", (4096,)), ("y", (4096,))),
    reference="x + y",
    atol=1e-6,
    rtol=1e-6,
    baseline=HEADER
    + """@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def solve(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 64),)](x, y, out, n, BLOCK=64)
    return out
""",
    solution=HEADER
    + """@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def solve(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    block = triton.next_power_of_2(n)
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    return out
""",
    starter=HEADER
    + """@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # TODO: load x and y, add them, store the sum in out


def solve(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    return out
""",
)

RELU = Task(
    task_id="relu",
    title="ReLU",
    description="out = max(x, 0), element-wise",
    inputs=(("x", (8192,)),),
    reference="torch.relu(x)",
    atol=0.0,
    rtol=0.0,
    baseline=HEADER
    + """@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def solve(x):
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
    return out
""",
    solution=HEADER
    + """@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def solve(x):
    out = torch.empty_like(x)
    n = x.numel()
    block = triton.next_power_of_2(n)
    relu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
    return out
""",
    starter=HEADER
    + """@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # TODO: load x, keep max(x, 0), store it in out


def solve(x):
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
    return out
""",
)

SOFTMAX = Task(
    task_id="softmax",
    title="Row-wise softmax",
    description="out = softmax(x, dim=1): each row exponentiated and normalised",
    inputs=(("x", (32, 128)),),
    reference="torch.softmax(x, dim=1)",
    atol=1e-5,
    rtol=1e-4,
    baseline=HEADER
    + """@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * n_cols
    m = -float("inf")
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf"))
        tl.store(out_ptr + base + offs, tl.exp(x - m) / s, mask=offs < n_cols)


def solve(x):
    out = torch.empty_like(x)
    rows, cols = x.shape
    softmax_kernel[(rows,)](x, out, cols, BLOCK=64)
    return out
""",
    solution=HEADER
    + """@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    x = tl.load(x_ptr + rows * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(out_ptr + rows * n_cols + cols, e / tl.sum(e, axis=1)[:, None], mask=mask)


def solve(x):
    out = torch.empty_like(x)
    rows, cols = x.shape
    block_m = triton.next_power_of_2(rows)
    softmax_kernel[(triton.cdiv(rows, block_m),)](
        x, out, rows, cols, BLOCK_M=block_m, BLOCK_N=triton.next_power_of_2(cols)
    )
    return out
""",
    starter=HEADER
    + """@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    # TODO: subtract the row's max, exponentiate, divide by the sum, store


def solve(x):
    out = torch.empty_like(x)
    rows, cols = x.shape
    softmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
    return out
""",
)

MATMUL = Task(
    task_id="matmul",
    title="Small matmul",
    description="out = a @ b (float32)",
    inputs=(("a", (64, 64)), ("b", (64, 64))),
    reference="a @ b",
    atol=1e-4,
    rtol=1e-4,
    baseline=HEADER
    + """@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def solve(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype)
    matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K, BM=16, BN=16, BK=16)
    return c
""",
    solution=HEADER
    + """@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def solve(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype)
    bm, bn, bk = (triton.next_power_of_2(v) for v in (M, N, K))
    matmul_kernel[(triton.cdiv(M, bm), triton.cdiv(N, bn))](a, b, c, M, N, K, BM=bm, BN=bn, BK=bk)
    return c
""",
    starter=HEADER
    + """@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    # TODO: loop over K in steps of BK, load tiles of a and b, acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def solve(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype)
    matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K, BM=16, BN=16, BK=16)
    return c
""",
)

LAYERNORM = Task(
    task_id="layernorm",
    title="Layer norm",
    description="out = layer_norm(x, (256,), w, b, eps=1e-5) over each row",
    inputs=(("x", (16, 256)), ("w", (256,)), ("b", (256,))),
    reference="torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, 1e-5)",
    atol=1e-4,
    rtol=1e-4,
    baseline=HEADER
    + """@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0) * n_cols
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        s += tl.sum(tl.load(x_ptr + base + offs, mask=offs < n_cols, other=0.0), axis=0)
    mean = s / n_cols
    v = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        d = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=0.0) - mean
        v += tl.sum(tl.where(offs < n_cols, d * d, 0.0), axis=0)
    rstd = 1.0 / tl.sqrt(v / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        y = (x - mean) * rstd * tl.load(w_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask)
        tl.store(out_ptr + base + offs, y, mask=mask)


def solve(x, w, b):
    out = torch.empty_like(x)
    rows, cols = x.shape
    ln_kernel[(rows,)](x, w, b, out, cols, 1e-5, BLOCK=64)
    return out
""",
    solution=HEADER
    + """@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_rows, n_cols, eps,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    x = tl.load(x_ptr + rows * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=1)[:, None] / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=1)[:, None] / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=cols < n_cols)
    b = tl.load(b_ptr + cols, mask=cols < n_cols)
    tl.store(out_ptr + rows * n_cols + cols, d * rstd * w + b, mask=mask)


def solve(x, w, b):
    out = torch.empty_like(x)
    rows, cols = x.shape
    block_m = triton.next_power_of_2(rows)
    ln_kernel[(triton.cdiv(rows, block_m),)](
        x, w, b, out, rows, cols, 1e-5, BLOCK_M=block_m, BLOCK_N=triton.next_power_of_2(cols)
    )
    return out
""",
    starter=HEADER
    + """@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    # TODO: mean, variance, normalise, scale by w, shift by b, store


def solve(x, w, b):
    out = torch.empty_like(x)
    rows, cols = x.shape
    ln_kernel[(rows,)](x, w, b, out, cols, 1e-5, BLOCK=triton.next_power_of_2(cols))
    return out
""",
)

TASKS: tuple[Task, ...] = (VECTOR_ADD, RELU, SOFTMAX, MATMUL, LAYERNORM)
TASK_IDS: tuple[str, ...] = tuple(t.task_id for t in TASKS)
