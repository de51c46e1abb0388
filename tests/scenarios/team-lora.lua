-- a small valid scenario with a team of LoRA fine-tunes, for tests/e2e/stacks.lua (the model projects one workload)
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 20,
  systems  = { "dgx-spark", "h100-sxm", "b200" },
  team = sr.team { people = 3, deadline_h = 24, jobs = { { "llama-3.1-8b-lora", per_month = 20 } } },
  sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2, workloads = "llama-3.1-8b-lora" },
}
