-- scenarios/gpu-check.lua: the GPU bandwidth checks alone (device sweep, allocation paths,
-- transfers, contention), for a machine lent for GPU checks; see tests/bench/device-check.sh.
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU memory bandwidth check",
  budget_s = 240,
  compare  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.bandwidth { device = "gpu", alloc = "all", transfers = true, contention = true },
}
