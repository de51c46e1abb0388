local sr = require "sparkreport"
return sr.scenario {
  team = sr.team { people = 2, jobs = { { "gpt2-124m", per_month = 4 } },
                   offers = { { id = "mine", system = "h900", provider = "Us", usd_per_gpu_hour = 2, instance_gpus = 8,
                                billing_step_s = 60, source = "our quote", date = "2026-11" } } },
  sr.model { workloads = "gpt2-124m" },
}
