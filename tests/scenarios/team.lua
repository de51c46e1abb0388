-- a small valid scenario with a team, for the CLI tests (the model projects one workload)
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 20,
  team = sr.team { people = 2, deadline_h = 48, jobs = { { "gpt2-124m", per_month = 4 } } },
  sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2, workloads = "gpt2-124m" },
}
