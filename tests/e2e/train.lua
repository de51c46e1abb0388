-- tests/e2e/train.lua: the training experiment end to end on tests/scenarios/train-tiny.lua:
-- every CPU record valid and consistent with its own samples, the op records adding up to
-- Megatron's closed form, the GPU configuration recorded as not measured with the CUDA probe's
-- reason when there is no device, and the PDF's training section against results.json.
local env = ...
local json = require "json"
local sh, q = env.sh, env.q

local fail = env.fail
local read = env.read
local rate = env.rate
local function near(a, b, rel) return math.abs(a - b) <= rel * math.abs(b) end
local function median(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

local out, code = sh(("cd %s && %s run tests/scenarios/train-tiny.lua -o %s -q"):format(q(env.srcdir), q(env.bin),
                     q(env.out .. "/reports")))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$")
local r = json.decode(read(dir .. "/results.json"))

local cpu, gpu
for _, e in ipairs(r.experiments) do
  if e.name == "train" then if e.device == "cpu" then cpu = e else gpu = e end end
end
if not (cpu and gpu) then fail("expected a cpu and a gpu train experiment") end
if cpu.status ~= "complete" or #cpu.results ~= 2 then fail("cpu: %s, %d records", cpu.status, #cpu.results) end
for _, rec in ipairs(cpu.results) do
  local what = rec.shape .. " " .. rec.precision
  if not rec.valid then fail("%s invalid: %s", what, rec.error or "?") end
  if rec.steps_done ~= 12 or #rec.loss ~= 12 or #rec.samples_s ~= 10 then
    fail("%s: %d steps, %d losses, %d samples", what, rec.steps_done, #rec.loss, #rec.samples_s)
  end
  if not near(rec.time_s.median, median(rec.samples_s), 1e-12) then fail("%s: median %g is not the samples'", what, rec.time_s.median) end
  if not near(rec.tokens_per_s, rec.tokens_per_step / rec.time_s.median, 1e-12) then fail("%s: tokens/s", what) end
  local B, s, L, h, V = rec.batch * rec.accum, rec.seq, rec.layers, rec.hidden, rec.vocab
  -- Megatron's closed form with the causal half of the scores (NET_FLOP_CONVENTION)
  local megatron = 72 * B * s * L * h * h * (1 + (s + 1) / (12 * h) + V / (12 * L * h))
  local sum = 0
  for _, o in ipairs(rec.ops) do
    if (o.class == "matmul" or o.class == "attention") and o.phase ~= "recompute" then sum = sum + o.flops end
  end
  if not (near(rec.model_flops_per_step, megatron, 1e-12) and near(sum, megatron, 1e-12)) then
    fail("%s: model FLOPs %g, op records %g, Megatron %g", what, rec.model_flops_per_step, sum, megatron)
  end
  if rec.memory.allocated_bytes ~= rec.memory.planned_bytes then fail("%s: allocated differs from planned", what) end
  if rec.precision == "fp32" and rec.memory.static_bytes_per_param ~= 16 then fail("fp32: static bytes per param") end
  if not (rec.loss[12] < rec.loss[1]) then fail("%s: the loss did not fall", what) end
end
if #gpu.results == 0 then
  local reason = r.context.cuda.reason
  if #gpu.skipped ~= 1 or gpu.skipped[1].reason ~= reason or not gpu.skipped[1].item:find("^tiny bf16 gpu") then
    fail("gpu: expected one skipped item with the CUDA probe's reason %q", tostring(reason))
  end
  -- nothing measured: the experiment is "skipped" with that reason, never "complete"
  if gpu.status ~= "skipped" or gpu.reason ~= reason then
    fail("gpu: status %s, reason %q (wanted skipped, %q)", tostring(gpu.status), tostring(gpu.reason), tostring(reason))
  end
end

if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = sh(("%s -layout %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf")))   -- the technical annex
local rec = cpu.results[1]
for _, want in ipairs { "Training", "Training loss, tiny (measured)", "Step time by op class, tiny",
                        ("entropy bound H(p) = %.3f nats"):format(rec.entropy_bound_nats), "Memory, loss and checks",
                        "gradient vs finite difference", "step 0 loss vs CPU FP32" } do
  if not text:find(want, 1, true) then fail("PDF lacks %q", want) end
end
for _, x in ipairs(cpu.results) do
  local row = ("%s%%s+%s%%s+%s"):format(x.shape .. " " .. x.precision .. " cpu", "[^\n]-", rate(x.tokens_per_s):gsub("%.", "%%."))
  if not text:find(row) then fail("PDF lacks the speed row of %s %s with %s tokens/s", x.shape, x.precision, rate(x.tokens_per_s)) end
end
if #gpu.results == 0 and not text:find("tiny bf16 gpu", 1, true) then fail("PDF lacks the not-measured GPU row") end
return "pass"
