-- in-range team terms at their edges (issue 50, class 1): one person, a hundredth of a job a month, a
-- year's deadline, a three-month life, power at $10 a kWh in a room of PUE 3, 48 h of setup per rented
-- job; seed 10 drew no job at all in the 240 months simulated before the stage simulated enough of them
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 20,
  team = sr.team { people = 1, deadline_h = 8766, life_years = 0.25, kwh_usd = 10, pue = 3, setup_h = 48, seed = 10,
                   jobs = { { "gpt2-124m", per_month = 0.01 } } },
  sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2, workloads = "gpt2-124m" },
}
