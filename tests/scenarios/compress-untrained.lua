-- tests/scenarios/compress-untrained.lua: the compression experiment in a run that trains no model,
-- for tests/e2e/compress.lua: its held-out loss is not measured, and the record and the report say
-- why in the same words.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Compression without a trained model",
  budget_s = 10,
  sr.compress { schemes = "int8", weights_size = "8MiB", batches = 1, layer_rows = 32, min_reps = 2, max_reps = 3,
                sample_s = 0.002, budget_s = 5 },
}
