-- tests/bench/stream.lua: the protocol of McCalpin's STREAM (its four kernels, FP64, one
-- warm-up dropped and 9 timed repetitions, best rate) for stream-compare.sh, which sets the
-- array size and threads to STREAM's own with --set; plus the read, which the script compares
-- with plain-read.c under the same protocol.
local sr = require "sparkreport"

return sr.scenario {
  title = "STREAM comparison",
  budget_s = 600,
  sr.bandwidth { kernels = { "copy", "scale", "add", "triad", "read" }, precisions = "fp64", sizes = "1GiB",
                 threads = "max", clusters = false, min_reps = 9, max_reps = 9, warmup = 1 },
}
