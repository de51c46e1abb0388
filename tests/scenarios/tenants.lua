-- tests/scenarios/tenants.lua: shared use, small (tests/e2e/tenants.lua): 1, 2 and 4 tenants of a
-- 24 MiB stream and the tiny training step, and the model projecting three workloads onto the DGX
-- Spark, whose tenant records use this run's measured contention.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Shared use check",
  budget_s = 60,
  decide   = { "gpt2-124m", "llama-3.1-8b-lora" },

  sr.tenants { size = "24MiB", shape = "tiny", min_reps = 3, max_reps = 5, budget_s = 6 },
  sr.model { configs = 2, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 3,
             workloads = { "gpt2-124m", "llama-3.1-8b-lora", "llama-3.1-8b" } },
}
