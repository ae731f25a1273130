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
                  initialised as GPT-2 is (normal, std 0.02; layer norms 1, 0),
                  and wte's padding rows (token ids V .. Vp-1) zero, as
                  llm.c's train_gpt2.py writes them.
  train.bin, val.bin  token files in llm.c's data format (256 int32: magic
                  20240520, version 1, token count; then uint16 tokens): a toy
                  corpus, one short "sentence" of token ids repeated, so that
                  a few steps visibly lower the loss; 5 batches of B=4, T=64
                  each (train_gpt2.c evaluates 5 validation batches, so its
                  val loss and train_gpt2_fp32.cu's -m 5 cover the same ones).

The vocabulary is GPT-2's (50257, padded to 50304) because llm.c's
generation starts from token 50256 (<|endoftext|>); every other dimension is
small (2 layers, 2 heads, 128 channels, 64 positions). Standard library only.

Two of llm.c's assumptions shape the checkpoint; without them
train_gpt2_fp32.cu computes something else than train_gpt2.c on the same
file (on hardware as on the lab):
  * C is a multiple of 128: train_gpt2_fp32.cu's matmul_forward_kernel4 has
    no bounds checks and covers OC in whole 128-column tiles, so with
    C = 32 the QKV (OC = 96) and projection (OC = 32) matmuls write their
    tile's extra columns over the next rows of the output.
  * wte's padding rows are zero: the CUDA classifier (fused_classifier_kernel3)
    turns only the first V logits into gradients and leaves the padding
    logits in place, which the lm-head backward then reads as gradients; they
    are zero only when those rows are. train_gpt2.c ignores the padding.
"""
import random
import struct
import sys
from array import array
from pathlib import Path

MAX_T, V, VP, L, NH, C = 64, 50257, 50304, 2, 2, 128  # C: a multiple of 128 (above)


def tensor_sizes():
    return [
        ("wte", VP * C, "normal_padded"), ("wpe", MAX_T * C, "normal"),
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
        elif init == "normal_padded":  # wte: V real rows, then Vp - V zero rows
            params.extend(rng.gauss(0.0, 0.02) for _ in range(V * C))
            params.extend([0.0] * (n - V * C))
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
    # B=4, T=64 batches: 5 for training and 5 for validation (+1 token for the last target).
    train = (sentence * 64)[: 5 * 4 * 64 + 1]
    val = (sentence * 64)[: 5 * 4 * 64 + 1]
    write_tokens(out / "train.bin", train)
    write_tokens(out / "val.bin", val)
    print(f"{out}: gpt2_124M.bin ({n} parameters: L={L} NH={NH} C={C} maxT={MAX_T} V={V} Vp={VP}), "
          f"train.bin ({len(train)} tokens), val.bin ({len(val)} tokens)")


if __name__ == "__main__":
    main()
