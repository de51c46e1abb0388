-- small in Lua, large once copied into C: one 1 MB table referenced 2000 times
local sr = require "sparkreport"
local row = {}
for i = 1, 1000 do row[i] = ("x"):rep(1000) end
local s = sr.scenario { sr.bandwidth { kernels = "triad" } }
local many = {}
for i = 1, 2000 do many[i] = row end
s.params.title = many
return s
