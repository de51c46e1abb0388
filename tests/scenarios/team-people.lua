local sr = require "sparkreport"
return sr.scenario {
  sr.model { workloads = "gpt2-124m" },
  sr.team { people = 0, jobs = { { "gpt2-124m", per_month = 4 } } },
}
