#!/usr/bin/env python3
# torch-cpu-gpt2.py: PyTorch's CPU training step on the shape tests/bench/train-gpt2.lua trains (a
# nanoGPT-style GPT-2 small: 12 blocks, hidden 768, 12 heads, vocabulary 50257, sequence 256, batch
# 4, untied LM head, biases, GELU (tanh), AdamW), FP32, on the thread count given: forward,
# cross-entropy, backward, gradient clipping at 1, AdamW. Prints the median step time over STEPS
# timed steps after WARMUP, tokens/s, torch.mm's FP32 rate on 1024^3 (the fastest of 5, the shape
# sparkreport's SGEMM ceiling uses) and a JSON line; without torch says "not measured: ..." and
# exits 0. tests/bench/kernels.sh runs it back to back with sparkreport's step.
#   python3 tests/bench/torch-cpu-gpt2.py [THREADS] [STEPS] [WARMUP]
import json
import math
import statistics
import sys
import time


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    warmup = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError as e:
        print("not measured: no torch on this machine (%s)" % e)
        return 0
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    L, H, A, V, S, B = 12, 768, 12, 50257, 256, 4

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(H), nn.LayerNorm(H)
            self.qkv, self.proj = nn.Linear(H, 3 * H), nn.Linear(H, H)
            self.fc, self.fcproj = nn.Linear(H, 4 * H), nn.Linear(4 * H, H)
            self.register_buffer("mask", torch.tril(torch.ones(S, S, dtype=torch.bool)).view(1, 1, S, S))

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(H, dim=2)
            q, k, v = (t.view(b, s, A, H // A).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(H // A))
            att = F.softmax(att.masked_fill(~self.mask[:, :, :s, :s], float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, s, h)
            x = x + self.proj(y)
            return x + self.fcproj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, H), nn.Embedding(S, H)
            self.blocks = nn.ModuleList(Block() for _ in range(L))
            self.lnf, self.head = nn.LayerNorm(H), nn.Linear(H, V, bias=False)

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.lnf(x))
            return F.cross_entropy(logits.view(-1, V), targets.view(-1))

    model = GPT()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    idx = torch.randint(0, V, (B, S))
    tgt = torch.randint(0, V, (B, S))
    times = []
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        loss = model(idx, tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        t = time.perf_counter() - t0
        if i >= warmup:
            times.append(t)
    med = statistics.median(times)
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    mm = []
    for i in range(6):
        t0 = time.perf_counter()
        torch.mm(a, b)
        mm.append(time.perf_counter() - t0)
    mm_flops = 2 * 1024 ** 3 / min(mm[1:])
    params = sum(p.numel() for p in model.parameters())
    out = {"torch": torch.__version__, "threads": threads, "steps": steps, "step_s": times,
           "step_s_median": med, "tokens_per_s": B * S / med, "params": params, "loss": float(loss),
           "mm_flops": mm_flops}
    print("torch %s CPU, %d threads: GPT-2 small (%.1f M parameters), batch %d, seq %d, FP32" %
          (torch.__version__, threads, params / 1e6, B, S))
    print("step time median %.3f s (min %.3f, max %.3f, %d steps after %d warm-up); tokens/s %.1f" %
          (med, min(times), max(times), steps, warmup, B * S / med))
    print("torch.mm FP32 1024^3: %.1f GFLOP/s (the fastest of 5)" % (mm_flops / 1e9))
    print("json: " + json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
