-- tests/e2e/model_gpu.lua: the training-time model on the GPU. Run here (tests/scenarios/model-gpu.lua):
-- without a device, or in a build without CUDA, each GPU item is recorded as not measured with the
-- CUDA probe's exact reason, the run succeeds and the PDF says so; with a device, the calibration
-- and validation are the GPU's. Then tests/fixtures/model/gpu.json (a GB10 run's model experiment)
-- rendered in place of the model fixture's experiment: the GPU's calibration, its validation
-- labelled with the device, and the DGX Spark row measured, not the catalog's.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local function write(path, doc) local f = assert(io.open(path, "wb")); f:write(json.encode(doc)); f:close() end
local function has(t, want, what) if not t:find(want, 1, true) then fail("%s lacks %q", what, want) end end

local out, code = sh(("cd %s && %s run tests/scenarios/model-gpu.lua -o %s -q"):format(q(env.srcdir), q(env.bin),
                     q(env.out .. "/reports")))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$") or fail("no report path in %q", out)
local r = json.decode(read(dir .. "/results.json"))
local exp = r.experiments[1]
-- without a device every item is skipped, so the experiment is "skipped" with their reason
if exp.name ~= "model" or exp.device ~= "gpu" or exp.status ~= "skipped" then
  fail("model gpu: %s %s %s", exp.name, exp.device, exp.status)
end
local reason = r.context.cuda.reason
if exp.reason ~= reason then fail("skipped experiment's reason %q, wanted the CUDA probe's %q", tostring(exp.reason), reason) end
local text = env.pdftotext and env.pdftotext ~= "" and sh(("%s %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf"))):gsub("%s+", " ")
if reason then                          -- no device here: the probe's words, once per item
  local items = { "model gpu: calibration (matmul peaks, bandwidth, launch cost, ops timed on their own)",
                  "model gpu: validation (training configurations predicted, then measured)",
                  "model gpu: projection from this device's calibration" }
  if #exp.skipped ~= #items or #exp.results ~= 0 then fail("model gpu: %d skipped, %d records", #exp.skipped, #exp.results) end
  for i, item in ipairs(items) do
    if exp.skipped[i].item ~= item or exp.skipped[i].reason ~= reason then
      fail("skipped[%d] = %q: %q (wanted %q: the CUDA probe's %q)", i, exp.skipped[i].item, exp.skipped[i].reason, item, reason)
    end
  end
  if not (reason:find("^no CUDA device: ") or reason:find("^not measured: this sparkreport was built without CUDA")) then
    fail("the probe's reason %q is neither 'no CUDA device: ...' nor 'built without CUDA'", reason)
  end
  if text then has(text, items[1] .. " " .. (reason:find("^not measured") and reason or ("not measured: " .. reason)), "the PDF") end
else                                    -- a device: its calibration and validation
  local cal, v = exp.info.calibration, exp.info.validation
  if not (cal and cal.device == "gpu" and cal.device_name and cal.peak_flops.fp32 and v and v.device == "gpu") then
    fail("model gpu on a device: no GPU calibration or validation")
  end
end

-- the fixture of a GB10 run, drawn
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local doc = json.decode(read(env.srcdir .. "/tests/fixtures/model/results.json"))
doc.experiments = { json.decode(read(env.srcdir .. "/tests/fixtures/model/gpu.json")) }
write(env.out .. "/gpu.json", doc)
local pdf = env.out .. "/gpu.pdf"
out, code = sh(("%s render %s -o %s"):format(q(env.bin), q(env.out .. "/gpu.json"), q(pdf)))
if code ~= 0 then fail("render: %s", out) end
local apdf = env.out .. "/gpu-annex.pdf"          -- the technical annex: the model's calibration and validation
local t = sh(("%s %s - && %s %s -"):format(q(env.pdftotext), q(pdf), q(env.pdftotext), q(apdf))):gsub("%s+", " ")
local lay = sh(("%s -layout %s -"):format(q(env.pdftotext), q(apdf)))
for _, want in ipairs {
  "Validation on this machine's GPU (NVIDIA GB10)",
  "(op kernels timed on their own, the GEMM surface, the kernel launch cost) and was never fitted on these runs.",
  "Over 2 configurations: mean |error| 3.65 %, max |error| 4.20 %",
  "What it covers: this machine's own training steps on this device: it validates the method here, not the "
    .. "projections onto other systems.",
  "Measured on this run on this machine's GPU (NVIDIA GB10): sustained matmul peaks BF16 88,000 GFLOP/s, E4M3 "
    .. "170,000 GFLOP/s, FP32 24,000 GFLOP/s",
  "device-memory bandwidth 231 GB/s",
  "fixed cost per op 4.0 µs (an empty",                   -- the sentence may cross a page (its footer between)
  "kernel launch, 1000 back to back on one stream",
  "37 ops were timed on their own through the GPU trainer (37 records",
  "Catalog row replaced: the dgx-spark row is this run's measurements of its GPU (NVIDIA GB10)",
  "On the NVIDIA DGX Spark (GB10), measured here, GPT-2 124M pre-training takes about 132 h",
} do has(t, want, "the GPU report") end
-- the validation in the body, the projection tables in their appendix after it
local section = lay:match("Validation on this machine's GPU(.*)") or fail("no GPU model section")
for _, p in ipairs {
  "v1%s+2/64/4/32/8/512%s+fp32[^\n]-439%.7 µs p%s+422%.0 µs m%s+%+4%.2 %%",       -- 4.3974e-4 / 1.042
  "NVIDIA DGX%s+measured%s+132 h p%s+113–151 h p%s+fits%s+38 / 129 p%s+31%.7 p%s+%$4,699 s",   -- +-14.2 %; 132 h x 240 W (the whole system, data/costs.csv)
  "NVIDIA H100%s+catalog%s+8%.96 h p%s+7%.89–10%.3 h p",
} do
  if not section:find(p) then fail("the GPU section lacks %s", p) end
end
return "pass"
