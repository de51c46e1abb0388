-- parameters given to a constructor as a table with a metatable: refused at the scenario's line (issue 50)
local sr = require "sparkreport"
return sr.scenario { sr.bandwidth(setmetatable({ kernels = "triad" }, { __index = function() error("hidden") end })) }
