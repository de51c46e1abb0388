#!/usr/bin/env python3
"""train-ops.py: what a training run's results.json says about its steps, op by op: per
configuration the median step, tokens/s, the time by op class, the slowest ops, and the share of
the step each gradient reduction over tokens takes (embed_bwd, layernorm_bwd; the biases' column
sums run inside matmul_wgrad's record). A reduction above LIMIT % of the step is flagged; the
skipped configurations are listed with their reasons. Standard library only (runs on a bare
GPU machine).
    python3 tests/bench/train-ops.py RUN/results.json [LIMIT_PERCENT (default 3)]"""
import json
import sys

REDUCTIONS = ("embed_bwd", "layernorm_bwd")


def config(rec, limit):
    name = "%s %s %s" % (rec["shape"], rec["precision"], rec["device"])
    if not rec.get("time_s"):
        print("%s: not timed (valid %s): %s" % (name, rec.get("valid"), rec.get("error") or rec.get("not_timed")))
        return 0
    step = rec["time_s"]["median"]
    print("%s: valid %s, step %.4f s (median of %d), %.0f tokens/s, %.1f TFLOP/s model"
          % (name, rec["valid"], step, len(rec["samples_s"]), rec["tokens_per_s"], rec["achieved_flops"] / 1e12))
    shares = ", ".join("%s %.1f %%" % (c, 100 * s / step) for c, s in rec["time_by_class_s"].items())
    print("  by class: " + shares)
    ops = sorted((o for o in rec["ops"] if "time_s" in o), key=lambda o: -o["time_s"])
    for o in ops[:6]:
        print("  %-40s %9.1f us  %5.1f %%" % (o["label"], 1e6 * o["time_s"], 100 * o["time_s"] / step))
    red = [o for o in ops if o["op"] in REDUCTIONS]
    bad = [o for o in red if o["time_s"] > limit / 100 * step]
    if red:
        worst = max(red, key=lambda o: o["time_s"])
        print("  reductions: %d ops, %.1f %% of the step together; largest %s %.2f %% (limit %g %%): %s"
              % (len(red), 100 * sum(o["time_s"] for o in red) / step, worst["label"],
                 100 * worst["time_s"] / step, limit, "FLAGGED" if bad else "ok"))
    return len(bad)


def main():
    doc = json.load(open(sys.argv[1]))
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    flagged = 0
    for exp in doc["experiments"]:
        if exp.get("name") != "train":
            continue
        for rec in exp.get("results", []):
            flagged += config(rec, limit)
        for s in exp.get("skipped", []):
            print("skipped: %s: %s" % (s["item"], s["reason"]))
    sys.exit(1 if flagged else 0)


main()
