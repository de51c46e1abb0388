-- scenarios/default.lua: what `make report` runs. Thorough but bounded: every bandwidth
-- kernel in FP64 and FP32 over a working-set sweep from inside L1 to beyond 4x all caches,
-- and thread scaling at the largest size; compute per precision; a training run; compression
-- schemes; shared use (1, 2, 4 jobs at once); the training-time model, validated here and
-- projected onto the catalog. At most the
-- 6-minute budget; sized so that a fresh clone's `./configure && make report` takes about five
-- minutes on a quiet 2-core machine without a GPU, the build included.
local sr = require "sparkreport"

-- the team's jobs, as people describe them: Llama-3.1 8B's shape read from its Hugging Face config.json
-- (shipped with sparkreport; a model's own file works the same), a LoRA of rank 16 on every linear and a full
-- fine-tune, 32 sequences of 4,096 tokens a step, 100 M tokens a job (a round figure: give your own); the
-- LoRA on the Hugging Face Trainer (the stack people run it on: the default), the full fine-tune on PyTorch
-- with FSDP; the same stack on every system (`sparkreport list` shows every field)
local lora = sr.job { name = "Llama-3.1 8B LoRA fine-tune (rank 16)", config = "data/models/llama-3.1-8b.json",
                      lora_rank = 16, seq = 4096, batch = 32, micro_batch = 4 }
local full = sr.job { name = "Llama-3.1 8B full fine-tune", config = "data/models/llama-3.1-8b.json", seq = 4096,
                      batch = 32, micro_batch = 2, stack = "pytorch" }

return sr.scenario {
  title    = "Memory bandwidth and training time",
  budget_s = 360,                      -- the whole run, measurements included
  template = "procurement",            -- templates/procurement.lua
  systems  = { "dgx-spark", "h100-sxm", "h200-sxm", "b200" },   -- the systems the decision pages compare
  -- the team the first page answers for: six people, forty LoRA fine-tunes and two full fine-tunes
  -- of Llama-3.1 8B a month, results wanted within a day; owning and renting on the cited defaults
  -- (sparkreport list shows them; team.offers = { ... } replaces the catalog's rental offers)
  team     = sr.team { people = 6, deadline_h = 24, jobs = { { lora, per_month = 40 }, { full, per_month = 2 } } },
  -- the reference workloads the per-job pages answer for beside the team's jobs (the default list but the
  -- two the team's jobs are, which the model below leaves to them)
  decide   = { "gpt2-124m", "llama-3.1-8b-adam8", "llama-3.3-70b-qlora" },

  sr.bandwidth { device = "cpu", kernels = "all", precisions = "all", sizes = "sweep", threads = "sweep" },
  sr.bandwidth { device = "gpu", alloc = "all", transfers = true, contention = true },
  -- compute per precision: peaks, GEMM sweep, roofline knee, numerics; 60 s for the CPU (and
  -- 60 s more for a GPU when there is one)
  sr.precision { formats = "all", budget_s = 60 },
  -- training: a GPT-style decoder in two shapes, FP32 and BF16, loss against the entropy bound
  -- and every op timed; at most 90 s (on a busy machine a shape stops early and says so); on
  -- a GPU the same shapes, FP8 included
  sr.train { shapes = { "tiny", "small" }, precisions = { "fp32", "bf16" }, budget_s = 90 },
  sr.train { device = "gpu", shapes = { "tiny", "small" }, precisions = "all" },
  -- compression: every quantization and pruning scheme streaming an FP32-equivalent matrix of 4x
  -- all caches (2 GiB here) at batches 1 and 4, each one's layer error, and the held-out loss
  -- of the largest model the training above trained (small, FP32), with each applied (40 s on 2
  -- cores); on a GPU the same products
  sr.compress { schemes = "all", batches = { 1, 4 }, budget_s = 40 },
  sr.compress { device = "gpu", schemes = "all" },
  -- shared use: 1, 2 and 4 tenants at once, each a separate process, running a bandwidth stream and
  -- a training step (the small shape): each one's slowdown against running alone and its share of
  -- the alone bandwidth, which the Spark's tenant projection below uses (25 s on 2 cores); on a GPU
  -- the same as processes time-slicing the one device
  sr.tenants { budget_s = 25 },
  sr.tenants { device = "gpu", budget_s = 25 },
  -- the training-time model: calibrated on microbenchmarks, validated by predicting then
  -- measuring ten small training configurations, then every reference workload projected onto
  -- every catalog system (about 30 s)
  -- (every reference workload beside the team's jobs, but the two those jobs are: each once in the appendices)
  sr.model { workloads = { "gpt2-124m", "gpt2-355m", "gpt2-774m", "gpt2-1.5b", "llama-3.2-1b", "llama-3.2-3b",
                           "llama-3.1-8b-adam8", "llama-3.1-8b-bf16adam", "llama-3.1-8b-qlora", "llama-3.3-70b-qlora" } },
}
