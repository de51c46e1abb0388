-- a run of several seconds, many short measurements, for the interruption tests
local sr = require "sparkreport"
return sr.scenario {
  title = "Interrupted run", budget_s = 20,
  sr.bandwidth { kernels = { "copy", "triad" }, precisions = "fp64", sizes = { "48KiB", "96KiB", "1MiB", "2MiB" },
                 threads = { 1, 2 }, clusters = false, min_reps = 100, max_reps = 200, cv = 0.001,
                 sample_s = 0.002 },
  sr.bandwidth { kernels = "read", precisions = "fp32", sizes = "1MiB", threads = "max", clusters = false },
}
