-- scenarios/example.lua: how to write your own scenario. A scenario is a Lua file that
-- returns sr.scenario { ... }: fields of the scenario, then the experiments to run, each
-- checked against its parameter table (`sparkreport list` prints them all). Run it with
--     sparkreport run scenarios/example.lua
-- and override any field without editing the file:
--     sparkreport run scenarios/example.lua --set budget_s=60 --set bandwidth.min_reps=3
-- Scenarios run in a sandbox: no files, no processes, no environment; `require` sees only
-- sparkreport's own library.
local sr = require "sparkreport"

-- Plain Lua is allowed where a declaration is not enough, e.g. sizes computed in a loop:
-- 1, 4, 16, 64 and 256 MiB working sets.
local sizes = {}
for i = 0, 4 do sizes[#sizes + 1] = (4 ^ i) .. "MiB" end

return sr.scenario {
  title    = "Bandwidth at a few working sets",
  budget_s = 60,
  systems  = { "dgx-spark", "h100-sxm" },      -- catalog systems shown beside this machine

  -- Only triad and read, FP32, at the sizes above, with 1 and all threads.
  sr.bandwidth { kernels = { "triad", "read" }, precisions = "fp32", sizes = sizes, threads = "sweep" },

  -- Your own training job, as you would describe it: the model's shape read from its Hugging Face
  -- config.json (one shipped with sparkreport here; the file of any model on disk works the same, and a
  -- field given beside it overrides it), LoRA rank 16, samples of about 400 tokens one by one under a
  -- 2,048-token cutoff, 2 per device per step, 16 per optimizer step; `sparkreport list` shows every field.
  sr.job { name = "our 8B LoRA", config = "data/models/llama-3.1-8b.json", lora_rank = 16, seq = 2048,
           packing = false, sample_tokens = 400, micro_batch = 2, batch = 16, tokens = 2e7 },
  -- A rate you measured yourself calibrates that job's rows (tokens_per_s, or trainer_state =
  -- "path/to/trainer_state.json", or log = "train.log"):
  --   sr.measured { job = "our 8B LoRA", system = "dgx-spark", tokens_per_s = 900, source = "our run of ..." },
  -- The training-time model projects it onto the systems above (and a small validation of its own).
  sr.model { workloads = "none", systems = { "dgx-spark", "h100-sxm" } },
}
