-- scenarios/gpu-check-model.lua: the training-time model on the GPU, a part of
-- tests/bench/device-check.sh: calibrated on this GPU's microbenchmarks (cuBLASLt peaks per dtype,
-- device bandwidth, kernel launch, every op of the configurations timed on its own through the
-- GPU trainer), validated by predicting then measuring its own training steps, projected onto
-- the catalog's HBM systems (on a GB10 the DGX Spark row is this GPU's measurements). The base
-- configuration is sized for a GPU (hidden 256, sequence 128; the curves' larger shape 1024 x 512).
-- Budget 30 s (its part in device-check.sh: 40).
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU training-time model check",
  budget_s = 30,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.model { device = "gpu", base_hidden = 256, base_seq = 128,
             workloads = { "gpt2-124m", "llama-3.1-8b-lora" },
             systems = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" } },
}
