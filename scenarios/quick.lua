-- scenarios/quick.lua: a short run for tests and a first look (about two minutes on a 2-core VM
-- whose caches report 484 MiB: the one DRAM figure is measured at 4x all caches). Its largest
-- working set stays small, so its headline may include cache effects: the report says so.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Quick check",
  budget_s = 15,
  decide   = { "gpt2-124m", "llama-3.1-8b-lora" },   -- the two workloads its model projects
  team     = sr.team { people = 3, deadline_h = 48, jobs = { { "llama-3.1-8b-lora", per_month = 10 } } },

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
  -- compute: small GEMMs, a short intensity sweep, the numerics of five formats
  sr.precision {
    formats = { "fp64", "fp32", "bf16", "fp8", "nvfp4" },
    square = { 64, 256 },
    model_shapes = false,
    sweep_size = "8MiB",
    sweep_max_k = 16,
    gpu_sweep_size = "64MiB",
    gpu_sweep_max_k = 64,
    sweep_gemm_mn = 1024,
    numerics_shape = { 64, 64, 256 },
    min_reps = 2,
    max_reps = 5,
    sample_s = 0.005,
    budget_s = 4,
  },
  -- training: the tiny model for a few steps in FP32 and BF16
  sr.train { shapes = "tiny", precisions = { "fp32", "bf16" }, steps = 30, budget_s = 6 },
  -- compression: three schemes on a small matrix (in cache: a first look, not a measurement of
  -- memory), their layer error; no model
  sr.compress { schemes = { "int8", "nvfp4", "2:4" }, weights_size = "16MiB", batches = 1, layer_rows = 32,
                model = "none", min_reps = 2, max_reps = 3, sample_s = 0.002, budget_s = 3 },
  -- the training-time model: eight tiny configurations predicted then measured, two workloads
  -- projected
  sr.model { configs = 8, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 3,
             workloads = { "gpt2-124m", "llama-3.1-8b-lora" } },
}
