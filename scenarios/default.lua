-- scenarios/default.lua: what `make report` runs. Thorough but bounded: every bandwidth
-- kernel in FP64 and FP32 over a working-set sweep from inside L1 to beyond 4x all caches,
-- and thread scaling at the largest size. About 4 minutes on a 2-core machine.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Memory bandwidth and training time",
  budget_s = 240,                      -- the whole run, measurements included
  template = "procurement",            -- templates/procurement.lua
  compare  = { "dgx-spark", "h100-sxm", "h200-sxm", "gh200-144g", "b200" },

  sr.bandwidth { device = "cpu", kernels = "all", precisions = "all", sizes = "sweep", threads = "sweep" },
}
