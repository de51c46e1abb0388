-- scenarios/gpu-check-train.lua: GPU training, a part of tests/bench/device-check.sh: the tiny
-- model and GPT-2 small (vocabulary 50257) in FP32, BF16 and FP8, a few steps each after the
-- first step's checks (finite differences, a CPU FP32 reference), every op timed. Look at the
-- slowest ops: no reduction (embedding backward, LayerNorm weights, bias sums) should take more
-- than a few percent of the step. Budget 55 s (its part in device-check.sh: 70).
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU training check",
  budget_s = 55,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.train { device = "gpu", shapes = { "tiny", "gpt2-small" }, precisions = "all", steps = 8, warmup = 2 },
}
