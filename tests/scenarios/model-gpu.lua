-- tests/scenarios/model-gpu.lua: the training-time model on the GPU, two small configurations
-- and one workload projected, for tests/e2e/model_gpu.lua: without a device (or without CUDA in
-- the build) every item is not measured with the driver's reason and the run still succeeds.
local sr = require "sparkreport"
return sr.scenario {
  title = "GPU model check",
  budget_s = 60,
  sr.model { device = "gpu", configs = 2, base_hidden = 64, base_seq = 32, steps = 3,
             workloads = { "gpt2-124m" }, systems = { "dgx-spark", "h100-sxm" } },
}
