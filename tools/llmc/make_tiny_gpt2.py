#!/usr/bin/env python3
"""tools/llmc/make_tiny_gpt2.py OUT_DIR: a tiny GPT-2 in llm.c's file formats,
made here from a fixed seed, so llm.c's training programs run on the lab
without downloading anything.

Writes, in OUT_DIR:
  gpt2_124M.bin   the checkpoint llm.c's mains load by that name: llm.c's
                  header (256 int32: magic 20240326, version 3, max_seq_len,
                  vocab_size, num_layers, num_heads, channels,
                  padded_vocab_size), then the float32 parameters in llm.c's
                  order (wte, wpe, ln1w, ln1b, qkvw, qkvb, attprojw,
                  attprojb, ln2w, ln2b, fcw, fcb, fcprojw, fcprojb, lnfw, lnfb),
                  initialised as GPT-2 is (normal, std 0.02; layer norms 1, 0).
  train.bin, val.bin  token files in llm.c's data format (256 int32: magic
                  20240520, version 1, token count; then uint16 tokens): a toy
                  corpus, one short "sentence" of token ids repeated, so that
                  a few steps visibly lower the loss.

The vocabulary is GPT-2's (50257, padded to 50304) because llm.c's
generation starts from token 50256 (<|endoftext|>); every other dimension is
small (2 layers, 2 heads, 32 channels, 64 positions). Standard library only.
"""
import random
import struct
import sys
from array import array
from pathlib import Path

MAX_T, V, VP, L, NH, C = 64, 50257, 50304, 2, 2, 32


def tensor_sizes():
    return [
        ("wte", VP * C, "normal"), ("wpe", MAX_T * C, "normal"),
        ("ln1w", L * C, "ones"), ("ln1b", L * C, "zeros"),
        ("qkvw", L * 3 * C * C, "normal"), ("qkvb", L * 3 * C, "zeros"),
        ("attprojw", L * C * C, "normal"), ("attprojb", L * C, "zeros"),
        ("ln2w", L * C, "ones"), ("ln2b", L * C, "zeros"),
        ("fcw", L * 4 * C * C, "normal"), ("fcb", L * 4 * C, "zeros"),
        ("fcprojw", L * C * 4 * C, "normal"), ("fcprojb", L * C, "zeros"),
        ("lnfw", C, "ones"), ("lnfb", C, "zeros"),
    ]


def write_checkpoint(path, rng):
    header = array("i", [0] * 256)
    header[0:8] = array("i", [20240326, 3, MAX_T, V, L, NH, C, VP])
    params = array("f")
    for _, n, init in tensor_sizes():
        if init == "normal":
            params.extend(rng.gauss(0.0, 0.02) for _ in range(n))
        else:
            params.extend([1.0 if init == "ones" else 0.0] * n)
    with open(path, "wb") as f:
        header.tofile(f)
        params.tofile(f)
    return len(params)


def write_tokens(path, tokens):
    header = array("i", [0] * 256)
    header[0:3] = array("i", [20240520, 1, len(tokens)])
    with open(path, "wb") as f:
        header.tofile(f)
        array("H", tokens).tofile(f)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20240326)
    n = write_checkpoint(out / "gpt2_124M.bin", rng)
    sentence = [rng.randrange(V - 1) for _ in range(24)]  # never 50256, the end-of-text token
    # B=4, T=64 batches: 5 for training (+1 token for the last target), 2 for validation.
    train = (sentence * 64)[: 5 * 4 * 64 + 1]
    val = (sentence * 32)[: 2 * 4 * 64 + 1]
    write_tokens(out / "train.bin", train)
    write_tokens(out / "val.bin", val)
    print(f"{out}: gpt2_124M.bin ({n} parameters: L={L} NH={NH} C={C} maxT={MAX_T} V={V} Vp={VP}), "
          f"train.bin ({len(train)} tokens), val.bin ({len(val)} tokens)")


if __name__ == "__main__":
    main()
