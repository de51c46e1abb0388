#!/usr/bin/env python3
# device-results.py: the device check's results files in two views. `merge OUT IN...` joins the
# runs of its parts (one scenario each) into one results document that `sparkreport render`
# draws as the full report: experiments, calibration lists and skips side by side, one context.
# `summary IN...` prints, per experiment, what ran, what was not measured and why, failures, and
# the best figure of each group of records: the text the lead reads first.
import hashlib
import json
import sys

METRICS = ("gflops_best", "tokens_per_s", "gbps_best", "speedup_vs_fp32", "error")
GROUP_BY = ("series", "kernel", "alloc", "precision", "direction", "engine", "host_memory", "scheme",
            "shape", "format", "batch", "what", "config", "workload", "system")


def load(path):
    with open(path) as f:
        return json.load(f)


def merge(out, paths):
    docs = [load(p) for p in paths]
    m = docs[0]
    for d in docs[1:]:
        m["experiments"] += d["experiments"]
        for k, v in d.get("calibration", {}).items():
            if isinstance(v, list):
                m["calibration"].setdefault(k, []).extend(v)
        if d.get("status") != "complete":
            m["status"] = d.get("status")
        m["finished_utc"], m["finished_epoch"] = d["finished_utc"], d["finished_epoch"]
        m["elapsed_s"] += d["elapsed_s"]
    sc = m["scenario"]
    sc["name"] = "gpu-check (all parts)"
    sc["title"] = "GPU check: bandwidth, precision, training, compression, model"
    sc["path"] = " ".join(d["scenario"]["path"] for d in docs)
    sc["source"] = "\n".join(d["scenario"]["source"] for d in docs)
    sc["sha256"] = hashlib.sha256(sc["source"].encode()).hexdigest()
    sc["budget_s"] = sum(d["scenario"]["budget_s"] for d in docs)
    with open(out, "w") as f:
        json.dump(m, f, indent=1, sort_keys=True)


def best_lines(results):
    """'group: metric best' for every group of records that carries a metric."""
    best = {}
    for r in results:
        key = " ".join("%s" % r[k] for k in GROUP_BY if isinstance(r.get(k), (str, int)) and k in r)
        for k in METRICS:
            v = r.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if k == "error" or (key, k) not in best or v > best[(key, k)]:
                    best[(key, k)] = v
                break
    return ["%s: %s %.4g" % (key, k, v) for (key, k), v in sorted(best.items())]


def model_lines(info):
    """The model's GPU calibration and validation in one or two lines, when the run has them."""
    cal, v, out = info.get("calibration") or {}, info.get("validation") or {}, []
    if cal:
        out.append("calibration %s (%s): peaks %s TFLOP/s, %.4g GB/s, %.3g us per op, q %s, %s ops"
                   % (cal.get("device"), cal.get("device_name", "cpu"),
                      ", ".join("%s %.4g" % (k, x / 1e12) for k, x in sorted(cal.get("peak_flops", {}).items())),
                      cal.get("bandwidth_Bps", 0) / 1e9, cal.get("op_overhead_s", 0) * 1e6,
                      (cal.get("combine") or {}).get("q"), cal.get("ops_measured")))
    if v:
        out.append("validation %s: n %d, mean |error| %.2f %%, max %.2f %%, bias %.3f, spread %.3f, tau %s"
                   % (v.get("device"), v["n"], 100 * v["mean_abs_error"], 100 * v["max_abs_error"], v["bias"],
                      v["spread"], v.get("kendall_tau")))
    return out


def summary(paths):
    for p in paths:
        d = load(p)
        print("== %s (%s, %.0f s)" % (d["scenario"]["name"], d["status"], d["elapsed_s"]))
        for e in d["experiments"]:
            res, sk = e.get("results", []), e.get("skipped", [])
            bad = [r for r in res if r.get("valid") is False]
            print("%s %s: %s, %d results (%d invalid), %d not measured"
                  % (e["name"], e.get("device", "?"), e.get("status"), len(res), len(bad), len(sk)))
            for reason in sorted({s["reason"] for s in sk})[:6]:
                items = [s["item"] for s in sk if s["reason"] == reason]
                print("  not measured (%d): %s: %s" % (len(items), items[0], reason))
            for r in bad[:6]:
                print("  invalid: %s" % {k: r[k] for k in r if k in GROUP_BY or k == "error"})
            for line in model_lines(e.get("info") or {}) if e["name"] == "model" else []:
                print("  " + line)
            for line in best_lines([r for r in res if r.get("valid") is not False])[:40]:
                print("  " + line)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "merge":
        merge(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "summary":
        summary(sys.argv[2:])
    else:
        sys.exit("usage: device-results.py merge OUT.json IN.json... | summary IN.json...")
