-- sr.team { } set on the scenario after sr.scenario returned it (issue 50): read as it was given and
-- checked against the scenario's experiments like a team given inside it
local sr = require "sparkreport"
local s = sr.scenario { budget_s = 20,
  sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2, workloads = "gpt2-124m" } }
s.team = sr.team { people = 2, deadline_h = 48, jobs = { { "gpt2-124m", per_month = 4 } } }
return s
