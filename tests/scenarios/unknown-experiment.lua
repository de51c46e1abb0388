-- a misspelt experiment
local sr = require "sparkreport"
return sr.scenario {
  sr.bandwith { kernels = "triad" },
}
