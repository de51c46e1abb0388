-- scenarios/gpu-check-model.lua: the training-time model on the GPU, a part of
-- tests/bench/device-check.sh: calibrated on this GPU's microbenchmarks, validated by
-- predicting then measuring its own training steps, projected onto the catalog's HBM systems.
-- About 1 minute.
local sr = require "sparkreport"

return sr.scenario {
  title    = "GPU training-time model check",
  budget_s = 60,
  compare  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  sr.model { device = "gpu", workloads = { "gpt2-124m", "llama-3.1-8b-lora" },
             systems = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" } },
}
