-- tests/bench/train-gpt2.lua: the training benchmark's scenario: a GPT-2-small-like shape (12
-- blocks, hidden 768, 12 heads, vocabulary 50257, sequence 256, batch 4, untied head) in FP32 on
-- the CPU. tests/bench/train-gpt2.sh runs it and prints tokens/s and the time by op class.
local sr = require "sparkreport"
return sr.scenario {
  title = "GPT-2 small training benchmark",
  budget_s = 3600,
  sr.train { shapes = "gpt2-small", precisions = "fp32", steps = 5, warmup = 1 },
}
