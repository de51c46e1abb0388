-- tests/e2e/compress.lua: a short compression run end to end: every product validated before it
-- was timed, its rates and speed-ups follow from its samples and the FP32 record, the layer
-- errors stay within their stated bounds, the held-out losses come from the model the training
-- experiment trained (its size in every record, the section says which) and their changes are
-- relative to the unquantized one, results.ceilings carries the weight formats, GPU items say why they were
-- not measured, and the PDF's compression section shows the numbers of results.json.
local env = ...
local json = require "json"
local sh, q = env.sh, env.q

local fail = env.fail
local read = env.read
local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(math.abs(b), 1e-300) end

local out, code = sh(("cd %s && %s run tests/scenarios/compress.lua -o %s -q"):format(q(env.srcdir), q(env.bin), q(env.out)))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$")
local r = json.decode(read(dir .. "/results.json"))
local t, c, g = r.experiments[2], r.experiments[3], r.experiments[4]
if t.name ~= "train" or t.status ~= "complete" then fail("train experiment: %s", tostring(t.status)) end
local trained = t.results[1]
if c.name ~= "compress" or c.status ~= "complete" then fail("compress experiment: %s", tostring(c.status)) end

local by, fp32 = {}, {}
for _, rec in ipairs(c.results) do
  by[rec.series] = (by[rec.series] or 0) + 1
  if rec.valid ~= true then fail("%s %s failed validation: %s", rec.series, rec.scheme, tostring(rec.error)) end
  if rec.series == "gemv" and rec.scheme == "fp32" then fp32[rec.batch] = rec end
end
if by.read ~= 1 or by.gemv ~= 2 * 7 or by.layer_error ~= 7 or by.model_loss ~= 7 then
  fail("records: read %s, gemv %s, layer_error %s, model_loss %s", by.read, by.gemv, by.layer_error, by.model_loss)
