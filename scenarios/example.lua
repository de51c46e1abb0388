-- scenarios/example.lua: how to write your own scenario. A scenario is a Lua file that
-- returns sr.scenario { ... }: fields of the scenario, then the experiments to run, each
-- checked against its parameter table (`sparkreport list` prints them all). Run it with
--     sparkreport run scenarios/example.lua
-- and override any field without editing the file:
--     sparkreport run scenarios/example.lua --set budget_s=60 --set bandwidth.min_reps=3
-- Scenarios run in a sandbox: no files, no processes, no environment; `require` sees only
-- sparkreport's own library.
local sr = require "sparkreport"

-- Plain Lua is allowed where a declaration is not enough, e.g. sizes computed in a loop:
-- 1, 4, 16, 64 and 256 MiB working sets.
local sizes = {}
for i = 0, 4 do sizes[#sizes + 1] = (4 ^ i) .. "MiB" end

return sr.scenario {
  title    = "Bandwidth at a few working sets",
  budget_s = 60,
  systems  = { "dgx-spark", "h100-sxm" },      -- catalog systems shown beside this machine

  -- Only triad and read, FP32, at the sizes above, with 1 and all threads.
  sr.bandwidth { kernels = { "triad", "read" }, precisions = "fp32", sizes = sizes, threads = "sweep" },
}
