-- scenarios/scale-out.lua: beyond one box. The collectives between the ranks mpirun starts
-- (ping-pong, all-reduce, all-gather, reduce-scatter up to 1 GiB: GPT-2 124M's FP32 gradients
-- are 0.5 GB), the copy rate of this machine's memory beside them, and the training-time model
-- projected onto one to eight Sparks and HBM GPUs. Run it with `mpirun -np 2 --bind-to none
-- sparkreport run scenarios/scale-out.lua` (one host, or two with a hostfile: README); run alone,
-- the collectives say "not measured: one rank" and the projection uses the catalog's links.
-- About 3 minutes on an idle machine.
local sr = require "sparkreport"

return sr.scenario {
  title    = "Scale-out: two Sparks or HBM GPUs?",
  budget_s = 180,
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },

  -- the memory's copy rate at a DRAM-sized working set, all threads: the bus bandwidth between
  -- ranks of one host cannot beat it
  sr.bandwidth { kernels = "copy", precisions = "fp64", min_size = "64MiB", points_per_octave = 1,
                 threads = "max", clusters = false, budget_s = 20 },
  -- collectives first: the projection below uses their bus bandwidth when the ranks ran on
  -- two or more hosts
  sr.collective { max_bytes = "1GiB", step_factor = 8, budget_s = 80 },
  sr.model { configs = 4, steps = 3, workloads = { "gpt2-124m", "llama-3.1-8b-lora" },
             systems = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" } },
}
