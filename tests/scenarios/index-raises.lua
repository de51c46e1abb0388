-- a table whose __index raises, read again and again by a finalizer when the scenario's state
-- closes (finalizers run without hooks): ended within the time limit (issue 38, class 8)
local sr = require "sparkreport"
keep = setmetatable({}, {
  __index = function(_, k) error("no field " .. tostring(k)) end,
  __gc = function(t) while true do pcall(function() return t.anything end) end end,
})
return sr.scenario { budget_s = 5, sr.bandwidth { kernels = "triad" } }
