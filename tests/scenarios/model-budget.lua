-- the training-time model with a time share too small for all thirteen configurations
-- (tests/e2e/model_budget.lua)
local sr = require "sparkreport"
return sr.scenario {
  budget_s = 600,
  sr.model { budget_s = 40 },
}
