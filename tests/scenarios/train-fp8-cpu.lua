-- FP8 asked of the CPU, which has no FP8 matmuls
local sr = require "sparkreport"
return sr.scenario {
  sr.train { precisions = { "fp32", "fp8" } },
}
