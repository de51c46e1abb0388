local sr = require "sparkreport"
local s = sr.scenario { sr.bandwidth { } }
setmetatable(s, { __index = function() error("x") end })
s.params.budget_s = -1
return s
