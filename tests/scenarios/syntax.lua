-- a missing comma between two experiments
local sr = require "sparkreport"
return sr.scenario {
  sr.bandwidth { kernels = "triad" }
  sr.bandwidth { kernels = "copy" }
}
