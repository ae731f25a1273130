#!/usr/bin/env python3
"""The cycle model beside Nsight Compute on the H200's twelve kernels: time,
warp instructions per block and the stall reasons' shares.

docs/fidelity/h200/ncu-stalls-2026-11-27.csv holds one row per launch the
device run profiled (time, smsp__inst_executed.sum as warp_inst, issue_pct
and the smsp__pcsamp stall reasons as percentages). This runs the same
twelve launches (the first size of each kernel there) in the simulator as a
check times them (`--sample`, one worker) and prints, per kernel, the
measured and predicted time, the warp instructions per block (the model's
issued against the GPU's executed) with the issue-slot use, and the stall
shares of both. Usage, from the repository root:

    python3 tools/ncu_stalls.py [--gpulab build/gpulab] [KERNEL ...]
"""
import argparse
import csv
import json
import subprocess
import sys

CSV = 'docs/fidelity/h200/ncu-stalls-2026-11-27.csv'

# The launches of the CSV's first size of each kernel: file, grid, block, arguments.
GEMM_4096 = 'i32=4096 i32=4096 i32=4096 f32=1 {t}[16777216]=rand {t}[16777216]=rand f32=0 f32[16777216]=zero'
CONV = 'i32=32 i32=128 i32=28 i32=28 i32=128'
LAUNCHES = [
    ('gemm_02_coalesced', 'kernels/gemm/02_coalesced.cu', '128,128', '32,32', GEMM_4096.format(t='f32')),
    ('gemm_06_vectorized', 'kernels/gemm/06_vectorized.cu', '32,32', '256', GEMM_4096.format(t='f32')),
    ('gemm_07_warptile', 'kernels/gemm/07_warptile.cu', '32,32', '128', GEMM_4096.format(t='f32')),
    ('gemm_08_tensor_core_wmma', 'kernels/gemm/08_tensor_core_wmma.cu', '64,64', '128', GEMM_4096.format(t='f16')),
    ('conv3x3_direct', 'lessons/12-convolution/direct.cu', '25,4,32', '32,32',
     CONV + ' f32[3211264]=rand:1 f32[147456]=rand:2 f32[3211264]=zero'),
    ('conv3x3', 'lessons/.solutions/12-convolution/solution.cu', '25,4,32', '32,32',
     CONV + ' f32[3211264]=rand:1 f32[147456]=rand:2 f32[3211264]=zero'),
    ('gemm_im2col', 'lessons/12-convolution/im2col.cu', '25,4,32', '32,32',
     CONV + ' f32[147456]=rand:2 f32[28901376]=rand:1 f32[3211264]=zero'),
    ('attn_scores', 'lessons/13-attention/naive.cu', '32,32,16', '32,32',
     'i32=16 i32=1024 f32[1048576]=rand f32[1048576]=rand f32[16777216]=zero'),
    ('attn_pv', 'lessons/13-attention/naive.cu', '2,32,16', '32,32',
     'i32=16 i32=1024 f32[16777216]=rand f32[1048576]=rand f32[1048576]=zero'),
    ('attention', 'lessons/.solutions/13-attention/solution.cu', '32,16', '32,16',
     'i32=16 i32=1024 f32[1048576]=rand f32[1048576]=rand f32[1048576]=rand f32[1048576]=zero'),
    ('tc_scores', 'lessons/13-attention/tensor_core.cu', '32,32,32', '128',
     'i32=32 i32=1024 f16[2097152]=rand f16[2097152]=rand f32[33554432]=zero'),
    ('tc_pv', 'lessons/13-attention/tensor_core.cu', '16,32', '128',
     'i32=32 i32=1024 f16[33554432]=rand f16[2097152]=rand f32[2097152]=zero'),
]
STATES = ['selected', 'not_selected', 'long_scoreboard', 'short_scoreboard', 'mio_throttle', 'lg_throttle',
          'barrier', 'wait', 'math_pipe_throttle', 'dispatch_stall']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('kernels', nargs='*', help='only these kernels')
    ap.add_argument('--gpulab', default='build/gpulab')
    a = ap.parse_args()
    measured = {}
    for row in csv.DictReader(open(CSV)):
        measured.setdefault(row['kernel'], row)  # the first size of each kernel
    print(f"{'kernel':26s} {'GPU us':>8s} {'model':>8s} {'err':>5s} | {'inst/blk GPU':>12s} {'model':>10s} {'ratio':>5s}"
          f" | {'issue GPU':>9s} {'model':>5s} | stall shares (%): " + ' '.join(s[:5] for s in STATES))
    time_err = inst_err = share_err = 0.0
    n = 0
    for name, path, grid, block, args in LAUNCHES:
        if a.kernels and name not in a.kernels:
            continue
        cmd = [a.gpulab, 'sim', path, '--kernel', name, '--grid', grid, '--block', block, '--arg'] + args.split() + \
              ['--gpu', 'H200', '--sample', '--json', '--threads', '1']
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{name}: gpulab failed:\n{run.stderr[-400:]}", file=sys.stderr)
            return 1
        j = json.loads(run.stdout)
        c = j['predicted']['cycle_model']
        g = measured[name]
        blocks = 1
        for x in grid.split(','):
            blocks *= int(x)
        t_model, t_gpu = j['predicted']['time_ms'] * 1000, float(g['time_us'])
        i_model, i_gpu = c['warp_instructions_issued'] / j['metrics']['blocks'], float(g['warp_inst']) / blocks
        stalls = c['stall_warp_cycles']
        total = sum(stalls.values())
        model_share = {s: 100 * stalls.get(s, 0) / total for s in STATES}
        gpu_total = sum(float(v or 0) for k, v in g.items() if k.startswith('stall_'))
        gpu_share = {s: 100 * float(g.get(f'stall_{s}_pct') or 0) / gpu_total for s in STATES}
        err = sum(abs(model_share[s] - gpu_share[s]) for s in STATES)
        print(f"{name:26s} {t_gpu:8.1f} {t_model:8.1f} {100 * (t_model / t_gpu - 1):+4.0f}% | {i_gpu:12,.0f} {i_model:10,.0f}"
              f" {i_model / i_gpu:5.2f} | {float(g['issue_pct']):9.1f} {100 * c['issue_slot_utilisation']:5.1f} | model "
              + ' '.join(f'{model_share[s]:5.1f}' for s in STATES))
        print(f"{'':26s} {'':8s} {'':8s} {'':5s} | {'':12s} {'':10s} {'':5s} | {'':9s} {'':5s} | GPU   "
              + ' '.join(f'{gpu_share[s]:5.1f}' for s in STATES) + f"   (summed |difference| {err:.0f})", flush=True)
        time_err += abs(t_model / t_gpu - 1)
        inst_err += abs(i_model / i_gpu - 1)
        share_err += err
        n += 1
    if n:
        print(f"over {n} kernels: mean |time error| {time_err / n:.1%}, mean |instructions / GPU - 1| {inst_err / n:.1%},"
              f" mean summed stall-share difference {share_err / n:.1f}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
