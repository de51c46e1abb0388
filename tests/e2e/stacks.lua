-- tests/e2e/stacks.lua: issue 47's page-1 words, guarding src/decide/flips.c (the compiled-stack flip),
-- src/predict/project.c (r.compiled) and lua/sparkreport/sections/team.lua (software_text, compiled_text).
-- A team of LoRA fine-tunes (tests/scenarios/team-lora.lua): each job's projection on the Hugging Face
-- Trainer carries the same job on the compiled stack; page 1 names the job's stack and era, the same on
-- every option, and says what a compiled stack on both sides does to the answer and how fast the Trainer
-- runs the job on a GB10 against it, the figures the decision stage's flip record holds. Then the team's own
-- job (sr.job from a shipped config.json, in the team itself) calibrated on its own run read from a
-- trainer_state.json (sr.measured): its Spark row at the rate the file implies, the rows say so.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local out, code = sh(("cd %s && %s run tests/scenarios/team-lora.lua -o %s -q"):format(q(env.srcdir), q(env.bin),
  q(env.out .. "/reports")))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$") or fail("run printed %q", out)
local doc = json.decode(read(dir .. "/results.json"))
local model
for _, e in ipairs(doc.experiments) do if e.name == "model" then model = e end end
local spark
for _, r in ipairs(model.results) do
  if r.series == "projection" and r.workload == "llama-3.1-8b-lora" and r.system == "dgx-spark" then spark = r end
end
if not (spark and spark.stack == "hf-trainer" and spark.compiled and spark.compiled.stack == "pytorch-compile") then
  fail("the Spark's LoRA projection is not on the Hugging Face Trainer with the compiled stack beside it")
end
local flip
for _, r in ipairs(doc.team_decision.results) do
  if r.series == "flip" and r.what == "compiled_stack" then flip = r end
end
if not flip then fail("the decision stage wrote no compiled-stack flip") end
local job = flip.jobs and flip.jobs[1] or fail("the compiled-stack flip names no job")
local ratio = spark.hours > 0 and spark.compiled.hours / spark.hours
if not (math.abs(job.speed_of_compiled - ratio) < 1e-9 and ratio > 0.3 and ratio < 0.65) then
  fail("the Trainer's speed against the compiled stack on a GB10: %s in the flip, %s from the projection",
       tostring(job.speed_of_compiled), tostring(ratio))
end
local text = sh(("%s -f 1 -l 2 %s -"):format(q(env.pdftotext), q(dir .. "/report.pdf"))):gsub("%s+", " ")
local want = "Software: Llama-3.1 8B LoRA fine-tune (rank 16) on Hugging Face Trainer (2025-26) on every option"
if not text:find(want, 1, true) then fail("page 1 does not name the job's stack and era on both sides: %q", want) end
local pct = ("%.1f %%"):format(100 * ratio)
if not text:find("Software: a compiled stack on both sides (PyTorch + torch.compile (2024-26))", 1, true)
   and not text:find("Software: with a compiled stack on both sides (PyTorch + torch.compile (2024-26))", 1, true) then
  fail("page 1 does not say what a compiled stack on both sides does")
end
if not text:find(("runs Llama-3.1 8B LoRA fine-tune (rank 16) at %s of a compiled one's speed"):format(pct), 1, true) then
  fail("page 1 does not give the Trainer's speed on a GB10 against the compiled stack (%s)", pct)
end
-- the team's own job and its own measured run, read from the trainer_state.json its Trainer wrote: 2.437
-- samples/s of 166.2 tokens = 405.0 tok/s on a Spark
local f = assert(io.open(env.out .. "/trainer_state.json", "w"))
f:write('{"log_history": [{"epoch": 3.0, "train_runtime": 1341.99, "train_samples_per_second": 2.437}]}')
f:close()
f = assert(io.open(env.out .. "/own.lua", "w"))
f:write([[
local sr = require "sparkreport"
local lf = sr.job { name = "our LoRA", config = "data/models/llama-3.1-8b.json", lora_rank = 8, seq = 2048,
                    packing = false, sample_tokens = 166.2, micro_batch = 1, batch = 8, tokens = 2e7 }
return sr.scenario { budget_s = 20, systems = { "dgx-spark", "h100-sxm" },
  team = sr.team { people = 2, deadline_h = 48, jobs = { { lf, per_month = 8 } } },
  sr.measured { job = "our LoRA", system = "dgx-spark", trainer_state = "trainer_state.json", tokens_per_sample = 166.2,
                source = "our run of 2026-11-20" },
  sr.model { configs = 4, extra_configs = 0, base_hidden = 32, base_seq = 32, steps = 2, workloads = "none" },
}
]])
f:close()
out, code = sh(("cd %s && %s run own.lua -o %s -q"):format(q(env.out), q(env.bin), q(env.out .. "/own-reports")))
if code ~= 0 then fail("own job: run exited %d: %s", code, out) end
dir = out:match("^(.-)/report%.pdf\n$") or fail("own job: run printed %q", out)
doc = json.decode(read(dir .. "/results.json"))
local rate
for _, e in ipairs(doc.experiments) do
  for _, r in ipairs(e.name == "model" and e.results or {}) do
    if r.series == "projection" and r.workload == "our LoRA" and r.system == "dgx-spark" then rate = r.tokens_per_s_per_gpu end
  end
end
if not (rate and math.abs(rate / (2.437 * 166.2) - 1) < 0.01) then
  fail("own job: the Spark row is at %s tok/s, not within 1 %% of the 405.0 its trainer_state.json implies", tostring(rate))
end
text = sh(("%s %s -"):format(q(env.pdftotext), q(dir .. "/report.pdf"))):gsub("%s+", " ")
if not text:find("calibrated on your run (our run of 2026-11-20: 405 tokens/s per GPU measured on DGX Spark", 1, true) then
  fail("own job: the report does not say its rows are calibrated on the team's run")
end
return "pass"
