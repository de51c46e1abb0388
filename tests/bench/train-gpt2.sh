#!/bin/sh
# train-gpt2.sh: tokens/s of a GPT-2-small-like training step (tests/bench/train-gpt2.lua: 12
# blocks, hidden 768, 12 heads, vocabulary 50257, sequence 256, batch 4, FP32, CPU) with the
# step time by op class and the slowest ops, from the run's results.json. A benchmark, not a
# test: run it on a quiet machine. The first step is checked against finite differences and
# is not timed, nor is the warm-up step; about 8 forward-and-backward passes in all.
#   [STEPS=5] [SR_BIN=src/sparkreport] sh tests/bench/train-gpt2.sh
set -eu
: "${SR_BIN:=src/sparkreport}"
: "${STEPS:=5}"
here=$(cd "$(dirname "$0")" && pwd)
lua=$(command -v lua5.4 || command -v lua54 || command -v lua) || { echo "train-gpt2: needs lua 5.4" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$SR_BIN" run "$here/train-gpt2.lua" -o "$tmp" -q --set train.steps="$STEPS" > /dev/null
"$lua" - "$tmp/latest/results.json" "$here/.." <<'LUA'
local path, tests = ...
package.path = tests .. "/?.lua;" .. package.path
local json = require "json"
local f = assert(io.open(path)); local r = json.decode(f:read("a")); f:close()
local rec = r.experiments[1].results[1]
if not rec or not rec.time_s then
  print("train-gpt2: no timed step: " .. tostring(rec and (rec.error or rec.not_timed or rec.stop))); os.exit(1)
end
local t = rec.time_s
print(("%s: %d layers, hidden %d, %d heads, vocab %d, seq %d, batch %d, %s, %.1f M parameters, %d threads")
      :format(rec.shape, rec.layers, rec.hidden, rec.heads, rec.vocab, rec.seq, rec.batch, rec.precision,
              rec.params / 1e6, rec.threads))
print(("steps timed %d (after %d warm-up); step time median %.3f s (min %.3f, max %.3f, CV %.1f %%)")
      :format(#rec.samples_s, rec.warmup, t.median, t.min, t.max, 100 * t.cv))
print(("tokens/s %.1f (median step); model FLOP/s %.1f GFLOP/s; checks: %s"):format(rec.tokens_per_s,
      rec.achieved_flops / 1e9, rec.valid and "pass" or "FAILED"))
print("time by op class (median per step):")
local order = { "matmul", "attention", "norm", "elementwise", "loss", "optimizer", "other" }
for _, c in ipairs(order) do
  local s = rec.time_by_class_s[c] or 0
  print(("  %-12s %8.3f s  %5.1f %%"):format(c, s, 100 * s / t.median))
end
local ops = {}
for _, o in ipairs(rec.ops) do ops[#ops + 1] = o end
table.sort(ops, function(a, b) return a.time_s > b.time_s end)
print("slowest ops (median per step):")
for i = 1, 8 do
  local o = ops[i]
  print(("  %-34s %8.3f s  %7.1f GFLOP/s"):format(o.label, o.time_s, o.flops / o.time_s / 1e9))
end
LUA
