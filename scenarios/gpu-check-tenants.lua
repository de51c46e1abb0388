-- scenarios/gpu-check-tenants.lua: shared use of the one GPU, a part for tests/bench/device-check.sh:
-- 1, 2 and 4 tenant processes at once on the device, each a bandwidth stream in device memory (the
-- bandwidth family's triad) or a training step (the train family's, tiny shape), each one's slowdown
-- against running alone and its share of the alone bandwidth; N processes on one GPU without MPS
-- are time-sliced by the driver, which is what the DGX Spark's tenant projection assumes. Budget
-- 20 s (its part in device-check.sh would be 30; the plan has no room for it yet).
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU shared-use check",
  budget_s = 20,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.tenants { device = "gpu", shape = "tiny", budget_s = 16 },
}
