-- a small valid scenario for the CLI tests
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 5,
  sr.bandwidth { kernels = { "triad", "read" }, precisions = "fp64", sizes = { "48KiB", "1MiB" },
                 threads = "max", min_reps = 2, max_reps = 3, sample_s = 0.0005 },
}
