#!/usr/bin/env python3
"""Warp instructions: the PTX the simulator ran, what the cycle model issues,
and what the GPU executed (Nsight Compute's smsp__inst_executed.sum).

Reads an ncu CSV recorded by the device run (each launch preceded by a line
`== <gpulab sim arguments>`, as docs/fidelity/h200/lessons-ncu.csv has
them), runs every launch again in the simulator with every block timed, and
prints one row per launch with the ratios to the GPU's count and the mean
error of each. Usage, from the repository root:

    python3 tools/inst_counts.py [--gpulab build/gpulab] [--gpu H200] [CSV]
"""
import argparse
import csv
import io
import json
import subprocess
import sys


def launches(path):
    text = open(path).read()
    for chunk in text.split('\n== '):
        lines = chunk.split('\n')
        command = lines[0].lstrip('= ').strip()
        rows = [l for l in lines if l.startswith('"ID"') or l.startswith('"0"')]
        if len(rows) < 2:
            continue
        table = list(csv.reader(io.StringIO('\n'.join(rows))))
        metrics = dict(zip(table[0], table[-1]))
        if 'smsp__inst_executed.sum' not in metrics:
            continue
        yield command.split(), int(metrics['smsp__inst_executed.sum'].replace(',', ''))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('csv', nargs='?', default='docs/fidelity/h200/lessons-ncu.csv')
    ap.add_argument('--gpulab', default='build/gpulab')
    ap.add_argument('--gpu', default='H200', help='the GPU the CSV was measured on')
    a = ap.parse_args()
    errors = {'ptx': [], 'model': []}
    print(f"{'launch':46s} {'PTX':>10s} {'model':>10s} {'GPU':>10s} {'PTX/GPU':>8s} {'model/GPU':>9s}")
    for args, measured in launches(a.csv):
        run = subprocess.run([a.gpulab, 'sim'] + args + ['--gpu', a.gpu, '--json', '--timing', 'full'],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{' '.join(args[:3])}: gpulab failed:\n{run.stderr[-400:]}", file=sys.stderr)
            return 1
        j = json.loads(run.stdout)
        ptx = j['metrics']['warp_instructions']
        model = j['predicted']['cycle_model']['warp_instructions_issued']
        # The lesson, the file (an exercise as shipped or its solution) and the kernel.
        parts = args[0].split('/')
        name = f"{parts[-2]}/{parts[-1].split('.')[0]}:{args[args.index('--kernel') + 1]}"
        grid = args[args.index('--grid') + 1] if '--grid' in args else ''
        print(f"{name + ' ' + grid:46s} {ptx:>10d} {model:>10d} {measured:>10d} {ptx / measured:>8.2f} {model / measured:>9.2f}",
              flush=True)
        errors['ptx'].append(abs(ptx / measured - 1))
        errors['model'].append(abs(model / measured - 1))
    n = len(errors['ptx'])
    if n:
        print(f"mean |ratio - 1| over {n} launches: PTX {sum(errors['ptx']) / n:.1%}, model {sum(errors['model']) / n:.1%}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
