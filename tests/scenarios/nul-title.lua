-- a NUL inside the title: refused, never cut to "visible" (issue 38, class 3)
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 5, title = "visible\0hidden",
  sr.bandwidth { kernels = "triad", precisions = "fp64", sizes = "48KiB", threads = "max", min_reps = 2, max_reps = 3,
                 sample_s = 0.0005 },
}
