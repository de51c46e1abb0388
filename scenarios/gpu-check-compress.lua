-- scenarios/gpu-check-compress.lua: compression on the GPU, a part of
-- tests/bench/device-check.sh: every quantization and pruning scheme's weight-streaming
-- products at batches 1 and 8 (speed-up over FP32 and BF16, fraction of the DRAM figure), layer
-- error, the tiny model's held-out loss with each. Budget 30 s (its part in device-check.sh: 40).
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU compression check",
  budget_s = 30,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.compress { device = "gpu", schemes = "all", batches = { 1, 8 }, model_steps = 60 },
}
