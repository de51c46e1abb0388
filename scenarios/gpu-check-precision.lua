-- scenarios/gpu-check-precision.lua: compute per number format on the GPU alone, a part of
-- tests/bench/device-check.sh: launch overheads, FMA peaks, every format's GEMMs up to 8192^3
-- and a training step's shapes, the intensity sweep (roofline knee), numerics against FP64.
-- Budget 55 s (its part in device-check.sh: 70).
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU compute per precision check",
  budget_s = 55,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.precision { device = "gpu", formats = "all", parts = "all", gpu_max_square = 8192, budget_s = 50 },
}
