-- tests/scenarios/train-tiny.lua: a few steps of the tiny model in FP32 and BF16 on the CPU, and
-- the GPU configuration (not measured without a device), for tests/e2e/train.lua.
local sr = require "sparkreport"
return sr.scenario {
  title = "Training check",
  budget_s = 60,
  sr.train { shapes = "tiny", precisions = { "fp32", "bf16" }, steps = 12, warmup = 2 },
  sr.train { device = "gpu", shapes = "tiny", precisions = "bf16", steps = 12 },
}
