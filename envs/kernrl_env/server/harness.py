"""The program that grades one attempt, run INSIDE the sandbox (never imported by the server:
the environment sends this file's text, after a ``CONFIG = {...}`` line, to a fresh sandbox).

It makes the task's seeded inputs, computes the PyTorch reference, loads the baseline kernel and
the submission from files in the sandbox's working directory (Triton's ``@triton.jit`` reads a
kernel's source from its file), runs the submission once for correctness (inputs cloned, every
torch call outside a Triton kernel refused but for allocations and shape queries: the op has to
be computed by a kernel), then times baseline and submission and prints one JSON line after the
nonce. On a machine with CUDA the kernels are compiled for the GPU and timed with
``triton.testing.do_bench``; otherwise ``TRITON_INTERPRET=1`` runs them through Triton's
interpreter on the CPU, timed with ``time.perf_counter`` (interpreter timings).
"""

import contextlib
import io
import json
import os
import sys
import time
import traceback

os.environ.setdefault("OMP_NUM_THREADS", "1")
CONFIG: dict = globals().get("CONFIG") or {}


def _emit(result):
    sys.stdout.write("\n" + CONFIG["nonce"] + json.dumps(result) + "\n")
    sys.stdout.flush()


def _tail(exc, limit):
    """The traceback's frames in the submission's file (kernel.py), then the error itself."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if os.path.basename(f.filename) == "kernel.py"] or frames[-2:]
    text = "".join(traceback.format_list(mine[-3:]))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    return "\n".join(text.splitlines()[-limit:])


def _main():
    try:
        import torch
    except ImportError as exc:
        return {
            "stage": "harness",
            "error": f"the sandbox's Python ({sys.executable}) cannot import torch ({exc}): "
            "install the kernrl extra (torch, triton) for that interpreter",
        }

    gpu = bool(torch.cuda.is_available())
    if not gpu:
        os.environ["TRITON_INTERPRET"] = "1"
    torch.set_num_threads(1)
    import importlib.util

    try:
        import triton
    except ImportError as exc:
        return {
            "stage": "harness",
            "error": f"the sandbox's Python ({sys.executable}) cannot import triton ({exc}): "
            "install the kernrl extra (torch, triton) for that interpreter",
        }
    from torch.overrides import TorchFunctionMode

    device = "cuda" if gpu else "cpu"
    gen = torch.Generator().manual_seed(int(CONFIG["seed"]))
    names = [name for name, _ in CONFIG["inputs"]]
    inputs = [torch.randn(*shape, generator=gen).to(device) for _, shape in CONFIG["inputs"]]
    env = {"torch": torch, **dict(zip(names, inputs, strict=True))}
    expected = eval(CONFIG["reference"], env)  # our reference expression, not the submission

    launches = [0]
    depth = [0]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        runner = InterpretedFunction
    except ImportError:  # pragma: no cover - a Triton without the interpreter
        runner = None
    from triton.runtime.jit import JITFunction

    def wrap(cls):
        original = cls.run

        def run(self, *args, **kwargs):
            launches[0] += 1
            depth[0] += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                depth[0] -= 1

        cls.run = run

    for cls in {c for c in (runner, JITFunction) if c is not None}:
        wrap(cls)

    allowed = {
        "empty",
        "empty_like",
        "zeros",
        "zeros_like",
        "ones",
        "ones_like",
        "full",
        "full_like",
        "empty_strided",
        "numel",
        "size",
        "dim",
        "stride",
        "is_contiguous",
        "contiguous",
        "data_ptr",
        "element_size",
        "__get__",
        "view",
        "reshape",
        "__len__",
        "__hash__",
        "__format__",
        "__repr__",
        "__bool__",
        "__index__",
        "__int__",
        "storage_offset",
        "is_floating_point",
        "unbind",
        "__getitem__",
        "__iter__",
        "__reduce_ex__",
        "new_empty",
        "to",
        "cpu",
        "cuda",
        "__eq__",
        "__ne__",
        "get_device",
        "nelement",
        "untyped_storage",
    }

    uninitialised = {"empty", "empty_like", "empty_strided", "new_empty"}

    class OnlyKernels(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = getattr(func, "__name__", str(func))
            if depth[0] == 0 and name not in allowed:
                raise RuntimeError(
                    f"torch.{name} called outside a Triton kernel: the op must be computed by "
                    "your @triton.jit kernel (torch may only allocate outputs and read shapes)"
                )
            out = func(*args, **(kwargs or {}))
            if name in uninitialised and isinstance(out, torch.Tensor) and out.is_floating_point():
                out.fill_(float("nan"))  # what a kernel leaves unwritten reads NaN, every run
            return out

    def load(name, source):
        path = os.path.join(os.getcwd(), name + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        solve = getattr(module, "solve", None)
        if not callable(solve):
            raise NameError("the kernel file defines no function solve(" + ", ".join(names) + ")")
        return solve

    printed = io.StringIO()

    def call(solve):
        args = [t.clone() for t in inputs]
        with OnlyKernels(), contextlib.redirect_stdout(printed):
            out = solve(*args)
        if gpu:
            torch.cuda.synchronize()
        return out

    def timed(solve, repeats):
        if gpu:
            from triton.testing import do_bench

            return float(do_bench(lambda: call(solve))) / 1000.0
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            call(solve)
            runs.append(time.perf_counter() - start)
        return sorted(runs)[len(runs) // 2]

    result = {"mode": "gpu" if gpu else "interpreter", "triton": triton.__version__}
    baseline = load("baseline_kernel", CONFIG["baseline"])
    call(baseline)
    result["baseline_s"] = timed(baseline, CONFIG["repeats"])
    start = time.perf_counter()
    for _ in range(CONFIG["repeats"]):
        eval(CONFIG["reference"], env)
    result["torch_s"] = (time.perf_counter() - start) / CONFIG["repeats"]
    limit = CONFIG["tail_lines"]
    try:
        with contextlib.redirect_stdout(printed):
            solve = load("kernel", CONFIG["source"])
    except BaseException as exc:
        result.update(
            stage="load", error=f"{type(exc).__name__}: {exc}"[:400], traceback=_tail(exc, limit)
        )
        return result
    launches[0] = 0
    try:
        out = call(solve)
    except BaseException as exc:
        result.update(
            stage="run", error=f"{type(exc).__name__}: {exc}"[:400], traceback=_tail(exc, limit)
        )
        return result
    result["launches"] = launches[0]
    if not isinstance(out, torch.Tensor):
        result.update(stage="check", error=f"solve returned {type(out).__name__}, not a tensor")
        return result
    if tuple(out.shape) != tuple(expected.shape):
        result.update(
            stage="check",
            error=f"output shape {tuple(out.shape)}, expected {tuple(expected.shape)}",
        )
        return result
    out = out.detach().to("cpu", torch.float32)
    exp = expected.to("cpu", torch.float32)
    finite = bool(torch.isfinite(out).all())
    result["max_abs_err"] = float((out - exp).abs().max()) if finite else float("inf")
    result["correct"] = finite and bool(
        torch.allclose(out, exp, atol=CONFIG["atol"], rtol=CONFIG["rtol"])
    )
    if launches[0] == 0:
        result.update(
            stage="check",
            correct=False,
            error="solve launched no Triton kernel: the op must run in a @triton.jit kernel",
        )
        return result
    if result["correct"]:
        result["kernel_s"] = timed(solve, CONFIG["repeats"])
    result["stage"] = "done"
    result["printed"] = printed.getvalue()[-1000:]
    return result


try:
    _emit(_main())
except BaseException as exc:
    _emit(
        {
            "stage": "harness",
            "error": f"{type(exc).__name__}: {exc}"[:400],
            "traceback": _tail(exc, 12),
        }
    )
