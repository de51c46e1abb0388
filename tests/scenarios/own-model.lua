-- a scenario with a model experiment for the checks of the scenario's own job (issue 38, class 1):
-- its fields come from --set (tests/cli/own-job.t); it is refused before it measures
local sr = require "sparkreport"
return sr.scenario { budget_s = 5, sr.model { configs = 1, extra_configs = 0, steps = 2 } }
