#!/bin/sh
# kernels.sh: what the compression kernels and the CPU training step reach on this machine, as
# ratios within one run (tests/bench/kernels.lua): the dense FP32 product's rate as a fraction of
# the run's DRAM read ceiling at every batch, with the checks (batch 1 at 0.8 or more; batches 2-8
# at 0.7 or more, or recorded compute-bound with the rate that binds; the experiment's read at or
# above its FP32 product; no efficiency or fraction of the run above 1.05, tests/fractions.lua),
# which make the script exit 1 when one is missed; each compressed format's speed-up over FP32 against its byte ratio (the
# ideal) and what bounds it (memory, or decoding: its rate from cache); the training step's model
# FLOP/s against the run's sustained SGEMM rate; then PyTorch's CPU step on the same shape and
# thread count, run right after (tests/bench/torch-cpu-gpt2.py; skipped without torch). A
# benchmark, not a test: run it on a quiet machine; the load average is printed beside the figures.
#   [ISA=avx2] [TORCH=/usr/bin/python3] [SR_BIN=src/sparkreport] [SR_SET="key=value ..."] sh tests/bench/kernels.sh
# SR_SET: --set overrides for a short run that only checks the script end to end (e.g.
# "compress.budget_s=20 compress.weights_size=64MiB train.steps=2"); the figures are then not the benchmark's.
set -eu
: "${SR_BIN:=src/sparkreport}"
# TORCH: the python3 that has torch; unset, python3 when it has it, else Debian's /usr/bin/python3
if [ -z "${TORCH:-}" ]; then
  TORCH=python3
  python3 -c 'import torch' 2>/dev/null || { [ -x /usr/bin/python3 ] && TORCH=/usr/bin/python3; }
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
threads=$("$SR_BIN" info --json 2>/dev/null | sed -n 's/.*"openmp_max_threads":[^0-9]*\([0-9]*\).*/\1/p' | head -1)
: "${threads:=$(nproc)}"
echo "load before: $(cat /proc/loadavg)"
set --
for s in ${SR_SET:-}; do set -- "$@" --set "$s"; done
"$SR_BIN" run "$here/kernels.lua" -o "$tmp" -q ${ISA:+--set compress.isa=$ISA} "$@" > /dev/null
echo "load after sparkreport: $(cat /proc/loadavg)"
python3 - "$tmp/latest/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ex = {e["name"]: e for e in r["experiments"]}
c = ex["compress"]
d = c["info"].get("dram", {})
print("DRAM figure: %.1f GB/s (%s %s, %s stores, %s); ceilings: read %.1f, write %.1f, mix %.1f GB/s; %s"
      % (d.get("gbps", 0), d.get("kernel"), d.get("precision"), d.get("stores"), d.get("source"), d.get("read_gbps", 0),
         d.get("write_gbps", 0), d.get("mix_gbps", 0), (d.get("write_allocate") or {}).get("counted", "?")))
recs = [x for x in c["results"] if x.get("series") == "gemv" and x.get("valid")]
missed = []
def check(ok, what):
    print("  %s %s" % ("PASS" if ok else "MISS", what))
    if not ok:
        missed.append(what)
rd = next((x for x in c["results"] if x.get("series") == "read" and x.get("valid")), None)
for b in sorted({x["batch"] for x in recs}):
    f32 = next((x for x in recs if x["scheme"] == "fp32" and x["batch"] == b), None)
    if f32:
        # judged against the read of the same matrix interleaved with it (product_over_read, the pairs'
        # median: a VM's bandwidth moves within seconds; above 1.05 the record writes no fraction of a
        # read that is no ceiling, and the product is memory-bound); the run's read ceiling beside it
        adj = f32.get("read_adjacent") or {}
        frac, pairs = adj.get("product_over_read", f32.get("read_fraction_dram", 0)), adj.get("pairs", 0)
        print("batch %d: FP32 baseline %.1f GB/s best, %.1f median: %.2f of the read interleaved with it (%d pairs), "
              "%.2f of the run's read ceiling; bound %s%s; isa %s"
              % (b, f32["gbps_best"], f32["gbps_median"], frac, pairs, f32.get("read_fraction_dram", 0), f32.get("bound", "n/a"),
                 " (%.2f if its arithmetic from cache, %.1f GFLOP/s, and its stream did not overlap)"
                 % (f32["fraction_if_serial"], f32["bound_gflops"]) if f32.get("fraction_if_serial") else "", f32.get("isa")))
        if b == 1:
            check(frac >= 0.8, "FP32 batch 1 at %.2f of the read (goal 0.8)" % frac)
            if rd:
                check(rd["gbps_best"] >= f32["gbps_best"] / 1.05, "the experiment's read %.1f GB/s at or above its FP32 GEMV %.1f "
                      "(5 %% for noise)" % (rd["gbps_best"], f32["gbps_best"]))
        else:
            check(frac >= 0.7 or (f32.get("bound") == "compute" and f32.get("bound_gflops")),
                  "FP32 batch %d at %.2f of the read (goal 0.7), or compute-bound with its rate (%s)"
                  % (b, frac, "bound %s, %.1f GFLOP/s" % (f32.get("bound"), f32["bound_gflops"]) if f32.get("bound_gflops")
                     else "none recorded"))
    print("  %-10s %8s %8s %8s %12s %12s %s" % ("scheme", "speed-up", "ideal", "of ideal", "Gw/s DRAM", "Gw/s cache", "bound"))
    for x in recs:
        if x["batch"] != b or x["scheme"] == "fp32":
            continue
        cache = (x.get("cache") or {}).get("gweights_per_s")
        print("  %-10s %7.2fx %7.2fx %8.2f %12s %12s %s" % (x["scheme"], x.get("speedup_vs_fp32", 0), x["ideal_speedup_vs_fp32"],
              x.get("speedup_of_ideal", 0), "%.2f" % x["gweights_per_s"] if "gweights_per_s" in x else "n/a",
              "%.2f" % cache if cache else "n/a", x.get("bound", "n/a")))
