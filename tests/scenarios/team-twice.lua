local sr = require "sparkreport"
return sr.scenario {
  team = sr.team { people = 2, jobs = { { "gpt2-124m", per_month = 4 }, { workload = "gpt2-124m", per_month = 1 } } },
  sr.model { workloads = "gpt2-124m" },
}
