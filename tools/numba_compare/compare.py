"""Times the kernels of kernels.cu in Numba's CUDA simulator and in GPU Lab's
interpreter, same launch, same sizes, CPU seconds of the launch alone (the
better of REPEATS runs each), and prints a Markdown table.

A measuring tool (issue 27: "at least 1,000x Numba's CUDA simulator on every
kernel family"), not part of the lab: run it through run.sh, which puts Numba
in a virtual environment of its own.

    tools/numba_compare/run.sh [BUILD_DIR]
"""
import json
import os
import subprocess
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba is imported
import numpy as np  # noqa: E402
from numba import cuda, float32  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GPULAB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "build", "gpulab")
REPEATS = 2
TILE = 16


@cuda.jit
def vector_add(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]


@cuda.jit
def gemm_naive(A, B, C, n):
    row = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    col = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    if row >= n or col >= n:
        return
    acc = float32(0.0)
    for k in range(n):
        acc += A[row * n + k] * B[k * n + col]
    C[row * n + col] = acc


@cuda.jit
def gemm_tiled(A, B, C, n):
    As = cuda.shared.array((TILE, TILE), float32)
    Bs = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, n, TILE):
        As[ty, tx] = A[row * n + k0 + tx]
        Bs[ty, tx] = B[(k0 + ty) * n + col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    C[row * n + col] = acc


@cuda.jit
def reduce_shared(inp, out, n):
    s = cuda.shared.array(256, float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    s[cuda.threadIdx.x] = inp[i] if i < n else float32(0.0)
    cuda.syncthreads()
    stride = cuda.blockDim.x // 2
    while stride > 0:
        if cuda.threadIdx.x < stride:
            s[cuda.threadIdx.x] += s[cuda.threadIdx.x + stride]
        cuda.syncthreads()
        stride //= 2
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = s[0]


def numba_seconds(launch, check):
    """The better CPU time of REPEATS launches (all the simulator's threads)."""
    best = None
    for _ in range(REPEATS):
        t0 = time.process_time()
        launch()
        cuda.synchronize()
        spent = time.process_time() - t0
        best = spent if best is None else min(best, spent)
    check()
    return best


def gpulab_seconds(kernel, grid, block, args):
    best = None
    for _ in range(REPEATS):
        cmd = [GPULAB, "sim", os.path.join(HERE, "kernels.cu"), "--kernel", kernel, "--grid", grid, "--block",
               block, "--timing", "off", "--threads", "1", "--json", "--arg", *args]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        report = json.loads(out.stdout)
        if not report.get("ok"):
            sys.exit(f"gpulab sim {kernel} failed: {report.get('errors')}")
        spent = report["metrics"]["sim_cpu_seconds"]
        best = spent if best is None else min(best, spent)
    return best, report["metrics"]["thread_instructions"]


def main():
    rng = np.random.default_rng(1)
    rows = []

    n = 1 << 14
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.zeros(n, dtype=np.float32)
    t_numba = numba_seconds(lambda: vector_add[n // 256, 256](a, b, c, n),
                            lambda: np.testing.assert_allclose(c, a + b, rtol=1e-6))
    t_lab, insts = gpulab_seconds("vector_add", str(n // 256), "256",
                                  [f"f32[{n}]=rand", f"f32[{n}]=rand", f"f32[{n}]", f"i32={n}"])
    rows.append(("coalesced", "vector_add", f"{n} elements", t_numba, t_lab, insts))

    n = 64
    A, B = rng.random(n * n, dtype=np.float32), rng.random(n * n, dtype=np.float32)
    C = np.zeros(n * n, dtype=np.float32)
    ref = (A.reshape(n, n).astype(np.float64) @ B.reshape(n, n).astype(np.float64)).ravel()
    gemm_args = [f"f32[{n * n}]=rand", f"f32[{n * n}]=rand", f"f32[{n * n}]", f"i32={n}"]
    t_numba = numba_seconds(lambda: gemm_naive[(n // 16, n // 16), (16, 16)](A, B, C, n),
                            lambda: np.testing.assert_allclose(C, ref, rtol=1e-4))
    t_lab, insts = gpulab_seconds("gemm_naive", f"{n // 16},{n // 16}", "16,16", gemm_args)
    rows.append(("uncoalesced", "gemm_naive", f"{n}^3", t_numba, t_lab, insts))

    C[:] = 0
    t_numba = numba_seconds(lambda: gemm_tiled[(n // TILE, n // TILE), (TILE, TILE)](A, B, C, n),
                            lambda: np.testing.assert_allclose(C, ref, rtol=1e-4))
    t_lab, insts = gpulab_seconds("gemm_tiled", f"{n // TILE},{n // TILE}", f"{TILE},{TILE}", gemm_args)
    rows.append(("shared-heavy", "gemm_tiled", f"{n}^3", t_numba, t_lab, insts))

    n = 1 << 14
    x = rng.random(n, dtype=np.float32)
    part = np.zeros(n // 256, dtype=np.float32)
    t_numba = numba_seconds(lambda: reduce_shared[n // 256, 256](x, part, n),
                            lambda: np.testing.assert_allclose(part, x.reshape(-1, 256).sum(axis=1), rtol=1e-4))
    t_lab, insts = gpulab_seconds("reduce_shared", str(n // 256), "256",
                                  [f"f32[{n}]=rand", f"f32[{n // 256}]", f"i32={n}"])
    rows.append(("shared-heavy", "reduce_shared", f"{n} elements", t_numba, t_lab, insts))

    print("| family | kernel | problem | Numba CUDA simulator, CPU s | GPU Lab, CPU s | GPU Lab faster |")
    print("|---|---|---|---|---|---|")
    for family, kernel, problem, t_numba, t_lab, insts in rows:
        print(f"| {family} | {kernel} | {problem} | {t_numba:.3f} | {t_lab:.6f} | {t_numba / t_lab:,.0f}x |")
    print("\n(tensor cores: Numba's simulator has no wmma or mma, so that family has no comparison)")


if __name__ == "__main__":
    main()
