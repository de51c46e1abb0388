-- a table that contains itself, returned as data
local sr = require "sparkreport"
local s = sr.scenario { sr.bandwidth { kernels = "triad" } }
s.params.title = { s.params }
return s
