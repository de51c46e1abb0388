local sr = require "sparkreport"
return sr.scenario {
  team = sr.team { people = 2, jobs = { { "llama-9b", per_month = 4 } } },
  sr.model { workloads = "gpt2-124m" },
}
