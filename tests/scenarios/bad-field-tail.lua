-- a bad field in sr.scenario { }, called as a tail call: reported at this file's line
local sr = require "sparkreport"
return sr.scenario {
  budget_s = "soon",
  sr.bandwidth { kernels = "triad" },
}
