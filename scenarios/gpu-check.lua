-- scenarios/gpu-check.lua: the GPU bandwidth checks alone (device sweep, allocation paths,
-- transfers, contention), for a machine lent for GPU checks; the first part of
-- tests/bench/device-check.sh (gpu-check-*.lua are the others). Budget 60 s (its part in
-- device-check.sh: 75).
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU memory bandwidth check",
  budget_s = 60,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.bandwidth { device = "gpu", alloc = "all", transfers = true, contention = true },
}
