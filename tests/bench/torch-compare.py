#!/usr/bin/env python3
# torch-compare.py: what PyTorch gets on the same GPU, beside sparkreport's figures in the device
# check: a device-to-device copy (GB/s, bytes read + written, nvbandwidth's and STREAM's count)
# and torch.matmul in BF16 at 8192^3 (TFLOPS, 2mnk FLOPs). Best of N after a warm-up, timed
# with CUDA events. Prints one line per figure and a JSON line; without torch or without a
# device, says "not measured: ..." and exits 0, so the check goes on.
import json
import sys


def best_ms(torch, fn, reps):
    """Best time of reps calls of fn, milliseconds, after two warm-up calls."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn(); fn()
    best = float("inf")
    for _ in range(reps):
        start.record(); fn(); stop.record(); stop.synchronize()
        best = min(best, start.elapsed_time(stop))
    return best


def main():
    try:
        import torch
    except ImportError as e:
        print("not measured: no torch on this machine (%s)" % e)
        return 0
    if not torch.cuda.is_available():
        print("not measured: no CUDA device (torch %s: torch.cuda.is_available() is False)" % torch.__version__)
        return 0
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0)}
    n = 2 ** 30 // 8                                  # 1 GiB per array, FP64
    a = torch.ones(n, dtype=torch.float64, device="cuda")
    b = torch.empty_like(a)
    ms = best_ms(torch, lambda: b.copy_(a), 20)
    out["copy_bytes"] = 2 * 8 * n
    out["copy_gbps"] = out["copy_bytes"] / (ms * 1e-3) / 1e9
    del a, b
    m = 8192
    x = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
    y = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
    ms = best_ms(torch, lambda: torch.matmul(x, y), 10)
    out["matmul_bf16_8192_tflops"] = 2.0 * m ** 3 / (ms * 1e-3) / 1e12
    print("%s, torch %s, CUDA %s" % (out["device"], out["torch"], out["cuda"]))
    print("torch copy: %.1f GB/s (2 x 1 GiB per copy, best of 20)" % out["copy_gbps"])
    print("torch.matmul BF16 8192^3: %.1f TFLOPS (best of 10)" % out["matmul_bf16_8192_tflops"])
    print("json: " + json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
