-- tests/scenarios/compress.lua: a short compression run for tests/e2e/compress.lua: a few schemes
-- on a small matrix, two batches, the layer errors, a tiny model trained for a few steps, the
-- bandwidth experiment's read beside it, and the GPU part (skipped without a device).
local sr = require "sparkreport"

return sr.scenario {
  title    = "Compression check",
  budget_s = 40,
  sr.bandwidth { kernels = "read", precisions = "fp32", sizes = { "24MiB" }, threads = "max", clusters = false,
                 min_reps = 2, max_reps = 4 },
  sr.compress { schemes = { "int8", "fp8", "nvfp4", "prune", "2:4" }, sparsities = 0.75, weights_size = "24MiB",
                batches = { 1, 2 }, layer_rows = 32, model = "tiny", model_steps = 8, min_reps = 2, max_reps = 4,
                sample_s = 0.002, budget_s = 20 },
  sr.compress { device = "gpu", schemes = "int8", weights_size = "256MiB" },
}
