-- what it returns has an __index chain that loops and no scenario of its own (issue 38, class 8)
local sr = require "sparkreport"
local mt = {}
mt.__index = setmetatable({}, mt)
local s = sr.scenario { budget_s = 5, sr.bandwidth { kernels = "triad" } }
return setmetatable({ params = s.params, experiments = s.experiments }, mt)
