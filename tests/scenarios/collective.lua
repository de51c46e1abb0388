-- tests/scenarios/collective.lua: a short collective sweep (8 B .. 256 KiB) for the MPI tests
-- (tests/e2e/collective*.lua), run with mpirun -np 2 or alone.
local sr = require "sparkreport"
return sr.scenario {
  title = "Collective check",
  budget_s = 20,
  sr.collective { buffers = { "host", "device" }, max_bytes = "256KiB", step_factor = 32, min_reps = 2, max_reps = 5, sample_s = 0.002,
                  budget_s = 12 },
}
