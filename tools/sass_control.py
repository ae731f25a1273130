#!/usr/bin/env python3
"""The scheduling ptxas wrote into a kernel's SASS: each instruction's stall
count, yield flag, write and read dependency barriers and wait mask, read
from the control bits of the 128-bit instructions (Volta to Hopper: bits
105-108 stall, 109 yield, 110-112 write barrier, 113-115 read barrier,
116-121 wait mask; 7 means no barrier), beside nvdisasm's text.

The cycle model takes two inputs from it (lab/sim/cycle/params.cpp,
[LAB-SASS]): a warp's loads and stores are never less than 4 cycles apart
(`--gaps` prints the cycles between consecutive memory instructions), and
a loop's global loads share dependency barriers SB2-SB5.

Usage, from the repository root (nvdisasm: the bootstrap's .tools/nvdisasm):

    nvcc -arch=sm_90 -cubin -o k.cubin kernels/mechanisms/l1_hits.cu
    python3 tools/sass_control.py k.cubin [--kernel l1_hits] [--gaps]
"""
import argparse
import collections
import glob
import re
import struct
import subprocess
import sys

MEMORY = re.compile(r'\b(LDG|LDS|STS|STG|LDL|STL|ATOM|ATOMS|RED|LDGSTS)\b')


def sections(data):
    shoff = struct.unpack_from('<Q', data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    for h in heads:
        start = names + h[0]
        yield data[start:data.index(b'\0', start)].decode(), data[h[4]:h[4] + h[5]]


def nvdisasm():
    found = glob.glob('.tools/nvdisasm/**/bin/nvdisasm', recursive=True)
    return found[0] if found else 'nvdisasm'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('cubin')
    ap.add_argument('--kernel', help='kernel name (default: every kernel)')
    ap.add_argument('--gaps', action='store_true', help='only the cycles between consecutive memory instructions')
    a = ap.parse_args()
    data = open(a.cubin, 'rb').read()
    text = subprocess.run([nvdisasm(), '-c', a.cubin], capture_output=True, text=True, check=True).stdout
    listing = {}
    current = None
    for line in text.splitlines():
        m = re.search(r'\.section\s+(\.text\.\S+?),', line) or re.match(r'\s*(\.text\.\S+):', line)
        if m:
            current = m.group(1)
        m = re.search(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m and current:
            listing.setdefault(current, []).append((int(m.group(1), 16), m.group(2)))
    for name, code in sections(data):
        if not name.startswith('.text.') or name not in listing:
            continue
        if a.kernel and name != '.text.' + a.kernel:
            continue
        print(f'== {name[6:]}')
        gaps, since = collections.Counter(), None
        for off, asm in listing[name]:
            hi = struct.unpack_from('<QQ', code, off)[1]
            ctrl = hi >> 41
            stall, yld = ctrl & 0xf, (ctrl >> 4) & 1
            wbar, rbar, wait = (ctrl >> 5) & 7, (ctrl >> 8) & 7, (ctrl >> 11) & 0x3f
            if MEMORY.search(asm):
                if since is not None:
                    gaps[since] += 1
                since = stall
            elif since is not None:
                since += stall
            if re.search(r'\b(BRA|EXIT|RET|BAR)\b', asm):
                since = None
            if not a.gaps:
                print(f'{off:05x} stall={stall:2} yield={yld} wbar={wbar} rbar={rbar} wait={wait:06b}  {asm}')
        print('cycles between consecutive memory instructions: ' +
              ', '.join(f'{g}: {c}' for g, c in sorted(gaps.items())))


if __name__ == '__main__':
    sys.exit(main())
