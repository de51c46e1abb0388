-- more experiments than one run holds
local sr = require "sparkreport"
local list = { budget_s = 60 }
for i = 1, 101 do list[i] = sr.bandwidth { kernels = "triad", sizes = "48KiB" } end
return sr.scenario(list)
