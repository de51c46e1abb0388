-- one long FP64 GEMM with time to run it (issue 18, class 5): tests/e2e/budgets.lua stops it
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 3600,
  sr.precision { device = "cpu", parts = "gemm", formats = "fp64", square = { 8192 }, model_shapes = false,
                 budget_s = 3000 },
}
