-- a valid scenario whose experiment's params are swapped for a table whose __index raises, after
-- the constructor checked them: read raw it is an empty table, an experiment of defaults that
-- would measure for minutes; a scenario's values are plain data (issue 50, round 3's left-over)
local sr = require "sparkreport"
local s = sr.scenario { budget_s = 5, sr.bandwidth { kernels = "triad" } }
s.experiments[1].params = setmetatable({}, { __index = function() error("hidden") end })
return s
