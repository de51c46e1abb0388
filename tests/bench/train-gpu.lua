-- tests/bench/train-gpu.lua: the GPU training check of tests/bench/device-check.sh: the tiny shape
-- and gpt2-small (12 blocks, hidden 768, vocabulary 50257, sequence 256, batch 4) in FP32, BF16
-- and FP8 on the first CUDA device, a few steps each (the first validated against the CPU FP32
-- reference). tests/bench/train-ops.py reads its results.json: step times, slowest ops, and the
-- share of the step each gradient reduction takes.
local sr = require "sparkreport"
return sr.scenario {
  title = "GPU training check",
  budget_s = 240,
  sr.train { device = "gpu", shapes = { "tiny", "gpt2-small" }, precisions = "all", steps = 6, warmup = 2 },
}
