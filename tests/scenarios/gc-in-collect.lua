-- a finalizer that never returns, run by a collection while the scenario runs
local sr = require "sparkreport"
setmetatable({}, { __gc = function() while true do end end })
collectgarbage()
return sr.scenario { sr.bandwidth { kernels = "triad" } }
