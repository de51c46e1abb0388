-- scenarios/quick.lua: a short run (under 30 seconds) for tests and a first look. Its largest
-- working set stays small, so its headline may include cache effects: the report says so.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Quick check",
  budget_s = 15,

  sr.bandwidth {
    kernels = { "copy", "scale", "add", "triad", "read", "fill" },
    precisions = "fp64",
    min_size = "16KiB",
    max_size = "48MiB",
    points_per_octave = 1,
    min_reps = 3,
    max_reps = 20,
    sample_s = 0.001,
  },
}
