-- a GEMM far too large for its budget (issue 18, class 5): skipped with its estimate, not run
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 5,
  sr.precision { device = "cpu", parts = "gemm", formats = "fp64", square = { 16384 }, model_shapes = false,
                 budget_s = 2 },
}
