-- tests/bench/kernels.lua: the kernels benchmark's scenario (tests/bench/kernels.sh): every
-- compression scheme streaming a DRAM-sized matrix at batches 1 and 4, the GPT-2-small-like
-- training step in FP32 on the CPU, and the model experiment's calibration only (its sustained
-- SGEMM rate, the figure the training step's model FLOP/s is divided by).
local sr = require "sparkreport"
return sr.scenario {
  title = "Kernels benchmark: compression and the CPU training step",
  budget_s = 3600,
  sr.compress { schemes = "all", batches = { 1, 4 }, model = "none", budget_s = 180 },
  sr.train { shapes = "gpt2-small", precisions = "fp32", steps = 4, warmup = 1 },
  sr.model { configs = 1, extra_configs = 0, held_out = "none", workloads = "none" },
}