end
for _, rec in ipairs(c.results) do
  if rec.series == "gemv" then
    local lo, sorted = math.huge, {}
    for _, s in ipairs(rec.samples_s) do lo = math.min(lo, s); sorted[#sorted + 1] = s end
    if not near(rec.gbps_best, rec.bytes / lo / 1e9) then fail("%s gbps_best does not follow from its samples", rec.scheme) end
    local f = fp32[rec.batch]
    if not near(rec.speedup_vs_fp32, f.time_s.median / rec.time_s.median) then fail("%s speed-up is not the ratio of medians", rec.scheme) end
    if not near(rec.ideal_speedup_vs_fp32, f.bytes / rec.bytes) then fail("%s ideal speed-up is not the bytes ratio", rec.scheme) end
  elseif rec.series == "layer_error" then
    if not rec.within_bound then fail("%s layer error %g exceeds its bound %g", rec.scheme, rec.rel_error, rec.error_bound) end
  elseif rec.series == "model_loss" then
    if not near(rec.loss_change, rec.loss_heldout - rec.loss_unquantized) then fail("%s loss change", rec.scheme) end
    if rec.scheme == "fp32" and rec.loss_change ~= 0 then fail("fp32 changes the loss by %g", rec.loss_change) end
    if rec.model_source ~= "the training experiment of this run" or rec.params ~= trained.params
       or rec.shape ~= trained.shape or rec.steps_done ~= trained.steps_done or rec.loss_train_final ~= trained.loss_final then
      fail("%s held-out loss: not on the trained model (%s, %s parameters)", rec.scheme, tostring(rec.model_source),
           tostring(rec.params))
    end
    if not near(rec.loss_over_bound, rec.loss_heldout - trained.entropy_bound_nats) then fail("%s loss over the bound", rec.scheme) end
  end
end

-- the weight formats the training-time model reads
local wf = {}
for _, f in ipairs(r.ceilings.weight_formats or {}) do wf[f.device .. "/" .. f.scheme] = f end
local i8, n4, p75 = wf["cpu/int8"], wf["cpu/nvfp4"], wf["cpu/prune-75"]
if not i8 or i8.bits_per_weight ~= 8 or not i8.speedup_vs_fp32 or not i8.layer_error or not i8.loss_change then
  fail("calibration.weight_formats lacks int8's figures")
end
if not n4 or n4.bits_per_weight ~= 4.5 or not p75 or math.abs(p75.bits_per_weight - 8) > 1e-12 or p75.density ~= 0.25 then
  fail("calibration.weight_formats: nvfp4 or prune-75 bits wrong")
end

-- the GPU part: measured, or every item says why not
local info = json.decode(sh(q(env.bin) .. " info --json"))
local nodev = not (info.cuda and info.cuda.devices and #info.cuda.devices > 0)
if nodev and (#g.results ~= 0 or #g.skipped ~= 3 or not g.skipped[1].reason:find("CUDA", 1, true)) then
  fail("GPU compress without a device: %d results, %d skipped", #g.results, #g.skipped)
end

if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = sh(("%s -layout %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf")))   -- the technical annex
-- the section and the appendices its chart and speed tables moved to
local section = text:match("Compression: quantization and pruning(.*)$")
if not section then fail("PDF lacks the compression section") end
for _, t in ipairs { "Compression, CPU", "Speed-up over dense FP32 against bits per weight", "Accuracy",
                     "The baseline, dense FP32 at batch", "Bound by", "measured over" } do
  if not section:find(t, 1, true) then fail("the section lacks %q", t) end
end
local flat = section:gsub("%s+", " ")
for _, t in ipairs { "Model: the largest model this run's training experiment trained, its 'tiny' shape (137 k parameters, "
                     .. "2 blocks, hidden 64," } do
  if not flat:find(t, 1, true) then fail("the section lacks %q", t) end
end
-- the baseline quotes one read figure, this run's DRAM figure, by its value (a matrix that fits
-- the caches is compared with a plain read of itself instead)
if c.info.fp32_bytes >= 2 * c.info.caches_total_bytes then
  local want = ("of %s GB/s, this machine's DRAM bandwidth: the"):format(env.rate(c.info.dram.gbps))
  if not flat:find(want, 1, true) then fail("the baseline does not name the DRAM figure: %q", want) end
end
if nodev and not section:find("Compression, GPU: not measured", 1, true) then fail("the GPU part does not say why") end
-- dense FP32 at batch 2 against the read interleaved with it: seven pairs at least, the fraction the
-- pairs' median where the read is a ceiling (else none, with the reason), and the sentence quotes it
local f2 = fp32[2]
local adj = f2.read_adjacent or fail("fp32 batch 2 has no interleaved read")
if not (adj.pairs >= 7 and adj.gbps_median > 0) then fail("interleaved read: %s pairs, %s GB/s", adj.pairs, adj.gbps_median) end
if adj.product_over_read <= 1.05 then
  if f2.read_fraction_adjacent ~= adj.product_over_read then fail("read_fraction_adjacent is not the pairs' median") end
  local want = ("(%.1f %% of the read of the same matrix interleaved with it, %s GB/s median)"):format(
    100 * f2.read_fraction_adjacent, env.rate(adj.gbps_median))
  if not flat:find(want, 1, true) then fail("the dense FP32 sentence lacks %q", want) end
elseif f2.read_fraction_adjacent or not adj.not_a_ceiling then
  fail("a product faster than the read beside it keeps a fraction of it")
end
if fp32[1].read_adjacent == nil then fail("fp32 batch 1 has no interleaved read") end
for _, rec in ipairs(c.results) do          -- each layer error, as the table prints it
  if rec.series == "layer_error" and rec.rel_error >= 1e-4 then
    local cell = ("%.1f %%"):format(100 * rec.rel_error)
    if not section:find(rec.scheme:gsub("%p", "%%%0") .. "%s+" .. cell:gsub("%p", "%%%0")) then
      fail("the accuracy table lacks %s %s", rec.scheme, cell)
    end
  end
end

-- a run that trained no model: the exact words, in the record and in the report
out, code = sh(("cd %s && %s run tests/scenarios/compress-untrained.lua -o %s/untrained -q"):format(q(env.srcdir), q(env.bin),
               q(env.out)))
if code ~= 0 then fail("the untrained run exited %d: %s", code, out) end
dir = out:match("^(.-)/report%.pdf\n$")
local u = json.decode(read(dir .. "/results.json")).experiments[1]
local WHY = "not measured: this run trained no model before this experiment (the training experiment, on the CPU, "
  .. "before the compression experiment in the scenario, trains one; model = \"tiny\" or \"small\" trains one here)"
local said
for _, sk in ipairs(u.skipped) do if sk.item == "held-out loss of the trained model" then said = sk.reason end end
if said ~= WHY then fail("untrained run: the held-out loss's reason is %q", tostring(said)) end
for _, rec in ipairs(u.results) do
  if rec.series == "model_loss" then fail("untrained run: a held-out loss of %s was recorded", rec.scheme) end
end
text = sh(("%s %s -"):format(q(env.pdftotext), q(dir .. "/annex.pdf"))):gsub("%s+", " ")
if not text:find("Held-out loss on a trained model: " .. WHY .. ".", 1, true) then
  fail("the untrained run's report does not say why the held-out loss was not measured")
end
return "pass"
