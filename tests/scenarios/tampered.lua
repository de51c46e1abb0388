-- changing a checked experiment after its constructor: checked again before anything runs
local sr = require "sparkreport"
local s = sr.scenario { sr.bandwidth { kernels = "triad" } }
s.experiments[1].params.min_reps = 0
return s
