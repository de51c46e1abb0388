local sr = require "sparkreport"
return sr.scenario {
  team = sr.team { people = 2, jobs = { { "gpt2-124m", per_month = 1e-310 } } },
  sr.model { workloads = "gpt2-124m" },
}
