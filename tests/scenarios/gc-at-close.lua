-- a finalizer that never returns, run when the scenario's state closes (Lua runs finalizers
-- without hooks, so the time limit cannot end it): the wall-clock deadline does
local sr = require "sparkreport"
keep = setmetatable({}, { __gc = function() while true do end end })
return sr.scenario { sr.bandwidth { kernels = "triad" } }