t = ex["train"]["results"][0]
cal = ex["model"]["info"]["calibration"]
sgemm = cal["peak_flops"]["fp32"]
print("training step: %s, %d threads: median %.3f s, %.1f tokens/s, model %.1f GFLOP/s = %.2f of the SGEMM rate %.1f GFLOP/s (goal 0.85)"
      % (t["shape"], t["threads"], t["time_s"]["median"], t["tokens_per_s"], t["achieved_flops"] / 1e9,
         t["achieved_flops"] / sgemm, sgemm / 1e9))
mm = t["flops_by_class"]["matmul"] / t["time_by_class_s"]["matmul"]
print("matmuls in the step: %.1f GFLOP/s = %.2f of the SGEMM rate (%.0f %% of the step's FLOPs)"
      % (mm / 1e9, mm / sgemm, 100 * t["flops_by_class"]["matmul"] / sum(t["flops_by_class"].values())))
print("time by op class: " + ", ".join("%s %.0f %%" % (k, 100 * v / t["time_s"]["median"])
      for k, v in sorted(t["time_by_class_s"].items(), key=lambda kv: -kv[1]) if v > 0))
json.dump({"tokens_per_s": t["tokens_per_s"], "flops": t["achieved_flops"], "sgemm": sgemm},
          open(sys.argv[1] + ".ours", "w"))
open(sys.argv[1] + ".missed", "w").write("\n".join(missed))
PY
echo "efficiencies and fractions of the run (tests/fractions.lua; none above 1.05):"
if "${LUA:-lua5.4}" "$here/../fractions.lua" "$tmp/latest/results.json"; then :; else
  echo "a fraction above 1.05" >> "$tmp/latest/results.json.missed"
fi
if "$TORCH" -c 'import torch' 2>/dev/null; then
  "$TORCH" "$here/torch-cpu-gpt2.py" "${threads}" 4 1 | tee "$tmp/torch.txt" | grep -v '^json:'
  echo "load after torch: $(cat /proc/loadavg)"
  sed -n 's/^json: //p' "$tmp/torch.txt" > "$tmp/theirs.json"
  python3 - "$tmp/latest/results.json.ours" "$tmp/theirs.json" <<'PY'
import json, sys
ours, theirs = (json.load(open(f)) for f in sys.argv[1:3])
ratio = ours["tokens_per_s"] / theirs["tokens_per_s"]
print("sparkreport / PyTorch CPU, tokens/s: %.2f (goal 1.5)" % ratio)
# the same shape does the same model FLOPs per token: PyTorch's model FLOP/s follows from its tokens/s
flops = ours["flops"] / ratio
ceiling = max(ours["sgemm"], theirs["mm_flops"])
print("PyTorch's step: model %.1f GFLOP/s = %.2f of sparkreport's SGEMM rate, %.2f of torch.mm's (%.1f GFLOP/s)"
      % (flops / 1e9, flops / ours["sgemm"], flops / theirs["mm_flops"], theirs["mm_flops"] / 1e9))
print("1.5x PyTorch needs model %.1f GFLOP/s = %.2f of the faster FP32 GEMM here (%.1f GFLOP/s)%s"
      % (1.5 * flops / 1e9, 1.5 * flops / ceiling, ceiling / 1e9,
         ": above 1, out of reach of an FP32 step on this machine" if 1.5 * flops > ceiling else ""))
PY
else
  echo "PyTorch: not measured: $TORCH has no torch (Debian: apt-get install python3-torch, then TORCH=/usr/bin/python3)"
fi
if [ -s "$tmp/latest/results.json.missed" ]; then
  echo "kernels: missed: $(tr '\n' ';' < "$tmp/latest/results.json.missed")"
  exit 1
fi
echo "kernels: every check met"
