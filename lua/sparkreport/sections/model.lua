-- sparkreport.sections.model: the training-time model's sections. In the technical annex (model):
-- how far it can be trusted (this machine's measured training steps predicted, then measured,
-- against Calculon's published errors), the calibration it used, the GPU stack profiles fitted on
-- published runs, and every workload on every catalog system. In the decision report (projection):
-- the projected hours of the decision table's workloads, the vendor claims beside the arithmetic,
-- and as appendices the method, every workload on the compared systems, the memory-bound share and
-- a verdict per workload in plain words. Draws from the model records alone; the time predictor
-- lives in src/predict.
local dram_of = require("sparkreport.ceilings").dram
local dram_text = require("sparkreport.ceilings").dram_text
local ceilings = require "sparkreport.ceilings"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"
local marks = require "sparkreport.marks"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"
local annex = require "sparkreport.annex"

local S = {}

local DEVICE = { cpu = "CPU", gpu = "GPU" }
local BASIS = { measured = "measured here", catalog = "catalog spec", scenario = "scenario figures" }
local TFLOPS = { fp32 = "fp32_tflops", tf32 = "tf32_tflops", bf16 = "bf16_tflops", fp16 = "fp16_tflops",
                 fp8 = "fp8_tflops" }
local CALCULON = { mean = 0.0365, max = 0.0887 }   -- Isaev et al., "Calculon", SC23

local function m(text) return { text = text, kind = "measured" } end
local function p(text) return { text = text, kind = "projected" } end
local function s(text) return { text = text, kind = "spec" } end

local function hours(h) return fmt.hours(h) end
local function band(r) return ("%s–%s h"):format(fmt.hours(r.hours_low, ""), fmt.hours(r.hours_high, "")) end
local function ratio(x) return fmt.factor(x) end
local function factor(x) return fmt.factor(x) end                   -- a change of time: 0.72x
local function pct(x) return ("%.1f %%"):format(100 * x) end
local function pct2(x) return ("%.2f %%"):format(100 * x) end     -- beside Calculon's published 3.65 %
local function signed_pct(x) return ("%+.1f %%"):format(100 * x) end


-- "not measured: why", once (a reason may already say it).
local function not_measured(why)
  return why:find("^not measured") and why or ("not measured: " .. why)
end

local function by_id(list)
  local out = {}
  for _, x in ipairs(list or {}) do out[x.id] = x end
  return out
end

-- The system as the report names it: its info.systems row, else its catalog row, else its id.
local function system_name(ctx, id)
  local row = ctx.systems[id] or ctx.catalog[id]
  return row and row.name or id
end

-- A catalog figure of a system: its info.systems row first (scenario rows live only there).
local function figure(ctx, id, field)
  local a, b = ctx.systems[id], ctx.catalog[id]
  local v = a and a[field]
  if v == nil and b then v = b[field] end
  return type(v) == "number" and v or nil
end

-- ---- validation ------------------------------------------------------------------------

-- layers/hidden/heads/seq/batch/vocab: the vocabulary from the record, else from its label ("V512").
local function config_text(r)
  local vocab = type(r.vocab) == "number" and r.vocab or tonumber(tostring(r.label or ""):match("V(%d+)"))
  return ("%d/%d/%d/%d/%d"):format(r.layers, r.hidden, r.heads, r.seq, r.batch) .. (vocab and ("/%d"):format(vocab) or "/?")
end

-- The records the summary counts (valid, not excluded) and those it leaves out.
local function counted(r) return r.valid ~= false and r.measured_s and not r.excluded end

local function validation_chart(doc, recs)
  local groups, lo, hi = {}, math.huge, 0
  local order = { { key = "timed", name = "ops timed in it" }, { key = "held", name = "held out (no op of its own timed)" },
                  { key = "excluded", name = "excluded (disturbed, drifting, or the machine moved; not in the summary)" } }
  for _, g in ipairs(order) do groups[g.key] = { x = {}, y = {}, labels = {} } end
  for _, r in ipairs(recs) do
    if r.measured_s then
      local g = groups[r.excluded and "excluded" or r.held_out and "held" or "timed"]
      g.x[#g.x + 1], g.y[#g.y + 1], g.labels[#g.x + 1] = r.measured_s, r.predicted_s, r.config or false
      g.x[#g.x + 1], g.y[#g.y + 1], g.labels[#g.x + 1] = false, false, false  -- a gap: points, not a line
      lo = math.min(lo, r.measured_s, r.predicted_s)
      hi = math.max(hi, r.measured_s, r.predicted_s)
    end
  end
  local series = {}
  for _, g in ipairs(order) do
    local gr = groups[g.key]
    if #gr.x > 0 then series[#series + 1] = { name = g.name, x = gr.x, y = gr.y, points = true, labels = gr.labels } end
  end
  if #series == 0 then return end
  series[#series + 1] = { name = "y = x (a perfect prediction)", x = { lo / 1.2, hi * 1.2 }, y = { lo / 1.2, hi * 1.2 }, dashed = true }
  doc:chart {
    title = "Predicted against measured step time, this machine",
    x = { label = "measured step time, s (median over steps)", log = 10 },
    y = { label = "predicted step time, s", log = 10 },
    series = series,
    caption = "Each point is one training configuration (named as in the table): its step time as the model "
      .. "predicts it (projected) against the median of its training steps (measured). Points above the dashed "
      .. "line were predicted slow.",
  }
end

local REGIME = { cache = "caches", dram = "DRAM", between = "between" }

local function validation_table(doc, recs, info)
  local rows, notes = {}, {}
  for _, r in ipairs(recs) do
    local err = r.measured_s and r.predicted_s / r.measured_s - 1
    local cell = err and m(signed_pct(err)) or { text = "n/a", tone = "bad" }
    if r.excluded then
      notes[#notes + 1] = ("%s excluded: %s"):format(r.config, r.excluded)
      cell = { text = signed_pct(err) .. " (excl.)", tone = "bad" }
    elseif r.rerun then
      notes[#notes + 1] = ("%s measured twice, the first time %s"):format(r.config, (r.rerun:gsub("^its ", "its ")))
    end
    if r.held_out and not r.reference and not r.excluded then
      notes[#notes + 1] = ("%s: no op of its step was timed by a counted configuration before it: predicted from the "
        .. "curves alone, with no reference to tell whether the machine moved"):format(r.config)
    end
    if (r.rounds_dropped or 0) > 0 then
      notes[#notes + 1] = ("%s: %d disturbed rounds dropped (steps above %s)"):format(r.config, r.rounds_dropped,
        r.disturbed_above_s and fmt.seconds(r.disturbed_above_s) or "the noise")
    end
    rows[#rows + 1] = { r.config, config_text(r), r.precision .. (r.accum > 1 and (" acc " .. r.accum) or "")
                          .. (r.checkpoint and " ckpt" or ""),
                        r.regime and (REGIME[r.regime] or r.regime) or "n/a",
                        r.footprint_bytes and fmt.bytes(r.footprint_bytes) or "n/a",
                        r.held_out and "yes" or "no",
                        p(fmt.seconds(r.predicted_s)), r.measured_s and m(fmt.seconds(r.measured_s)) or "not measured", cell }
  end
  doc:table {
    columns = { { title = "Cfg", width = 0.06 }, { title = "Layers/hidden/\nheads/seq/\nbatch/vocab", width = 0.17 },
                { title = "Prec.", width = 0.11 }, { title = "Regime", width = 0.09 },
                { title = "Step\nholds", align = "right", width = 0.1 }, { title = "Held\nout", width = 0.07 },
                { title = "Predicted", align = "right", width = 0.12 },
                { title = "Measured\n(median)", align = "right", width = 0.12 }, { title = "Error", align = "right" } },
    rows = rows,
    caption = ("Error = predicted / measured - 1 (positive: predicted slow), the figure the summary below uses. Regime: "
      .. "what a step holds against all caches (%s): within them, DRAM (4x or more), or between. Held out: predicted "
      .. "without timing any op of its own, from the ops the other configurations timed and the curves. Ops timed on "
      .. "their own: %s. Steps: the median of %s rounds; a round whose step is slower than the fastest third by more "
      .. "than 25 %% and 4 of their standard deviations was disturbed (another process had the cores) and is dropped; "
      .. "more than a third disturbed, or the rounds drifting (a Mann-Kendall trend at 5 %% and a Theil-Sen drift of 5 %% "
      .. "or more across them: the machine's load changed while it ran), or, held out, the machine moved since the ops "
      .. "it is predicted from were timed (those ops, timed again in its rounds as its reference and never into its "
      .. "prediction, a quarter of its predicted step or more, cost a step more than 5 %% more or less than they did): "
      .. "measured again, and if again, excluded "
      .. "with the reason. acc: micro-batches "
      .. "per optimizer step; ckpt: activations recomputed.")
      :format(info.caches_total_bytes and fmt.bytes(info.caches_total_bytes) or "n/a",
              info.op_state_rule or "after a scrub of the caches", "11"),
  }
  if #notes > 0 then doc:paragraph(table.concat(notes, "; ") .. ".", "small") end
end

local function below(x, ref) return x <= ref and "below it" or "above it" end

local GROUPS = { { "cache", "steps within the caches" }, { "between", "between" }, { "dram", "DRAM-bound steps" },
                 { "held_out", "held out" }, { "timed", "with their ops timed" } }

local function validation_text(doc, v)
  local c = v.calculon or CALCULON
  doc:paragraph(("Over %d configurations%s: mean |error| %s, max |error| %s, signed bias %.3f "
    .. "(geometric mean of predicted/measured; above 1 the model predicts slow), spread %s (standard deviation of "
    .. "log(predicted/measured)), Kendall tau %s (rank agreement of predicted and measured times). The best published "
    .. "analytical model, Calculon (SC23), reports %s mean and %s max error against measured runs (published figures): "
    .. "this model's mean is %s, its max %s."):format(v.n,
    (v.excluded or 0) > 0 and (" (the table's others; %d excluded as disturbed, drifting, or the machine moved under them)"):format(v.excluded) or "", pct2(v.mean_abs_error),
    pct2(v.max_abs_error), v.bias, fmt.pct(v.spread), v.kendall_tau and ("%.2f"):format(v.kendall_tau) or "n/a",
    pct2(c.mean), pct2(c.max), below(v.mean_abs_error, c.mean), below(v.max_abs_error, c.max)))
  local parts = {}
  for _, g in ipairs(GROUPS) do
    local x = v.groups and v.groups[g[1]]
    if x then
      parts[#parts + 1] = ("%s (%d): mean %s, max %s, bias %.3f"):format(g[2], x.n, pct2(x.mean_abs_error),
        pct2(x.max_abs_error), x.bias)
    end
  end
  if #parts > 0 then doc:paragraph("By kind: " .. table.concat(parts, "; ") .. ".") end
end

-- "this machine's GPU (NVIDIA GB10)" for a GPU calibration, else nil.
local function gpu_name(cal)
  return cal and cal.device == "gpu" and ("this machine's GPU (%s)"):format(cal.device_name or "?") or nil
end

local function validation(doc, exp, cal, dev)
  local gpu = gpu_name(cal)
  doc:section(gpu and ("Validation on " .. gpu) or ("Validation on this machine" .. (dev and (", " .. dev) or "")), 2)
  local how = cal and cal.device == "gpu" and "kernel launch cost" or "OpenMP fork/join cost"
  doc:paragraph("Before projecting anything, the model predicts this machine's own training steps and they are "
    .. "measured: each configuration's ops are timed on their own (except held-out ones), in rounds that alternate with "
    .. "its training steps, some configurations within the caches and some streaming from DRAM. "
    .. "Its calibration came from microbenchmarks only (op kernels timed on their own, the GEMM surface, the "
    .. how .. ") and was never fitted on these runs.")
  local recs = R.records(exp, { series = "validation" })
  if #recs == 0 then
    doc:paragraph("No training configuration was validated in this run.", "note")
    return
  end
  validation_chart(doc, recs)
  validation_table(doc, recs, exp.info or {})
  local v = exp.info and exp.info.validation
  if v then validation_text(doc, v) end
  if v and v.covers then
    doc:paragraph(("What it covers: %s."):format(v.covers), "small")
  end
end

-- ---- calibration -----------------------------------------------------------------------

local function combine_text(c)
  if c.rule == "q-norm" and c.q then return ("t = (tc^q + tm^q)^(1/q) with q = %.2f"):format(c.q) end
  if c.rule == "max" then return "t = max(tc, tm)" end
  if c.rule == "sum" then return "t = tc + tm" end
  return c.rule .. (c.q and (" (q = %.2f)"):format(c.q) or "")
end

local function peaks_text(peaks)
  local names, out = {}, {}
  for k in pairs(peaks) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do out[#out + 1] = ("%s %s GFLOP/s"):format(k:upper(), fmt.rate(peaks[k] / 1e9)) end
  return table.concat(out, ", ")
end

-- A class's ceiling, in the unit its efficiencies were taken against, and the one the report
-- divides by (the one DRAM figure for memory-bound classes), both per second, and the unit.
local function class_ceiling(c, cal, d)
  if c.basis == "flops" then
    local prec = c.against and c.against:match("^peak_flops%.(.+)$") or c.dtype
    local peak = cal.peak_flops[prec] or cal.peak_flops.fp32 or 1e9
    return peak, peak, "GFLOP/s"
  end
  local native = cal.bandwidth_Bps or 1e9
  return native, d and d.gbps * 1e9 or native, "GB/s"
end

-- One cell per point: its efficiency of the ceiling, or the error naming both rates.
local function class_cells(mk, c, cal, d)
  local native, ceiling, unit = class_ceiling(c, cal, d)
  local cells = {}
  for _, pt in ipairs(c.points) do
    local text
    if c.basis == "flops" and c.against and not c.against:match("^peak_flops%.") then
      -- each point against its own op's dtype's peak (a GPU's): the efficiency, no single rate
      text = fmt.pct(pt.eta)
    elseif c.basis ~= "flops" and d and d.working_set_bytes and pt.x < d.working_set_bytes then
      -- below the DRAM-sized working set the op's bytes may sit in the caches: the DRAM figure is
      -- no ceiling there, so its rate is shown as a multiple of it, never as an efficiency
      text = ("%sx DRAM, in cache"):format(fmt.rate(cal.bandwidth_mix and pt.eta or pt.eta * native / ceiling))
    elseif c.basis ~= "flops" and cal.bandwidth_mix then
      -- each op against the DRAM ceiling of its own mix of reads and writes: eta is that fraction
      text = mk:fraction(100 * pt.eta, 100, "%", ("%s %s at %.0e B"):format(c.class, c.dtype, pt.x))
    else
      text = mk:fraction(pt.eta * native / 1e9, ceiling / 1e9, unit,
                         ("%s %s at %.0e %s"):format(c.class, c.dtype, pt.x, c.basis == "flops" and "FLOP" or "B"))
    end
    cells[#cells + 1] = m(("%s at %.0e %s"):format(text, pt.x, c.basis == "flops" and "FLOP" or "B"))
  end
  return cells
end

local function class_table(doc, cal, d)
  local rows, mk = {}, marks.new()
  local function row(c, name)
    local cells = class_cells(mk, c, cal, d)
    local dtype = c.dtype_out and c.dtype_out ~= c.dtype and ("%s to %s"):format(c.dtype, c.dtype_out) or c.dtype
    rows[#rows + 1] = { name, dtype, c.basis == "flops" and "FLOP/s" or "bandwidth", ("%d"):format(#c.points),
                        cells[1] or "none", cells[#cells] or "none" }
  end
  -- a memory-bound class's ops follow their own kind's curve (cal.kinds, newer files): those are
  -- the rows; a class whose kinds were not timed keeps its one curve
  for _, c in ipairs(cal.classes) do
    local own = {}
    for _, k in ipairs(cal.kinds or {}) do
      if k.class == c.class then own[#own + 1] = k end
    end
    if #own == 0 then row(c, c.class) end
    for _, k in ipairs(own) do row(k, ("%s: %s"):format(c.class, k.kind)) end
  end
  doc:table {
    columns = { { title = "Op class or kind", width = 0.23 }, { title = "Dtype", width = 0.12 }, { title = "Against", width = 0.1 },
                { title = "Points", align = "right", width = 0.07 }, { title = "Efficiency, smallest", align = "right", width = 0.24 },
                { title = "Efficiency, largest", align = "right" } },
    rows = rows,
    caption = "Efficiency: achieved rate over its ceiling (matmuls: the run's sustained GEMM rate of their dtype; "
      .. "attention: the FP32 one; memory-bound classes: the DRAM ceiling of each op's own mix of reads and writes), as a "
      .. "function of the op's FLOPs or bytes; "
      .. (cal.kinds and "a memory-bound op follows the curve of its own kind and dtypes (the kinds of one class run at "
          .. "different rates: an add against a GELU, AdamW against setting gradients to zero; a GELU rounding to BF16 "
          .. "against one in FP32), its class's only where no configuration timed that kind; "
          or "")
      .. "between points the model interpolates in log size. A memory-bound op smaller than the DRAM-sized working set "
      .. "may run from the caches: its rate is shown as a multiple of the DRAM figure (\"in cache\"), not as an "
      .. "efficiency.",
  }
  mk:defects(doc)
end

-- A GPU's calibration: its own ceilings (cal.*_what say how each was measured), never the CPU's.
local function gpu_calibration(doc, cal, n)
  local cb = cal.combine
  doc:paragraph(("Measured on this run on %s: sustained matmul peaks %s (%s); device-memory bandwidth %s GB/s "
    .. "(%s); fixed cost per op %s (%s); vector %s GFLOP/s. Compute and memory time combine as %s, chosen on %d "
    .. "intensity microbenchmarks (mean error %s there). %d ops were timed on their own through the GPU trainer (%d "
    .. "records with their samples in results.json); measured times spread %s around the efficiency curves, each "
    .. "point against the peak of its op's dtype.")
    :format(gpu_name(cal), peaks_text(cal.peak_flops), cal.peak_what or "cuBLASLt", fmt.rate(cal.bandwidth_Bps / 1e9),
            cal.bandwidth_what or "device memory", fmt.seconds(cal.op_overhead_s), cal.op_overhead_what or "kernel launch",
            fmt.rate(cal.vector_flops / 1e9), combine_text(cb), cb.points, fmt.pct(cb.mean_abs_error), cal.ops_measured,
            n, fmt.pct(cal.spread)))
  class_table(doc, cal, nil)
end

-- The matmul ceiling measured again (an op beat it), and a GEMM of the run faster than it (the
-- precision experiment ran after the calibration): said as what happened, never as a defect.
local function gemm_note(doc, results, cal)
  local re = cal.remeasured
  if re then
    doc:paragraph(("Re-measured: the %s op of configuration %s (%d x %d x %d) ran at %s GFLOP/s, above the first matmul "
      .. "ceiling of %s GFLOP/s; measured again%s, the ceiling is %s GFLOP/s and the curves were rebuilt against it.")
      :format(re.op or "?", re.config or "?", re.m, re.n, re.k, fmt.rate(re.op_flops / 1e9), fmt.rate(re.before_flops / 1e9),
              re.again_flops and (" at that shape " .. fmt.rate(re.again_flops / 1e9) .. " GFLOP/s") or "",
              fmt.rate((cal.peak_flops[re.dtype] or re.op_flops) / 1e9)), "small")
  end
  local rate = ceilings.gemm_rate(results, cal.device or "cpu", "fp32")
  local own = cal.peak_flops and cal.peak_flops.fp32
  if rate and own and rate.gflops > own / 1e9 * (1 + 1e-9) then
    doc:paragraph(("Re-measured after the calibration: %s reached %s GFLOP/s (%d x %d x %d), above the %s GFLOP/s the "
      .. "calibration divided by; its efficiencies are of the lower figure.")
      :format(rate.source, fmt.rate(rate.gflops), rate.m or 0, rate.n or 0, rate.k or 0, fmt.rate(own / 1e9)), "small")
  end
end

local function calibration(doc, results, exp, cal)
  doc:section("Calibration", 2)
  local n = #R.records(exp, { series = "calibration" })
  local cb = cal.combine
  if cal.device == "gpu" then return gpu_calibration(doc, cal, n) end
  local d = dram_of(results, cal.device)
  doc:paragraph(("Measured on this run (%s, %d threads): matmul ceiling %s, %s; vector %s GFLOP/s; %s; fixed cost "
    .. "per op %s. Compute and memory time combine as %s, chosen on %d intensity microbenchmarks "
    .. "(mean error %s there). %d ops were timed on their own (%d records with their samples in results.json); "
    .. "measured times spread %s around the efficiency curves.")
    :format(DEVICE[cal.device] or cal.device, cal.threads, peaks_text(cal.peak_flops),
            cal.peak_gemm and "the run's sustained GEMM rate, the fastest GEMM of the run up to the calibration" or
              (cal.peak_what or "a large GEMM"), fmt.rate(cal.vector_flops / 1e9),
            d and ("DRAM bandwidth %s GB/s, this machine's one figure: the %s"):format(fmt.rate(d.gbps), dram_text(d))
              or ("read bandwidth " .. fmt.rate(cal.bandwidth_Bps / 1e9) .. " GB/s"),
            fmt.seconds(cal.op_overhead_s), combine_text(cb), cb.points,
            fmt.pct(cb.mean_abs_error), cal.ops_measured, n, fmt.pct(cal.spread)))
  gemm_note(doc, results, cal)
  local title = cal.kinds and "Calibration: efficiency per op class and kind" or "Calibration: efficiency per op class"
  local label = appendix.defer(doc, title, function(d2) class_table(d2, cal, d) end)
  doc:paragraph(("The efficiency of every op class%s at its smallest and largest size: %s.")
    :format(cal.kinds and " (memory-bound ops: every kind and dtypes timed)" or "", label), "small")
end

-- ---- projection ------------------------------------------------------------------------

-- Projection records of one workload, by system id.
local function projections(exp, wid)
  local out = {}
  for _, r in ipairs(R.records(exp, { series = "projection", workload = wid })) do out[r.system] = r end
  return out
end

-- "9.89 B tokens", "100 M tokens (assumed)": what a workload trains, and whether it is a figure
-- this report chooses (the round figure of every fine-tune; a scenario's own) or a published run's.
local function tokens_text(w)
  local assumed = R.tokens_assumed(w)
  return ("%s tokens%s"):format(fmt.count(w.tokens), assumed and " (assumed)" or "")
end

local function workload_text(w)
  return ("%s parameters, %s, sequence %s, global batch %d, %s%s (source: %s).%s")
    :format(fmt.count(w.params), tokens_text(w), fmt.whole(w.seq), w.global_batch, w.precision:upper(),
            w.note and ("; " .. w.note) or "", w.source or "none given", w.how and (" Run with " .. w.how .. ".") or "")
end

-- The configuration a projection ran: "8 x NVIDIA H100 SXM5" when it used more than one GPU.
local function config_name(ctx, r)
  local name = system_name(ctx, r.system)
  return (r.gpus or 1) > 1 and ("%d x %s"):format(r.gpus, name) or name
end

-- "38 / 128" when it fits, "48 > 25" when not: GB the job needs, GB the system has.
local function memory_text(r)
  local need, have = tonumber(r.memory_bytes), tonumber(r.capacity_bytes)
  if not (need and have) then return "" end
  local function gb(x) return x >= 10e9 and ("%.0f"):format(x / 1e9) or fmt.rate(x / 1e9) end
  return p(("%s %s %s"):format(gb(need), r.fits and "/" or ">", gb(have)))
end

-- kWh and price as the decision stage used them (its job rows: the whole system per device, the cost
-- file's price); a system it did not compare: the projection's kWh ("(chip)" where it is the GPU's or
-- SoC's alone) and the cost file's price.
local function projection_row(ctx, sys, r)
  local id = r.system == "this" and ctx.match or r.system
  local row = ctx.kwh[("%s|%s|%d"):format(r.workload, id or "?", r.gpus or 1)]
  local stage = row and r.hours and row.hours == r.hours and row.kwh      -- the same job: the workload's own tokens
  local price = ctx.prices[sys.id] or ctx.prices[id]
  local chip = not stage and r.energy_basis ~= "system"
  local kwh = r.hours and (stage or r.energy_kwh)
  local hrs = r.hours and p(hours(r.hours))
    or r.fits and { text = "not projected" } or { text = "does not fit", tone = "bad" }
  local fit = R.fit_short(r) .. (r.fits and r.marginal and ", marginal" or "")
  return { config_name(ctx, r) .. (r.extrapolated and " (extrapolated)" or ""), BASIS[r.system_kind] or r.system_kind,
           hrs, r.hours and p(band(r)) or "", { text = fit, tone = r.fits and "good" or "bad" }, memory_text(r),
           kwh and p(fmt.rate(kwh) .. (chip and " (chip)" or "")) or "n/a", price and s(fmt.usd(price)) or "n/a" }
end

local function workload_table(doc, ctx, exp, w)
  local recs, rows, more = projections(exp, w.id), {}, {}
  for _, r in ipairs(R.records(exp, { series = "projection_devices", workload = w.id })) do more[r.system] = r end
  for _, sys in ipairs(ctx.system_list) do
    local r = recs[sys.id]
    if r then rows[#rows + 1] = projection_row(ctx, sys, r) end
    if more[sys.id] and more[sys.id].hours then rows[#rows + 1] = projection_row(ctx, sys, more[sys.id]) end
  end
  doc:paragraph(w.name, "bold")
  local st
  for _, r in pairs(recs) do st = st or (r.stack_name and r) end
  doc:paragraph(workload_text(w) .. (st and (" Timed with the %s profile (%s), fitted on %d published runs."):format(
    st.stack_name, st.stack_era or "", st.stack_runs or 0) or ""), "small")
  doc:table {
    columns = { { title = "System", width = 0.16 }, { title = "Basis", width = 0.12 },
                { title = "Time", align = "right", width = 0.12 }, { title = "Band", align = "right", width = 0.14 },
                { title = "Fit", width = 0.14 }, { title = "Memory,\nGB", align = "right", width = 0.12 },
                { title = "kWh", align = "right", width = 0.09 }, { title = "Price", align = "right" } },
    rows = rows,
    caption = "Extrapolated: the profile has no runs of that GPU generation (its efficiencies borrowed by the rule in "
      .. "the profiles' table, the band widened). Marginal: less than a tenth of the usable memory left. "
      .. "Fit: what fitting takes (ckpt: activation checkpointing; accum N: gradient accumulation; offload: "
      .. "optimizer state in host memory; ZeRO-N over K GPUs: sharded, a row of its own where one device cannot hold "
      .. "the job: the smallest of 2, 4, 8 that can, with its traffic over the node's link). Memory: GB the job needs / "
      .. "GB the system has (a > b: it does not fit). kWh: the job's hours x GPUs x the whole system's power per GPU (the "
      .. "cost file's, as on the decision pages); (chip): the cost file has no system figure, the catalog's chip power "
      .. "instead; n/a: neither. Price: a whole system's price per GPU, host included (the cost file's); n/a: none "
      .. "published on that basis.",
  }
end

-- How the projections were made: the rules the projection wrote (info.projection_rules), so
-- that the text is this run's.
local RULES = { "catalog", "measured", "memory", "fit", "traffic", "offload", "mfu", "energy" }
local function projection_method(doc, exp)
  doc:paragraph("Every time below is projected: the op list of the workload, each op's time summed over the steps "
    .. "its tokens need. A system's hours are for the whole configuration it runs (GPUs column: llm.c's GPT-2 runs "
    .. "on up to one node (8 GPUs) of a catalog part, the scenario's own job on its GPUs x nodes, everything else on one "
    .. "device, and a job one device cannot hold also on the smallest of 2, 4, 8 that can); tokens/s per GPU compares "
    .. "devices.", "small")
  local rules = exp.info and exp.info.projection_rules or {}
  for _, k in ipairs(RULES) do
    if rules[k] then doc:paragraph(("%s%s."):format(rules[k]:sub(1, 1):upper(), rules[k]:sub(2)), "small") end
  end
end

-- The systems the memory-bound comparison shows: the Spark and the HBM parts it is compared with
-- (data/systems.csv's roles), those projected.
local function focus(ctx)
  local out = { ctx.roles.subject }
  for _, id in ipairs(ctx.roles.compared) do out[#out + 1] = id end
  if #out == 0 then for i = 1, math.min(4, #ctx.system_list) do out[i] = ctx.system_list[i].id end end
  return out
end

local function memory_table(doc, ctx, exp)
  local ids, rows = focus(ctx), {}
  local cols = { { title = "Workload", width = 0.28 } }
  for _, id in ipairs(ids) do cols[#cols + 1] = { title = system_name(ctx, id), align = "right", width = 0.72 / #ids } end
  for _, w in ipairs(ctx.workloads) do
    local recs, row = projections(exp, w.id), { w.name }
    for _, id in ipairs(ids) do
      local r = recs[id]
      row[#row + 1] = r and r.memory_bound_share and p(fmt.pct(r.memory_bound_share)) or (r and "does not fit" or "")
    end
    rows[#rows + 1] = row
  end
  doc:section("Memory-bound share of step time", 2)
  doc:table { columns = cols, rows = rows,
    caption = "Share of the projected step time spent in ops whose memory time exceeds their compute time." }
end

-- ---- verdict ---------------------------------------------------------------------------

local function memory_classes(r)
  local cls = {}
  for _, c in ipairs(r.by_class or {}) do
    if c.bound == "memory" then cls[#cls + 1] = c end
  end
  table.sort(cls, function(a, b) return a.share > b.share end)
  local out, sum = {}, 0
  for _, c in ipairs(cls) do out[#out + 1], sum = ("%s %s"):format(c.class, fmt.pct(c.share)), sum + c.share end
  -- the parts add up to the total: memory-bound ops of classes mostly compute-bound are a part too
  local rest = (tonumber(r.memory_bound_share) or sum) - sum
  if rest >= 0.0005 then out[#out + 1] = ("memory-bound ops of compute-bound classes %s"):format(fmt.pct(rest)) end
  return table.concat(out, ", ")
end

-- Why the subject is slower than the reference: bandwidth where ops are memory-bound, compute elsewhere.
local function gap_text(ctx, w, a, b)
  local bn = system_name(ctx, b.system)
  local out = ("There %s of the step is in memory-bound ops (%s), against %s on the %s."):format(
    fmt.pct(a.memory_bound_share), memory_classes(a), fmt.pct(b.memory_bound_share), bn)
  -- the spec gap between two systems is said once, at the first verdict that sets them side by side
  local key = ("%s|%s|%s"):format(a.system, b.system, w.precision)
  ctx.gap_said = ctx.gap_said or {}
  if ctx.gap_said[key] then return out .. " The spec gap between them is as above." end
  ctx.gap_said[key] = true
  local abw, bbw = figure(ctx, a.system, "mem_bw_gbs"), figure(ctx, b.system, "mem_bw_gbs")
  if abw and bbw then
    out = out .. (" In those ops the gap is memory bandwidth: %s against %s GB/s (spec, %s)."):format(fmt.rate(abw),
      fmt.rate(bbw), ratio(bbw / abw))
  end
  local col = TFLOPS[w.precision]
  local ac, bc = col and figure(ctx, a.system, col), col and figure(ctx, b.system, col)
  if ac and bc then
    out = out .. (" In the rest it is compute: %s against %s dense %s TFLOPS (spec, %s)."):format(fmt.rate(ac),
      fmt.rate(bc), w.precision:upper(), ratio(bc / ac))
  end
  return out
end

-- Workloads that differ from w in precision only: the precision alternatives the results carry.
local function alternatives(ctx, w)
  local out = {}
  for _, o in ipairs(ctx.workloads) do
    if o ~= w and o.precision ~= w.precision and o.kind == w.kind and o.params == w.params and o.tokens == w.tokens
       and o.seq == w.seq then out[#out + 1] = o end
  end
  return out
end

local function alternative_text(ctx, exp, w, a, b)
  local out = {}
  for _, o in ipairs(alternatives(ctx, w)) do
    local recs = projections(exp, o.id)
    local oa, ob = recs[a.system], b and recs[b.system]
    if oa and oa.hours then
      out[#out + 1] = ("In %s (workload %s) it would take %s on the %s (%s)%s."):format(o.precision:upper(),
        o.id, hours(oa.hours), system_name(ctx, a.system), factor(oa.hours / a.hours),
        ob and ob.hours and b.hours and (" and %s on the %s (%s)"):format(hours(ob.hours), system_name(ctx, b.system),
          factor(ob.hours / b.hours)) or "")
    end
  end
  return table.concat(out, " ")
end

local function verdict(doc, ctx, exp, w)
  local recs = projections(exp, w.id)
  local a = ctx.roles.subject and recs[ctx.roles.subject] or recs.this
  if not a then return end
  local b
  for _, id in ipairs(ctx.roles.compared) do b = b or (recs[id] and recs[id].hours and recs[id]) end
  local where = a.system == "this" and "On this machine" or ("On the " .. system_name(ctx, a.system))
  if not a.hours then
    doc:paragraph(("%s, %s does not fit: %s."):format(where, w.name, (a.fit:gsub("^does not fit:%s*", ""))))
    return
  end
  local text = ("%s, %s takes about %s (%s, projected)"):format(where, w.name, hours(a.hours), band(a))
  if b then
    local slower = a.hours >= b.hours
    -- per job (the configurations as they run) and per device, never one ratio mixing them: the
    -- other system against this one, "126x faster" or "2.10x slower"
    local function faster(x, y) return x >= y and ratio(x / y) .. " faster" or ratio(y / x) .. " slower" end
    local ga, gb = a.gpus or 1, b.gpus or 1
    local dev = ga ~= gb and ("; per device %s"):format(faster(a.hours * ga, b.hours * gb)) or ""
    text = text .. ("; the %s would take %s (%s), %s per job%s."):format(config_name(ctx, b), hours(b.hours), band(b),
      faster(a.hours, b.hours), dev)
    if slower and a.memory_bound_share and b.memory_bound_share then text = text .. " " .. gap_text(ctx, w, a, b) end
  else
    text = text .. "."
  end
  local alt = alternative_text(ctx, exp, w, a, b)
  doc:paragraph(text .. (alt ~= "" and (" " .. alt) or ""))
end

-- ---- the section -----------------------------------------------------------------------

-- The price per device of each system, as the decision stage used it (the cost file's); a file
-- without a decision: its cost rows.
local function prices(results)
  local out, td = {}, results.team_decision
  local info = type(td) == "table" and td.info
  if info and info.prices then
    for _, pr in ipairs(info.prices) do out[pr.system] = pr.purchase_usd end
    return out
  end
  local rows = results.catalog and results.catalog.costs and results.catalog.costs.rows
  for _, r in ipairs(rows or catalog.costs().rows) do out[r.id] = r.purchase_usd end
  return out
end

-- The decision stage's kWh of each job row it wrote, by workload, system and devices.
local function stage_kwh(results)
  local out, td = {}, results.team_decision
  for _, r in ipairs(type(td) == "table" and type(td.results) == "table" and td.results or {}) do
    if r.series == "job_row" and r.kwh and r.hours then out[("%s|%s|%d"):format(r.workload, r.system, r.gpus)] = r end
  end
  return out
end

local function context(results, exp)
  local info = exp.info or {}
  return { systems = by_id(info.systems), system_list = info.systems or {}, workloads = info.workloads or {},
           roles = R.roles(exp),
           catalog = by_id(results.catalog and results.catalog.rows), prices = prices(results),
           kwh = stage_kwh(results), match = results.catalog and results.catalog.match }
end

-- ---- the GPU stack profiles and their leave-one-out check ----------------------------------

local function profile_summary(doc, exp)
  local rows = {}
  for _, pr in ipairs(exp.info.stack_profiles) do
    local l = pr.leave_one_out or pr.check
    rows[#rows + 1] = { pr.name, pr.fitted_runs > 0 and ("fitted on %d runs, each left out in turn"):format(pr.fitted_runs)
                          or ("%s's efficiencies; checked on %d runs never fitted on"):format(pr.fitted_on, pr.runs),
                        l and pct(l.mean_abs_error) or "–", l and pct(l.max_abs_error) or "–",
                        l and ("%.3f"):format(l.bias) or "–",
                        ("%s to %s"):format(factor(pr.band_low), factor(pr.band_high)) }
  end
  doc:table { caption = "GPU software-stack profiles: error of the predicted tokens/s per GPU against published "
                .. "runs. Fitted rows: predicted by the fit without that run (leave-one-out). Band: the 10th to 90th "
                .. "percentile of those errors (a derived stack's also reaches its own check runs' errors), as a "
                .. "factor on every projected hour below.",
              columns = { { title = "Stack", width = 0.30 }, { title = "Basis", width = 0.27 },
                          { title = "Mean |error|", align = "right" }, { title = "Max |error|", align = "right" },
                          { title = "Bias", align = "right" }, { title = "Band", align = "right" } },
              rows = rows }
  for _, pr in ipairs(exp.info.stack_profiles) do
    doc:paragraph(("%s%s: %s.%s"):format(pr.name, pr.era and (" (era: %s)"):format(pr.era) or "", pr.basis,
      pr.defaults and (" A job's automatic settings on it: %s."):format(pr.defaults) or ""), "note")
  end
end

-- Every published run against its prediction: the leave-one-out table (an appendix).
local function runs_table(doc, exp)
  local rows = {}
  for _, r in ipairs(R.records(exp, { series = "stack_fit" })) do
    rows[#rows + 1] = { r.model, r.system, fmt.whole(r.seq), fmt.whole(r.gpus), ("%d x %d"):format(r.micro_batch, r.accum),
                        r.checkpoint and "yes" or "no", s(fmt.whole(r.published_tokens_per_s_per_gpu)),
                        p(fmt.whole(r.predicted_tokens_per_s_per_gpu)), signed_pct(r.error),
                        r.left_out and "left out" or "check" }
  end
  doc:table { caption = "Each published run (tokens/s per GPU) against its prediction; Error = Predicted / "
                .. "Published - 1. Left out: predicted by the profile fitted without that run; check: a run of a "
                .. "derived stack, never fitted on. Sources: data/gpu-runs.csv (MosaicML llm-foundry benchmark "
                .. "tables; llm.c's GPT-2 runs, discussions #481 and #677; NVIDIA NeMo 24.07 and Megatron-Bridge 25.11 "
                .. "performance summaries; the Qwen team's single-GPU LoRA profile; torchtitan's H100 tables; "
                .. "N8python/spark-gpt's DGX Spark runs; NVIDIA's LLaMA-Factory playbook on a DGX Spark; a TRL run "
                .. "on an H100, MakazhanAlpamys/Soup). Seq: the positions a sample takes; samples one by one count "
                .. "their tokens.",
              columns = { { title = "Model", width = 0.11 }, { title = "System", width = 0.14 },
                          { title = "Seq", align = "right" }, { title = "GPUs", align = "right" },
                          { title = "Micro x acc", align = "right" }, { title = "Ckpt" },
                          { title = "Published", align = "right" }, { title = "Predicted", align = "right" },
                          { title = "Error", align = "right" }, { title = "Role" } },
              rows = rows }
end

local function stack_fit(doc, exp)
  local info = exp.info or {}
  if info.stack_error then doc:paragraph("GPU projections not made: " .. info.stack_error .. "."); return end
  if not info.stack_profiles then return end
  doc:section("GPU projections: software-stack profiles fitted on published training runs", 2)
  local label = appendix.defer(doc, "Published GPU training runs against the stack profiles", function(d)
    runs_table(d, exp)
  end)
  doc:paragraph(("Hours on the catalog's GPUs come from each op of the workload's plan, timed with the efficiency "
    .. "its software stack reaches on that op class at that size (matmuls against the dense peak, attention against "
    .. "the peak with the causal half counted, every other op against the memory bandwidth; each op the longest of "
    .. "those and the stack's per-op launch cost, which overlaps with queued kernels and binds only short ops; on "
    .. "several GPUs the data-parallel traffic over the node's link). Those efficiencies are fitted on published training throughput (data/gpu-runs.csv, one cited row per "
    .. "run), never on this machine: the CPU validation above checks the method here only and does not bound the "
    .. "GPU projections. Every run, predicted with the fit that left it out: %s."):format(label))
  profile_summary(doc, exp)
end

-- The claim as published (its figure first in its cell, then precision, sequence, batch and
-- source) and the arithmetic beside it.
local function vendor_claims(doc, exp, ctx)
  local function name_of_system(id) return ctx and system_name(ctx, id) or id end
  local rows = {}
  for _, r in ipairs(R.records(exp, { series = "vendor_claim" })) do
    local run = (r.seq and r.batch) and (", sequence %s, batch %d"):format(fmt.whole(r.seq), r.batch)
      or ", sequence and batch not stated (projected at the workload's)"
    local proj = r.projected_tokens_per_s
    -- the peak of the precision the arithmetic runs in (compute_precision: NF4 QLoRA, which the
    -- source may call FP4, computes in BF16); older files name only the precision as published
    local compute = (r.compute_precision or r.precision or "?"):upper()
    local as_named = compute ~= (r.precision or "?"):upper()
      and ("; named %s by the source, computed in %s"):format((r.precision or "?"):upper(), compute) or ""
    rows[#rows + 1] = { ("%s: %s tokens/s, %s%s (%s%s)"):format(name_of_system(r.system), fmt.whole(r.claimed_tokens_per_s),
                          (r.precision or "?"):upper(), run, r.source, as_named),
                        ("%.1f GFLOP"):format(r.flops_per_token / 1e9),
                        ("%.2f PFLOP/s"):format(r.needed_flops / 1e15),
                        r.peak_flops and s(("%s TFLOP/s (%s)"):format(fmt.rate(r.peak_flops / 1e12), compute))
                          or "not in the catalog",
                        r.share_of_peak and (r.share_of_peak > 1 and { text = ratio(r.share_of_peak), tone = "bad" }
                          or pct(r.share_of_peak)) or "–",
                        proj and p(("%s (%s–%s)"):format(fmt.whole(proj), fmt.whole(r.projected_tokens_per_s_low or proj),
                          fmt.whole(r.projected_tokens_per_s_high or proj))) or "–" }
  end
  if #rows == 0 then return end
  doc:section("Vendor claims beside the arithmetic", 2)
  doc:table { caption = "A published training rate as published (precision, sequence length, batch) times the FLOPs "
                .. "one token of that workload needs at that sequence length (our op plan: forward and backward "
                .. "matmuls and attention) is the compute rate the claim implies, set beside the dense peak of the "
                .. "precision its arithmetic runs in (catalog; a QLoRA run keeps its base weights in 4-bit NF4 and "
                .. "computes in BF16, whatever the source calls it) and our projection of the same workload at the "
                .. "same sequence length and batch (BF16 compute, band). Above 1x the peak: the claim counts something "
                .. "other than what a training step computes; we do not guess what.",
              columns = { { title = "Claim", width = 0.34 }, { title = "Per token", align = "right" },
                          { title = "Needs", align = "right" }, { title = "Dense peak (spec)", width = 0.14 },
                          { title = "Of the peak", align = "right" }, { title = "Projected tokens/s", align = "right" } },
              rows = rows }
end

-- Implied MFU: what each projection asks of the system, model FLOPs per token (the plan's matmuls
-- and attention, no recomputation) x projected tokens/s per GPU over the dense peak of the
-- workload's recipe; the same figure published runs report, so that a projection can be held
-- against them. Every system, the decision page's workloads (the scenario's decide list).
local DEFAULT_DECIDE = { "gpt2-124m", "llama-3.1-8b-lora", "llama-3.1-8b", "llama-3.1-8b-adam8", "llama-3.3-70b-qlora" }
local function mfu_table(doc, results, ctx, exp)
  local scn, wl, cols, rows = results.scenario or {}, by_id(ctx.workloads), {}, {}
  for _, id in ipairs(type(scn.decide) == "table" and scn.decide or DEFAULT_DECIDE) do
    if wl[id] then cols[#cols + 1] = wl[id] end
  end
  if #cols == 0 then return end
  for _, sys in ipairs(ctx.system_list) do
    local row, any = { system_name(ctx, sys.id) }, false
    for _, w in ipairs(cols) do
      local r = projections(exp, w.id)[sys.id]
      any = any or (r and r.mfu) ~= nil
      row[#row + 1] = r and r.mfu and p(pct(r.mfu)) or (r and not r.fits and "no fit" or "–")
    end
    if any then rows[#rows + 1] = row end
  end
  if #rows == 0 then return end
  local columns, names = { { title = "System", width = 0.24 } }, {}
  for i, w in ipairs(cols) do
    columns[#columns + 1] = { title = ("(%d)"):format(i), align = "right" }
    names[i] = ("(%d) %s"):format(i, w.name)
  end
  doc:section("Implied MFU of every projection", 2)
  doc:paragraph("Implied MFU: the model FLOPs one token needs (the plan's matmuls and attention, causal half, no "
    .. "recomputation; LoRA: no weight gradients of the frozen base) times the projected tokens/s per GPU, over the "
    .. "dense peak of the workload's recipe on that system (BF16; FP8 for an FP8 recipe; this machine: its measured "
    .. "peak). MosaicML's published runs report theirs (the published-runs table of the technical annex): a "
    .. "projection far from what published runs of its stack reach deserves a second look.", "small")
  doc:table { columns = columns, rows = rows,
              caption = "Implied MFU per system (rows) and decision-table workload (columns: " .. table.concat(names, "; ")
                .. "), projected; no fit: the workload does not fit one device of that system; –: not projected." }
end

-- The context narrowed to the scenario's compared systems (and this machine): what a body chart plots.
local function compared(results, ctx)
  local want, list = {}, {}
  local scn = results.scenario or {}
  for _, id in ipairs(scn.systems or scn.compare or results.catalog.systems or results.catalog.compare or {}) do want[id] = true end
  for _, sys in ipairs(ctx.system_list) do
    if want[sys.id] then list[#list + 1] = sys end
  end
  if #list == 0 then return ctx end
  local out = {}
  for k, v in pairs(ctx) do out[k] = v end
  out.system_list = list
  return out
end

-- The decision table's workloads (the scenario's decide list, in its order: (1), (2), ...).
local function decided(results, ctx)
  local scn, wl, out = results.scenario or {}, by_id(ctx.workloads), {}
  for _, id in ipairs(type(scn.decide) == "table" and scn.decide or DEFAULT_DECIDE) do
    if wl[id] then out[#out + 1] = wl[id] end
  end
  return out
end

-- Projected hours per job of the decision table's workloads, named and numbered as there, each with
-- the tokens it trains, on the scenario's compared systems.
local function decision_chart(doc, results, ctx, exp)
  local ws, cats, series = decided(results, ctx), {}, {}
  if #ws == 0 then return end
  for i, w in ipairs(ws) do cats[i] = ("(%d) %s\n%s"):format(i, w.name, tokens_text(w)) end
  for _, sys in ipairs(ctx.system_list) do
    local ys, lo, hi, any = {}, {}, {}, false
    for i, w in ipairs(ws) do
      local r = projections(exp, w.id)[sys.id]
      ys[i] = r and r.hours or false
      lo[i], hi[i] = r and r.hours and r.hours_low or false, r and r.hours and r.hours_high or false   -- error bars
      any = any or ys[i] ~= false
    end
    if any and #series < 32 then series[#series + 1] = { name = system_name(ctx, sys.id), y = ys, lo = lo, hi = hi } end
  end
  doc:chart {
    kind = "bar", title = "Projected hours per job, the decision table's workloads (log scale)",
    categories = cats, y = { label = "hours per job (projected)", log = 10 }, series = series,
    caption = "(1)-(" .. #ws .. "): the workloads of the decision table, each with the tokens it trains (a published "
      .. "run's; assumed: the round figure every fine-tune is given, so that rows compare). One device of each "
      .. "system (llm.c's GPT-2 runs: one 8-GPU node of an HBM part), central projections, their bands as error "
      .. "bars. A missing bar: the workload does not fit that configuration (the decision table gives the "
      .. "smallest count of devices that holds it).",
  }
end

-- The decision report's appendix on the method: the projection's rules as this run wrote them and
-- the GPU stack profiles' check against published runs (every run: the annex).
local function method_appendix(doc, exp)
  projection_method(doc, exp)
  local rules = exp.info and exp.info.projection_rules or {}
  if rules.measured_gpu then doc:paragraph("Measured GPU: " .. rules.measured_gpu .. ".", "small") end
  if rules.measured_catalog_row then doc:paragraph("Catalog row replaced: " .. rules.measured_catalog_row .. ".", "small") end
  local info = exp.info or {}
  if info.stack_error then doc:paragraph("GPU projections not made: " .. info.stack_error .. "."); return end
  if not info.stack_profiles then return end
  doc:paragraph(("GPU stack profiles. Hours on the catalog's GPUs come from each op of the workload's plan, timed "
    .. "with the efficiency its software stack reaches on that op class at that size, fitted on published training "
    .. "throughput (one cited run per row), never on the machine that ran this report. Each profile's error below is "
    .. "that of predicting every published run with the profile fitted without it; every run, predicted, is in %s.")
    :format(annex.cite("Published GPU training runs against the stack profiles")), "small")
  profile_summary(doc, exp)
end

-- The decision report's section: the projected hours of the decision table's workloads on the
-- compared systems and the vendor claims, the method and every workload as appendices.
local function projection(doc, results, exp)
  local all = context(results, exp)
  local ctx = compared(results, all)
  if #ctx.workloads == 0 or #R.records(exp, { series = "projection" }) == 0 then return end
  doc:section("Projected training time")
  local method = appendix.defer(doc, "Projection method: how every hour is projected", function(d)
    method_appendix(d, exp)
  end)
  local rows = appendix.defer(doc, "Projected training time per workload, on the compared systems", function(d)
    d:paragraph(("Every workload (%d) on the compared systems, with fit, energy and price; on every catalog system "
      .. "(%d) and on the machine that ran this report: %s."):format(#ctx.workloads, #all.system_list,
      annex.cite("Projected training time on every catalog system")), "small")
    for _, w in ipairs(ctx.workloads) do workload_table(d, ctx, exp, w) end
  end)
  local verdicts = appendix.defer(doc, "Memory-bound share and verdicts, every workload", function(d)
    memory_table(d, ctx, exp)
    for _, w in ipairs(ctx.workloads) do verdict(d, ctx, exp, w) end
    mfu_table(d, results, ctx, exp)
  end)
  doc:paragraph(("Every hour in this report is projected: on the catalog's GPUs each op of the workload's plan is "
    .. "timed with its software stack's profile, fitted on published GPU training runs, and summed over the steps "
    .. "the workload's tokens need, with a band from that fit's errors (method: %s). Every workload on the compared "
    .. "systems with fit, energy and price: %s; the memory-bound share of each step and a verdict per workload: %s. "
    .. "How the model was calibrated and checked on the machine that ran this report: %s.")
    :format(method, rows, verdicts, annex.cite("The training-time model: calibration and validation")))
  decision_chart(doc, results, ctx, exp)
  vendor_claims(doc, exp, ctx)
end

-- The annex's part of the projection: every workload on every catalog system, an appendix.
local function every_system(doc, results, exp)
  local ctx = context(results, exp)
  if #ctx.workloads == 0 or #R.records(exp, { series = "projection" }) == 0 then return end
  doc:section("Projected training time on every catalog system", 2)
  local label = appendix.defer(doc, "Every workload on every catalog system", function(d)
    projection_method(d, exp)
    for _, w in ipairs(ctx.workloads) do workload_table(d, ctx, exp, w) end
  end)
  doc:paragraph(("The decision report projects its workloads onto the systems its scenario compares. Every workload "
    .. "(%d) on every catalog system and on this machine (%d systems), with fit, energy and price: %s.")
    :format(#ctx.workloads, #ctx.system_list, label))
end

local function skipped_table(doc, exps)
  local rows = {}
  for _, e in ipairs(exps) do
    for _, k in ipairs(e.skipped or {}) do rows[#rows + 1] = { k.item, not_measured(k.reason) } end
  end
  if #rows == 0 then return end
  doc:table { columns = { { title = "Not measured", width = 0.35 }, { title = "Why" } }, rows = rows }
end

-- The model experiment the decision report answers from: complete or partial, with projections.
local function projected_exp(results)
  for _, e in ipairs(R.experiments(results, "model")) do
    if (e.status == "complete" or e.status == "partial") and #R.records(e, { series = "projection" }) > 0 then return e end
  end
end

function S.model(doc, results)
  local exps = R.experiments(results, "model")
  if #exps == 0 then return end             -- the scenario has no model: no section
  doc:section("The training-time model: calibration and validation")
  for _, e in ipairs(exps) do
    local dev = DEVICE[e.device] or e.device or "?"
    if e.status == "complete" or e.status == "partial" then
      if e.status == "partial" then
        doc:paragraph(("Partial (%s): %s; what follows covers what it finished."):format(dev, e.note or "stopped early"), "note")
      end
      local cal = e.info and e.info.calibration
      validation(doc, e, cal, #exps > 1 and dev)
      if cal then calibration(doc, results, e, cal) end
      stack_fit(doc, e)
      every_system(doc, results, e)
    else
      doc:paragraph(("Not measured (%s): %s."):format(dev, e.reason or e.error or e.status or "?"))
    end
  end
  skipped_table(doc, exps)
end

-- The decision report's projection (the template's "projection" section).
function S.projection(doc, results)
  local e = projected_exp(results)
  if e then projection(doc, results, e) end
end

return S
