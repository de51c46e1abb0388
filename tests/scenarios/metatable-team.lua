-- a metatable deeper down: on a job of the team, after sr.team checked it (issue 50)
local sr = require "sparkreport"
local s = sr.scenario { budget_s = 5, team = sr.team { people = 2, jobs = { { "gpt2-124m", per_month = 4 } } },
                        sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2,
                                   workloads = "gpt2-124m" } }
setmetatable(s.team.jobs[1], { __index = function() error("hidden") end })
return s
