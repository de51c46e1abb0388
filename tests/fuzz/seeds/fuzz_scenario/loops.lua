local sr = require "sparkreport"
local sizes = {}
for i = 1, 3 do sizes[i] = (16 * 2 ^ i) .. "KiB" end
return sr.scenario { budget_s = 30, compare = { "dgx-spark" },
  sr.bandwidth { sizes = sizes, kernels = { "triad" }, threads = "max" } }
