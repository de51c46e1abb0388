-- a scenario that allocates without end: the Lua memory ceiling ends it
local sr = require "sparkreport"
local t = {}
for i = 1, math.huge do t[i] = ("x"):rep(1 << 20) .. i end
return sr.scenario { sr.bandwidth { } }
