-- tests/bench/kernels.lua: the kernels benchmark's scenario (tests/bench/kernels.sh): the DRAM
-- ceilings at the DRAM-sized point (read, write, mix: what the products are judged against), every
-- compression scheme streaming a DRAM-sized matrix at batches 1, 2, 4 and 8, the GPT-2-small-like
-- training step in FP32 on the CPU, and the model experiment's calibration only (the run's
-- sustained SGEMM rate, the figure the training step's model FLOP/s is divided by).
local sr = require "sparkreport"
return sr.scenario {
  title = "Kernels benchmark: compression and the CPU training step",
  budget_s = 3600,
  sr.bandwidth { min_size = "1GiB", points_per_octave = 1, threads = "max", clusters = false, budget_s = 60 },
  sr.compress { schemes = "all", batches = { 1, 2, 4, 8 }, model = "none", budget_s = 240 },
  sr.train { shapes = "gpt2-small", precisions = "fp32", steps = 4, warmup = 1 },
  sr.model { configs = 1, extra_configs = 0, held_out = "none", workloads = "none" },
}
