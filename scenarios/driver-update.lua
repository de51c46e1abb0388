-- scenarios/driver-update.lua: rerun this after a driver, CUDA, kernel or firmware update. It
-- compares itself with the run reports/latest points at and writes comparison.pdf and
-- comparison.json beside report.pdf; `sparkreport run` then exits 6 when a result is slower.
--     sparkreport run scenarios/driver-update.lua     # before the update: the baseline
--     ... update the driver, reboot ...
--     sparkreport run scenarios/driver-update.lua     # after: compared with the run before
-- A result is slower or faster only when a Mann-Whitney U test on its samples gives p < 0.01
-- and its median moved by 5 % or more; at least 20 repetitions per point give the test room
-- (fewer than 5 can never reach p < 0.01). The points are few on purpose: a check, not a survey.
-- Without reports/latest (a first run) the run says so and compares with nothing; any other run
-- folder can be the baseline: --set baseline=reports/<run> (or make report BASELINE=reports/<run>).
local sr = require "sparkreport"

return sr.scenario {
  title    = "Rerun after a driver update",
  budget_s = 120,
  baseline = "latest",
  systems  = { "dgx-spark", "h100-sxm" },

  -- CPU: in L1, in the last-level cache and far beyond every cache (the largest size of the sweep).
  sr.bandwidth { device = "cpu", kernels = { "copy", "triad", "read" }, precisions = "fp64",
                 sizes = "sweep", min_size = "48KiB", points_per_octave = 1, threads = "max",
                 clusters = false, min_reps = 20, max_reps = 60 },
  -- GPU (skipped, with the reason, where there is none): every allocation path and the copies.
  sr.bandwidth { device = "gpu", kernels = { "copy", "triad", "read" }, precisions = "fp64",
                 alloc = { "device", "managed", "pinned", "malloc" }, transfers = true,
                 contention = false, min_reps = 20, max_reps = 60 },
}
