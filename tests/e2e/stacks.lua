-- tests/e2e/stacks.lua: issue 47's page-1 words, guarding src/decide/flips.c (the compiled-stack flip),
-- src/predict/project.c (r.compiled) and lua/sparkreport/sections/team.lua (software_text, compiled_text).
-- A team of LoRA fine-tunes (tests/scenarios/team-lora.lua): each job's projection on the Hugging Face
-- Trainer carries the same job on the compiled stack; page 1 names the job's stack and era, the same on
-- every option, and says what a compiled stack on both sides does to the answer and how fast the Trainer
-- runs the job on a GB10 against it, the figures the decision stage's flip record holds.
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
return "pass"
