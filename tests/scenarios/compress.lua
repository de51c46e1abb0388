-- tests/scenarios/compress.lua: a short compression run for tests/e2e/compress.lua: a few schemes
-- on a small matrix, two batches, the layer errors, the held-out loss of the model the training
-- experiment trained (a tiny one, a few steps), the bandwidth experiment's read beside it, and the
-- GPU part (skipped without a device).
local sr = require "sparkreport"

return sr.scenario {
  title    = "Compression check",
  budget_s = 46,
  sr.bandwidth { kernels = "read", precisions = "fp32", sizes = { "24MiB" }, threads = "max", clusters = false,
                 min_reps = 2, max_reps = 4 },
  sr.train { shapes = "tiny", precisions = "fp32", steps = 20, validate = false, budget_s = 6 },
  sr.compress { schemes = { "int8", "fp8", "nvfp4", "prune", "2:4" }, sparsities = 0.75, weights_size = "24MiB",
                batches = { 1, 2 }, layer_rows = 32, min_reps = 2, max_reps = 4,
                sample_s = 0.002, budget_s = 20 },
  sr.compress { device = "gpu", schemes = "int8", weights_size = "256MiB" },
}
