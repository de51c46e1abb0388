-- tests/scenarios/precision.lua: a few seconds of the precision experiment (and a bandwidth
-- point for the roofline's ceiling), for tests/e2e/precision.lua.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Precision check",
  budget_s = 40,

  sr.bandwidth { kernels = { "read", "triad" }, precisions = "fp64", sizes = { "8MiB" }, threads = "max",
                 clusters = false, min_reps = 3, max_reps = 5 },
  sr.precision { formats = { "fp64", "fp32", "bf16", "nvfp4" }, square = { 64, 128 }, model_shapes = false,
                 sweep_size = "8MiB", sweep_max_k = 8, gpu_sweep_size = "32MiB", gpu_sweep_max_k = 16,
                 sweep_gemm_mn = 512, numerics_shape = { 32, 32, 64 }, min_reps = 2, max_reps = 4,
                 sample_s = 0.005, budget_s = 25 },
}
