-- sparkreport.sections.train: the training section: how the model, data and timing work; the
-- loss curves per shape with the entropy bound drawn; the step time by op class; speed (tokens/s,
-- FLOP/s, MFU against the measured and the catalog peak, each named), memory and loss against the
-- bound per configuration; the checks each configuration passed; the heaviest ops of the largest
-- configuration; what was not measured and why. Draws from the train records (and, for MFU, the
-- calibration peaks and the catalog row) only.
local ceilings = require "sparkreport.ceilings"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"

local S = {}

local CLASSES = { "matmul", "attention", "norm", "elementwise", "loss", "optimizer", "other" }
local CATALOG = { fp32 = "fp32_tflops", bf16 = "bf16_tflops", fp8 = "fp8_tflops" }

-- A reason without a leading "not measured: " (cuda_probe's may carry one).
local function why(reason)
  return (reason:gsub("^not measured: ", ""))
end

local function label(r)
  return ("%s %s %s"):format(r.shape, r.precision, r.device)
end

local function shape_text(r)
  return ("%d layers, hidden %s, %d heads, sequence %s, vocabulary %s, batch %d%s%s%s"):format(r.layers,
    fmt.whole(r.hidden), r.heads, fmt.whole(r.seq), fmt.whole(r.vocab), r.batch, r.accum > 1 and (", accumulation x" .. r.accum) or "",
    r.checkpoint and ", checkpointing" or "", r.tied and ", tied head" or "")
end

local function shape_key(r)
  return ("%s|%d|%d|%d|%d|%d|%d|%d|%s|%s"):format(r.shape, r.layers, r.hidden, r.heads, r.seq, r.vocab, r.batch,
    r.accum, tostring(r.checkpoint), tostring(r.tied))
end

-- Records grouped by shape, in first-seen order.
local function by_shape(recs)
  local groups, order = {}, {}
  for _, r in ipairs(recs) do
    local k = shape_key(r)
    if not groups[k] then groups[k] = {}; order[#order + 1] = k end
    table.insert(groups[k], r)
  end
  local out = {}
  for _, k in ipairs(order) do out[#out + 1] = groups[k] end
  return out
end

local function method(doc, exps)
  local info = exps[1].info or {}
  local data = info.data or {}
  doc:paragraph("A GPT-style decoder written out in C (token and position embeddings; blocks of LayerNorm, causal "
    .. "multi-head attention, LayerNorm and a GELU MLP of four times the hidden size, each with a residual "
    .. "connection; a final LayerNorm; an LM head; softmax cross-entropy), forward and backward by hand, trained "
    .. "with " .. (info.optimizer or "AdamW") .. ". Matmuls run through CBLAS on the CPU and cuBLASLt on a GPU; "
    .. "everything else is OpenMP loops or CUDA kernels sharing their per-element math.")
end

-- The data, precisions, timing and validation rules: the appendix's.
local function method_detail(doc, exps)
  local info = exps[1].info or {}
  local data = info.data or {}
  local ctx = (data.order or 1) == 1 and "the previous token" or (("the previous %d tokens"):format(data.order))
  doc:paragraph(("Data: %s. Here the context is %s and each context has %d possible successors; H(p) = %.3f nats is "
    .. "drawn on each loss curve. Every step draws a fresh batch, so the training loss is also a held-out loss.")
    :format(data.source or "generated tokens", ctx, data.branching or 0, data.entropy_nats or 0 / 0))
  doc:paragraph("Precisions: " .. (info.precisions or "") .. "." .. (info.bf16_matmuls and (" On the CPU, "
    .. info.bf16_matmuls .. ".") or ""))
  doc:paragraph("Timing: every op of a step is timed between marks (CPU clock; CUDA events on a GPU); a step's "
    .. "time is the sum over its ops, the figure given is the median over the steps after the warm-up steps, with "
    .. "its CV. FLOPs and bytes per op are closed forms from the same description the training-time model "
    .. "evaluates: " .. (info.flop_convention or "") .. "; " .. (info.byte_convention or "") .. ". MFU is the model "
    .. "FLOPs per second divided by a peak, named per column: the one peak of the precision that this run measured "
    .. "(on the CPU the FMA peak, chains of multiply-adds on all threads; on a GPU its fastest GEMM), the same figure "
    .. "the compute section shows, and the catalog's dense peak when this machine is a catalog system (GPU rows "
    .. "only: the catalog gives no CPU figures). CPU BF16 rows are divided by the FP32 peak: their matmuls compute "
    .. "in FP32. The projections' implied MFU counts the same FLOPs (the causal half of attention).", "small")
  doc:paragraph("Validation before anything is timed: " .. (info.validation or "") .. ".", "small")
end

local function loss_chart(doc, group)
  local series, bound, n = {}, nil, 0
  for _, r in ipairs(group) do
    if r.loss and #r.loss > 0 then
      local xs = {}
      for i = 1, #r.loss do xs[i] = i end
      series[#series + 1] = { name = r.precision .. " " .. r.device, x = xs, y = r.loss }
      n = math.max(n, #r.loss)
      bound = r.entropy_bound_nats
    end
  end
  if #series == 0 then return end
  series[#series + 1] = { name = ("entropy bound H(p) = %.3f nats"):format(bound), x = { 1, n }, y = { bound, bound },
                          dashed = true }
  local r = group[1]
  doc:chart {
    title = ("Training loss, %s (measured)"):format(r.shape),
    x = { label = "optimizer step", min = 1 }, y = { label = "cross-entropy (nats per token)", min = 0 },
    series = series,
    caption = ("%s: %s, %.2f M parameters. Each step's mean loss over %d tokens; the dashed line is the lowest loss any "
      .. "model can reach on this data (computed, not measured); a uniform guess scores %.2f nats."):format(r.shape,
      shape_text(r), r.params / 1e6, r.tokens_per_step, r.uniform_loss_nats or 0),
  }
end

local function breakdown_chart(doc, group)
  local cats, timed = {}, {}
  for _, r in ipairs(group) do
    if r.time_by_class_s and r.time_s then
      cats[#cats + 1] = r.precision .. " " .. r.device
      timed[#timed + 1] = r
    end
  end
  if #timed == 0 then return end
  local series = {}
  for _, c in ipairs(CLASSES) do
    local ys = {}
    for i, r in ipairs(timed) do ys[i] = (r.time_by_class_s[c] or 0) * 1e3 end
    series[#series + 1] = { name = c, y = ys }
  end
  doc:chart {
    kind = "stacked_bar", title = ("Step time by op class, %s (measured, medians over steps)"):format(group[1].shape),
    categories = cats, x = { label = "configuration" }, y = { label = "milliseconds per step" }, series = series,
    caption = "Each segment is the median over the timed steps of that class's time in a step.",
  }
end

-- The peak a configuration's MFU is taken against: the measured sustained peak of the
-- precision its matmuls compute in (CPU BF16 computes in FP32), GFLOPS, and its method.
local function measured_peak(results, r)
  local cal = results.ceilings or results.calibration or ceilings.build(results)
  local prec = r.device == "cpu" and "fp32" or r.precision
  for _, p in ipairs(cal.peaks or {}) do
    if p.device == r.device and p.precision == prec then return p.gflops, ("%s %s, %s"):format(r.device, prec, p.method) end
  end
end

local function catalog_peak(results, r)
  local row, col = R.catalog_row(results), CATALOG[r.precision]
  if r.device ~= "gpu" or not row or not col or not row[col] then return nil end
  return row[col] * 1000, ("%s %s (catalog)"):format(row.name, col)
end

local function speed_row(results, r, notes)
  if not r.valid then
    return { label(r), { text = "FAILED: " .. (r.error or "validation"), tone = "bad" }, "", "", "", "" }
  end
  if not r.time_s then return { label(r), r.not_timed or "not timed", "", "", "", "" } end
  local gf = r.achieved_flops / 1e9
  local mp, mwhat = measured_peak(results, r)
  local cp, cwhat = catalog_peak(results, r)
  if mwhat then notes[mwhat] = true end
  if cwhat then notes[cwhat] = true end
  return { label(r), { text = ("%s (CV %s)"):format(fmt.seconds(r.time_s.median), fmt.cv(r.time_s.cv)), kind = "measured" },
           { text = fmt.rate(r.tokens_per_s), kind = "measured" }, { text = fmt.rate(gf), kind = "measured" },
           mp and { text = fmt.pct(gf / mp), kind = "measured" } or "not measured in this run",
           cp and { text = fmt.pct(gf / cp), kind = "spec" } or (r.device == "cpu" and "no CPU figure" or "not a catalog system") }
end

local function speed_table(doc, results, recs)
  local rows, notes = {}, {}
  for _, r in ipairs(recs) do rows[#rows + 1] = speed_row(results, r, notes) end
  local peaks = {}
  for k in pairs(notes) do peaks[#peaks + 1] = k end
  table.sort(peaks)
  doc:table {
    columns = { { title = "Configuration", width = 0.2 }, { title = "Step time\n(median, CV)", align = "right", width = 0.22 },
                { title = "Tokens/s", align = "right", width = 0.11 }, { title = "Model\nGFLOP/s", align = "right", width = 0.11 },
                { title = "MFU vs\nmeasured peak", align = "right", width = 0.18 },
                { title = "MFU vs\ncatalog peak", align = "right", width = 0.18 } },
    rows = rows,
    caption = "Model FLOPs: matmuls and attention products of forward and backward, no recomputation. Peaks: "
      .. (#peaks > 0 and table.concat(peaks, "; ") or "none measured in this run") .. ".",
  }
end

-- Configurations that did not run (no device, FP8 unsupported, too big), with the reason.
local function skipped_table(doc, exps)
  local rows = {}
  for _, e in ipairs(exps) do
    for _, s in ipairs(e.skipped or {}) do rows[#rows + 1] = { s.item, why(s.reason) } end
    if e.status ~= "complete" then rows[#rows + 1] = { "training on " .. (e.device or "?"), why(e.reason or e.error or e.status) } end
  end
  if #rows == 0 then return end
  doc:table { columns = { { title = "Not measured", width = 0.45 }, { title = "Why" } }, rows = rows }
end

local function memory_loss_table(doc, recs)
  local rows = {}
  for _, r in ipairs(recs) do
    local m = r.memory or {}
    local loss = r.loss_final and ("%.3f / %.3f"):format(r.loss_final, r.entropy_bound_nats) or "n/a"
    rows[#rows + 1] = {
      label(r), ("%.2f M"):format(r.params / 1e6),
      { text = fmt.bytes(m.planned_bytes or 0), kind = "measured" },
      m.peak_rss_bytes and { text = fmt.bytes(m.peak_rss_bytes), kind = "measured" } or "n/a",
      ("%.1f"):format(m.static_bytes_per_param or 0), { text = loss, kind = "measured" },
      r.gap_closed and fmt.pct(r.gap_closed) or "n/a",
      r.valid and { text = "valid", tone = "good" } or { text = "FAILED", tone = "bad" },
    }
  end
  doc:table {
    columns = { { title = "Configuration", width = 0.17 }, { title = "Params", align = "right", width = 0.11 },
                { title = "Tensors\nallocated", align = "right", width = 0.12 },
                { title = "Peak\nresident", align = "right", width = 0.12 },
                { title = "Static\nB/param", align = "right", width = 0.1 },
                { title = "Final loss /\nbound (nats)", align = "right", width = 0.15 },
                { title = "Gap\nclosed", align = "right", width = 0.1 }, { title = "Checks", width = 0.13 } },
    rows = rows,
    caption = "Tensors allocated: every tensor the run holds, as planned from the op description (weights, low-"
      .. "precision copies, gradients, AdamW moments, activations, scratch). Peak resident: the process's high-water "
      .. "mark while the configuration ran (reset before it where Linux allows), libraries included. Static B/param: "
      .. "weights, copies, gradients and optimizer state per parameter (16 for FP32 AdamW). Final loss: mean of the last "
      .. "10 % of steps; gap closed: the share of the distance from the first loss to the bound that training covered.",
  }
end

-- Configurations that stopped before their last step, and why.
local function stopped(doc, group)
  local why = { budget = "its share of the time budget was spent", interrupted = "the run was interrupted" }
  for _, r in ipairs(group) do
    if r.stop and r.stop ~= "done" then
      doc:paragraph(("%s stopped after %d of %d steps: %s (the learning-rate schedule assumed %d)."):format(label(r),
        r.steps_done, r.steps, why[r.stop] or r.stop, r.steps), "note")
    end
  end
end

local function compare_precisions(doc, group)
  local f32, b16
  for _, r in ipairs(group) do
    if r.device == "cpu" and r.precision == "fp32" then f32 = r end
    if r.device == "cpu" and r.precision == "bf16" then b16 = r end
  end
  if not (f32 and b16 and f32.loss and b16.loss) then return end
  local worst, n = 0, math.min(#f32.loss, #b16.loss)
  for i = 1, n do worst = math.max(worst, math.abs(f32.loss[i] - b16.loss[i])) end
  doc:paragraph(("%s: over the %d steps both ran, BF16's loss stays within %.4f nats of FP32's (same seed, weights and "
    .. "batches); final losses %.3f (FP32) and %.3f (BF16) against the bound %.3f."):format(f32.shape, n, worst,
    f32.loss_final or 0 / 0, b16.loss_final or 0 / 0, f32.entropy_bound_nats), "small")
end

local function checks_table(doc, recs)
  local rows = {}
  for _, r in ipairs(recs) do
    for _, c in ipairs(r.checks or {}) do
      rows[#rows + 1] = { label(r), c.check, ("%.6g"):format(c.value), ("%.6g"):format(c.reference),
                          ("%.2g"):format(c.relative_error), ("%.0e"):format(c.tolerance),
                          c.pass and { text = "pass", tone = "good" } or { text = "FAIL", tone = "bad" } }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Configuration", width = 0.18 }, { title = "Check", width = 0.27 },
                { title = "Value", align = "right", width = 0.12 }, { title = "Reference", align = "right", width = 0.12 },
                { title = "Relative\nerror", align = "right", width = 0.1 }, { title = "Tolerance", align = "right", width = 0.13 },
                { title = "", width = 0.08 } },
    rows = rows,
    caption = "Checks of the first step, run before any step was timed (measured on this run).",
  }
end

local function heaviest_ops(doc, recs)
  local big
  for _, r in ipairs(recs) do
    if r.ops and r.time_s and (not big or r.params * r.tokens_per_step > big.params * big.tokens_per_step) then big = r end
  end
  if not big then return end
  local ops = {}
  for _, o in ipairs(big.ops) do if o.time_s then ops[#ops + 1] = o end end
  table.sort(ops, function(a, b) return a.time_s > b.time_s end)
  local rows = {}
  for i = 1, math.min(12, #ops) do
    local o = ops[i]
    local shape = o.k > 1 and ("%dx%dx%d"):format(o.m, o.n, o.k) or ("%dx%d"):format(o.m, o.n)
    rows[#rows + 1] = { o.label, o.class, shape, o.dtype, fmt.seconds(o.time_s),
                        fmt.rate(o.flops / o.time_s / 1e9), fmt.rate((o.bytes_read + o.bytes_written) / o.time_s / 1e9) }
  end
  doc:table {
    columns = { { title = "Op", width = 0.29 }, { title = "Class", width = 0.15 }, { title = "Shape", width = 0.15 },
                { title = "Dtype", width = 0.08 }, { title = "Time", align = "right", width = 0.11 },
                { title = "GFLOP/s", align = "right", width = 0.11 }, { title = "GB/s", align = "right", width = 0.11 } },
    rows = rows,
    caption = ("The slowest ops of one step of %s (medians over steps; %d op records in all, every one in results.json "
      .. "with its FLOPs and bytes). GB/s counts each tensor the op names once."):format(label(big), #big.ops),
  }
end

function S.train(doc, results)
  doc:section("Training")
  local exps, none = R.family(results, "train", "training")
  if not exps then return doc:paragraph(none) end
  local recs = R.all_records(exps)
  local ran = nil
  for _, e in ipairs(exps) do if e.info then ran = ran or e end end
  if ran then method(doc, { ran }) end
  local groups = by_shape(recs)
  local label = appendix.defer(doc, "Training: method, what was not measured, step time of every shape", function(d)
    if ran then method_detail(d, { ran }) end
    skipped_table(d, exps)
    for i = 1, #groups - 1 do breakdown_chart(d, groups[i]) end
  end)
  doc:paragraph(("The data, precisions, timing and validation rules, what was not measured and why, and the step "
    .. "time by op class of every shape: %s."):format(label), "small")
  for _, group in ipairs(groups) do
    loss_chart(doc, group)
    stopped(doc, group)
    compare_precisions(doc, group)
  end
  doc:section("Speed", 2)
  if #recs > 0 then speed_table(doc, results, recs) end
  if #groups > 0 then breakdown_chart(doc, groups[#groups]) end
  doc:section("Memory, loss and checks", 2)
  if #recs > 0 then
    memory_loss_table(doc, recs)
    local label = appendix.defer(doc, "Training: checks and the heaviest ops", function(d)
      checks_table(d, recs)
      heaviest_ops(d, recs)
    end)
    doc:paragraph(("The checks of every configuration (gradients, loss against the bound) and its heaviest ops, "
      .. "each timed: %s."):format(label), "small")
  else
    doc:paragraph("No configuration ran; the table above says why.")
  end
end

return S
