-- sparkreport.sections.compress: the compression section: what each scheme stores (bits per
-- weight with scales and indices), how fast the weight-streaming products run against dense
-- FP32 and BF16, the error it adds to a layer's
-- outputs and to the held-out loss of the largest model the run trained (which model, said); a chart of speed-up against bits per weight
-- with the ideal (bytes ratio) dashed; GPU rows "not measured" with the reason. Read fractions
-- are of this machine's one DRAM figure (sparkreport.ceilings.dram), the one read figure every
-- comparison uses; what bounds each product (its bytes, or decoding: its rate from cache). Draws
-- from the compress records only.
local ceilings = require "sparkreport.ceilings"
local fmt = require "sparkreport.format"
local marks = require "sparkreport.marks"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"

local S = {}

local DEVICE = { cpu = "CPU", gpu = "GPU" }

local function m(text) return { text = text, kind = "measured" } end

local function x(v) return (v == nil or v ~= v) and "n/a" or ("%.2fx"):format(v) end

local function bits(v) return (v == nil or v ~= v) and "n/a" or ("%.3g"):format(v) end

local function err(v)
  if v == nil or v ~= v then return "n/a" end
  if v < 1e-4 then return ("%.1e"):format(v) end
  return fmt.pct(v)
end

-- A small loss difference in nats: four decimals, or two significant digits below 1e-3.
local function nats(v, sign)
  local f = math.abs(v) >= 1e-3 and "%.4f" or "%.1e"
  return ((sign and "%+" or "%") .. f:sub(2)):format(v)
end

-- The schemes in the order the run measured them, with their records of one series.
local function schemes(exp)
  local order, seen = {}, {}
  for _, r in ipairs(exp.results or {}) do
    if not seen[r.scheme] then seen[r.scheme] = true; order[#order + 1] = r.scheme end
  end
  return order
end

local function rec(exp, series, scheme, batch)
  for _, r in ipairs(R.records(exp, { series = series, scheme = scheme })) do
    if batch == nil or r.batch == batch then return r end
  end
end

local function batches(exp)
  local out, seen = {}, {}
  for _, r in ipairs(R.records(exp, { series = "gemv" })) do
    if not seen[r.batch] then seen[r.batch] = true; out[#out + 1] = r.batch end
  end
  table.sort(out)
  return out
end

local function method(doc, exp)
  local info, p = exp.info or {}, exp.params or {}
  local first = R.records(exp, { series = "gemv" })[1] or {}
  local caches = info.caches_total_bytes or 0
  doc:paragraph(("Each scheme packs one weight matrix of %s x %s (%s as FP32: %.2gx %s, %s) and multiplies it by batches "
    .. "of vectors, y = W x, decoding the weights on the fly (%s, %d threads). Bytes: %s. Every product is checked against "
    .. "a plain twin in FP64 on the same packed weights (tolerance 1e-5 of sum |w x|, FP32 accumulation) before it is "
    .. "timed; times are medians of at least %d repetitions, with the best beside them. Speed-ups are ratios of medians "
    .. "within this run, against the dense FP32 and BF16 products of the same matrix; rates are compared with this "
    .. "machine's DRAM read ceiling, the ceiling of a weight stream (%s).")
    :format(fmt.whole(info.rows or 0), fmt.whole(info.cols or 0), fmt.bytes(info.fp32_bytes or 0), (info.fp32_bytes or 0) / math.max(caches, 1),
            info.caches_what or "the caches", fmt.bytes(caches), first.isa or "?", info.threads or 0,
            info.byte_convention or "?", p.min_reps or 0, info.dram and info.dram.rule or "the bandwidth experiment's rule"))
  if (info.fp32_bytes or 0) < 2 * caches then
    doc:paragraph(("The FP32 matrix is smaller than twice %s (%s): these products measure the caches and the decoding, "
      .. "not memory; a run with weights_size = \"auto\" measures memory."):format(info.caches_what or "the caches",
      fmt.bytes(caches)), "note")
  end
  local rd = R.records(exp, { series = "read" })[1]
  if rd and rd.not_a_ceiling and rd.gbps_median then
    doc:paragraph(("The plain read of the FP32 matrix (%s GB/s, median) is %s."):format(fmt.rate(rd.gbps_median),
      rd.not_a_ceiling), "note")
  end
  doc:paragraph(("Rounding: %s. Weights: %s."):format(info.rounding or "?", info.weights or "?"), "small")
end

-- One row per scheme: what it stores, what it gains, what it costs.
local function summary_table(doc, exp, bs)
  local b1, bn, rows = bs[1], bs[#bs], {}
  for _, s in ipairs(schemes(exp)) do
    local g1, gn = rec(exp, "gemv", s, b1), rec(exp, "gemv", s, bn)
    local le, ml = rec(exp, "layer_error", s), rec(exp, "model_loss", s)
    local any = g1 or le or ml
    if any then
      local row = { s, bits(any.bits_per_weight), g1 and fmt.bytes(g1.bytes) or "",
                    g1 and g1.valid and m(x(g1.speedup_vs_fp32)) or "not measured" }
      if bn ~= b1 then row[#row + 1] = gn and gn.valid and m(x(gn.speedup_vs_fp32)) or "not measured" end
      row[#row + 1] = g1 and g1.valid and m(x(g1.speedup_vs_bf16)) or ""
      row[#row + 1] = le and m(err(le.rel_error)) or "not measured"
      row[#row + 1] = ml and m(ml.loss_change == 0 and "0" or nats(ml.loss_change, true)) or "not measured"
      rows[#rows + 1] = row
    end
  end
  local cols = { { title = "Scheme", width = 0.13 }, { title = "Bits per\nweight", align = "right", width = 0.1 },
                 { title = "Bytes", align = "right", width = 0.12 },
                 { title = ("Speed-up\nvs FP32, b=%d"):format(b1), align = "right", width = 0.14 } }
  if bn ~= b1 then cols[#cols + 1] = { title = ("Speed-up\nvs FP32, b=%d"):format(bn), align = "right", width = 0.14 } end
  cols[#cols + 1] = { title = ("Speed-up\nvs BF16, b=%d"):format(b1), align = "right", width = 0.13 }
  cols[#cols + 1] = { title = "Layer\nerror", align = "right", width = 0.12 }
  cols[#cols + 1] = { title = "Held-out\nloss change", align = "right" }
  doc:table { columns = cols, rows = rows,
    caption = "Bits per weight include scales, indices and row pointers; bytes are one product's reads; b = vectors per "
      .. "product. Layer error: ||y - y64|| / ||y64|| against FP64 on the unquantized weights. Loss change: nats against the "
      .. "unquantized model. All measured on this run." }
end

-- Whether a record's matrix is under its experiment's DRAM-sized bytes (d.sized, the C side's
-- info.dram_sized_bytes; older files have none): it may stream in part from the caches, so it is
-- no fraction of a read.
local function small(r, d) return d and d.sized and (r.bytes or 0) < d.sized end

-- A product's best rate and the DRAM read ceiling it is a fraction of: the record's
-- read_fraction_dram (the C side divided by the read ceiling; older files: by the one figure) when
-- present, else its best GB/s over d; no ceiling when the matrix fits the caches (d.in_cache),
-- where DRAM bounds nothing, or is not DRAM-sized.
local function dram_pair(r, d)
  local read = ceilings.read_ceiling(d)
  if r.read_fraction_dram and r.read_fraction_dram > 0 then
    local ceiling = read or r.gbps_best / r.read_fraction_dram
    return r.read_fraction_dram * ceiling, ceiling
  end
  return r.gbps_best, d and not d.in_cache and not small(r, d) and read or nil
end

local function of_dram(mk, r, d, what)
  local v, c = dram_pair(r, d)
  if not c then return d and (d.in_cache and "in cache" or small(r, d) and "not DRAM-sized") or "no figure" end
  return mk:fraction_cell(v, c, "GB/s", what)
end

-- Per batch: GB/s in physical bytes, fraction of the DRAM figure, speed-up and its ideal, CV, repetitions.
local function speed_table(doc, exp, b, mk, d)
  local rows = {}
  for _, s in ipairs(schemes(exp)) do
    local r = rec(exp, "gemv", s, b)
    if r and r.valid and r.time_s then
      local what = ("%s, batch %d"):format(s, b)
      rows[#rows + 1] = { s, m(fmt.seconds(r.time_s.median)), m(fmt.rate(r.gbps_median)), m(fmt.rate(r.gbps_best)),
                          of_dram(mk, r, d, what), r.speedup_vs_fp32 and m(x(r.speedup_vs_fp32)) or "",
                          m(x(r.ideal_speedup_vs_fp32)), mk:settled(fmt.cv(r.time_s.cv), r, what), ("%d"):format(#r.samples_s) }
    elseif r then
      rows[#rows + 1] = { s, { text = r.error or "failed", tone = "bad" }, "", "", "", "", "", "", "" }
    end
  end
  doc:table {
    columns = { { title = "Scheme", width = 0.12 }, { title = "Median\ntime", align = "right", width = 0.11 },
                { title = "Median\nGB/s", align = "right", width = 0.1 }, { title = "Best\nGB/s", align = "right", width = 0.1 },
                { title = "Of the read\nceiling", align = "right", width = 0.12 }, { title = "Speed-up\nvs FP32", align = "right", width = 0.11 },
                { title = "Ideal\n(bytes)", align = "right", width = 0.11 }, { title = "CV", align = "right", width = 0.11 },
                { title = "Reps", align = "right" } },
    rows = rows,
    caption = mk:caption(("Batch %d. GB/s in physical bytes (values, scales, indices). Of the read ceiling: best GB/s over "
      .. "%s%s. Speed-up: median time of dense FP32 over the scheme's, same batch. Ideal: FP32 bytes / the scheme's bytes.")
      :format(b, d and (fmt.rate(ceilings.read_ceiling(d)) .. " GB/s, this machine's DRAM read ceiling")
                or "a DRAM figure this run lacks",
              d and d.sized and (", for a matrix of %s or more (4x the caches); not DRAM-sized: a smaller matrix, which may "
                .. "stream in part from the caches, so no fraction of a DRAM read"):format(fmt.bytes(d.sized)) or "")),
  }
end

-- Speed-up against bits per weight: measured points per batch, the bytes ratio dashed.
local function chart(doc, exp, bs)
  local series = {}
  for _, b in ipairs(bs) do
    local xs, ys, hollow, labels = {}, {}, {}, {}
    for _, s in ipairs(schemes(exp)) do
      local r = rec(exp, "gemv", s, b)
      if r and r.valid and r.speedup_vs_fp32 then
        xs[#xs + 1], ys[#ys + 1], labels[#xs + 1] = r.bits_per_weight, r.speedup_vs_fp32, s
        if marks.unsettled(r) then hollow[#hollow + 1] = #xs end
        xs[#xs + 1], ys[#ys + 1], labels[#xs + 1] = r.bits_per_weight, 0 / 0, false  -- a gap: points, not a line
      end
    end
    if #xs > 0 then
      series[#series + 1] = { name = ("measured, batch %d"):format(b), x = xs, y = ys, points = true, hollow = hollow,
                              labels = labels }
    end
  end
  if #series == 0 then return end
  local ix, iy = {}, {}
  for i = 0, 24 do
    local v = 3 * (32 / 3) ^ (i / 24)
    ix[#ix + 1], iy[#iy + 1] = v, 32 / v
  end
  series[#series + 1] = { name = "ideal: FP32 bytes / bytes", x = ix, y = iy, dashed = true }
  doc:chart {
    title = "Speed-up over dense FP32 against bits per weight (measured, medians)",
    x = { label = "bits per weight (values, scales and indices)", log = 2 },
    y = { label = "speed-up over FP32", log = 2 },
    series = series,
    caption = marks.hollow_caption(series, "Points below the dashed line lose to the bytes they save: decoding, gathers or "
      .. "the core count bound them, not memory."),
  }
end

-- A product's share of the DRAM read ceiling in words (both numbers when above it), or, without
-- a ceiling, its ratio to a plain read of the same matrix.
local function share_text(mk, r, d, what)
  local v, c = dram_pair(r, d)
  if not c and not r.read_fraction_best and small(r, d) then
    return ("its matrix (%s) is under 4x the caches: no fraction of a read"):format(fmt.bytes(r.bytes or 0)), nil
  end
  if not c then return ("%s a plain read of the same matrix"):format(x(r.read_fraction_best)), r.read_fraction_median end
  local text = mk:fraction(v, c, "GB/s", what)
  if marks.exceeds(v, c) then return text, v / c end
  return ("%s of %s GB/s, this machine's DRAM read ceiling%s"):format(text, fmt.rate(c),
    d and d.kernel and (": the " .. ceilings.read_text(d)) or ""), v / c
end

-- Dense FP32 at each batch after the first: its share of the read ceiling and what bounds it (its
-- own arithmetic: the rate from cache that binds, in GFLOP/s).
local function fp32_batches(doc, exp, bs, mk, d)
  local parts = {}
  for i = 2, #bs do
    local r = rec(exp, "gemv", "fp32", bs[i])
    if r and r.valid and r.gbps_best then
      local share = share_text(mk, r, d, ("fp32, batch %d"):format(bs[i]))
      local bound = r.bound == "memory" and "memory-bound"
        or r.bound == "compute" and r.bound_gflops and ("bound by its own arithmetic, %s GFLOP/s from cache"):format(fmt.rate(r.bound_gflops))
        or r.bound == "mixed" and "memory and arithmetic both" or "bound not recorded"
      -- the read of the same matrix interleaved with it: what the bound is judged by (the machine's
      -- rate moves between the ceiling's measurement and this one)
      if r.read_fraction_adjacent and r.read_adjacent and r.read_adjacent.gbps_median then
        bound = ("%s (%s of the read of the same matrix interleaved with it, %s GB/s median)"):format(bound,
          fmt.pct(r.read_fraction_adjacent), fmt.rate(r.read_adjacent.gbps_median))
      end
      if r.bound == "mixed" and r.fraction_if_serial then
        bound = ("%s; %s if its arithmetic, %s GFLOP/s from cache, and its stream took turns (computed from "
          .. "these two measured rates)"):format(bound,
          fmt.pct(r.fraction_if_serial), fmt.rate(r.bound_gflops))
      end
      parts[#parts + 1] = ("batch %d %s GB/s, %s; %s"):format(bs[i], fmt.rate(r.gbps_best), (share:gsub(": the .*$", "")), bound)
    end
  end
  if #parts > 0 then
    doc:paragraph(("Dense FP32 with more vectors per weight (each weight read once for the whole batch): %s.")
      :format(table.concat(parts, "; ")), "small")
  end
end

-- What bounds a product: the record's word, else (older files) memory when its speed-up reaches
-- 0.7 of the bytes ratio.
local function bound_of(r)
  if r.bound then return r.bound end
  if r.speedup_vs_fp32 and r.ideal_speedup_vs_fp32 then
    return r.speedup_vs_fp32 >= 0.7 * r.ideal_speedup_vs_fp32 and "memory" or "unknown"
  end
  return "unknown"
end

local BOUND_WORDS = { memory = "memory", compute = "decoding", mixed = "both", unknown = "n/a" }

local function rate(v) return v and ("%.2f"):format(v) or "n/a" end

-- The FP32 baseline against the DRAM figure, then per scheme at the first batch: speed-up against
-- the bytes ratio, and what bounds it (its rate from DRAM against its rate from cache).
local function bounds(doc, exp, bs, mk, d)
  local b1 = bs[1]
  local f32 = rec(exp, "gemv", "fp32", b1)
  if f32 and f32.valid and f32.gbps_best then
    doc:paragraph(("The baseline, dense FP32 at batch %d, streams at %s GB/s best (%s median): %s. Every speed-up "
      .. "below is over it, in the same run; a compressed product is memory-bound when its speed-up reaches 0.7 of the "
      .. "bytes it saves (the ideal), and bound by decoding when it runs from DRAM at 0.7 or more of its rate from "
      .. "cache (the same product on the matrix's first rows, half the level-2 caches).")
      :format(b1, fmt.rate(f32.gbps_best), fmt.rate(f32.gbps_median), (share_text(mk, f32, d, ("fp32, batch %d"):format(b1)))))
    fp32_batches(doc, exp, bs, mk, d)
  end
  local rows = {}
  for _, s in ipairs(schemes(exp)) do
    local r = rec(exp, "gemv", s, b1)
    if s ~= "fp32" and r and r.valid and r.speedup_vs_fp32 then
      local of = r.speedup_of_ideal or r.speedup_vs_fp32 / r.ideal_speedup_vs_fp32
      rows[#rows + 1] = { s, m(x(r.speedup_vs_fp32)), x(r.ideal_speedup_vs_fp32), m(("%.2f"):format(of)),
                          m(rate(r.gweights_per_s)), m(rate(r.cache and r.cache.gweights_per_s)),
                          { text = BOUND_WORDS[bound_of(r)] or bound_of(r), tone = of >= 0.7 and "good" or nil } }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Scheme", width = 0.14 }, { title = "Speed-up\nvs FP32", align = "right", width = 0.13 },
                { title = "Ideal\n(bytes)", align = "right", width = 0.12 }, { title = "Of the\nideal", align = "right", width = 0.12 },
                { title = "G weights/s\nfrom DRAM", align = "right", width = 0.16 },
                { title = "G weights/s\nfrom cache", align = "right", width = 0.16 }, { title = "Bound by" } },
    rows = rows,
    caption = ("Batch %d, medians. Ideal: FP32 bytes / the scheme's bytes. Bound by: memory (speed-up at 0.7 of the ideal or "
      .. "more), decoding (from DRAM at 0.7 of the rate from cache or more), both (neither holds), n/a (not measured)."):format(b1),
  }
end

local function layer_table(doc, exp)
  local rows = {}
  for _, s in ipairs(schemes(exp)) do
    local le = rec(exp, "layer_error", s)
    if le then
      rows[#rows + 1] = { s, m(err(le.rel_error)), err(le.error_bound),
                          le.within_bound and "within" or { text = "EXCEEDS", tone = "bad" }, m(err(le.weight_rel_error)) }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Scheme", width = 0.2 }, { title = "Layer\nerror", align = "right", width = 0.2 },
                { title = "Stated\nbound", align = "right", width = 0.2 }, { title = "", width = 0.2 },
                { title = "Weight\nerror", align = "right" } },
    rows = rows,
    caption = "Layer error: ||y - y64|| / ||y64|| of one layer's outputs against FP64 on the unquantized weights; weight "
      .. "error: ||w - w'|| / ||w||. Measured on this run.",
  }
end

-- Which model the held-out losses come from, in words: its size and shape, who trained it, how.
-- Older files (no model_source) trained it inside the compression experiment.
local function model_words(ml)
  local size = ml.params and ("%s parameters, "):format(fmt.count(ml.params)) or ""
  local dims = ml.layers and ("%d blocks, hidden %s, sequence %s, vocabulary %s; "):format(ml.layers,
    fmt.whole(ml.hidden or 0), fmt.whole(ml.seq or 0), fmt.whole(ml.vocab or 0)) or ""
  local who = ml.model_source == "the training experiment of this run"
    and "the largest model this run's training experiment trained"
    or "a model the compression experiment trained for this measurement"
  return ("Model: %s, its '%s' shape (%s%strained in %s on the CPU for %d of %d steps, final training loss %.3f nats)")
    :format(who, ml.shape, size, dims, (ml.model_precision or "fp32"):upper(), ml.steps_done, ml.steps,
            ml.loss_train_final)
end

local function change(ml)
  if ml.loss_change == 0 and (ml.loss_change_se or 0) == 0 then return m("0") end
  local t = nats(ml.loss_change, true)
  if ml.loss_change_se then t = ("%s +- %s"):format(t, nats(ml.loss_change_se)) end
  return m(t)
end

local function loss_table(doc, exp)
  local rows, base = {}, nil
  for _, s in ipairs(schemes(exp)) do
    local ml = rec(exp, "model_loss", s)
    base = base or ml
    if ml then
      rows[#rows + 1] = { s, bits(ml.bits_per_weight), m(("%.4f"):format(ml.loss_heldout)), change(ml),
                          m(("%.4f"):format(ml.loss_over_bound or ml.loss_heldout - ml.loss_entropy_bound)) }
    end
  end
  if not base then
    local why
    for _, sk in ipairs(exp.skipped or {}) do
      if sk.item == "held-out loss of the trained model" then why = sk.reason end
    end
    if not why and (exp.params or {}).model == "none" then why = "not measured: the scenario asked for none (model = \"none\")" end
    doc:paragraph(("Held-out loss on a trained model: %s."):format(why or "not measured (see the items not measured)"))
    return
  end
  doc:paragraph(("%s. Each scheme is applied to the weights of its blocks' linears (embeddings, LM head, norms and biases "
    .. "stay FP32) and the model's held-out loss measured over %s tokens the training never saw (%s), in FP32 "
    .. "arithmetic. Unquantized it is %.4f nats; the data's entropy bound, the lowest loss any model can reach, is %.4f "
    .. "nats.") :format(model_words(base), fmt.thousands(base.eval_tokens),
                        (base.eval_batches or 4) == 1 and "one batch" or ("%d batches"):format(base.eval_batches or 4),
                        base.loss_unquantized or base.loss_heldout - base.loss_change,
                        base.loss_entropy_bound))
  doc:table {
    columns = { { title = "Scheme", width = 0.16 }, { title = "Bits per\nweight", align = "right", width = 0.14 },
                { title = "Held-out\nloss (nats)", align = "right", width = 0.18 },
                { title = "Change vs FP32\n(nats)", align = "right", width = 0.26 },
                { title = "Above the\nbound (nats)", align = "right" } },
    rows = rows,
    caption = "Bits per weight of the quantized linears, scales included. Change: the held-out loss minus the unquantized "
      .. "(FP32) one, on the same tokens, +- its standard error over the batches. Above the bound: the held-out loss minus "
      .. "the entropy bound. All measured on this run.",
  }
end

-- What was not measured; items that share a reason in one row.
local function skipped(doc, exps)
  local rows = {}
  for _, r in ipairs(R.not_measured(exps, function(e) return "compression on the " .. (DEVICE[e.device] or e.device or "?") end)) do
    rows[#rows + 1] = { r.items, { text = r.reason, tone = "bad" } }
  end
  if #rows == 0 then return end
  doc:section("Not measured", 2)
  doc:table { columns = { { title = "Item", width = 0.45 }, { title = "Why" } }, rows = rows }
end

local function device_part(doc, results, exp)
  local bs = batches(exp)
  if #bs == 0 and #R.records(exp, { series = "layer_error" }) == 0 then
    doc:paragraph(("Compression, %s: not measured: %s."):format(DEVICE[exp.device] or exp.device or "?",
      exp.info and exp.info.reason or "no product was measured (see below)"))
    return
  end
  local mk, d = marks.new(), ceilings.dram(results, exp.device or "cpu")
  local info = exp.info or {}
  if d then
    d = setmetatable({ in_cache = (info.fp32_bytes or 0) < 2 * (info.caches_total_bytes or 0),
                       sized = info.dram_sized_bytes }, { __index = d })
  end
  doc:section(("Compression, %s"):format(DEVICE[exp.device] or exp.device), 2)
  method(doc, exp)
  summary_table(doc, exp, #bs > 0 and bs or { 1 })
  if #bs > 0 then
    bounds(doc, exp, bs, mk, d)
    local said = {}                   -- defects the body states already: the appendix does not repeat them
    for _, e in ipairs(mk.errors) do said[e] = true end
    mk:defects(doc)
    local label = appendix.defer(doc, ("Compression, %s: speed per scheme and batch"):format(DEVICE[exp.device] or exp.device),
      function(d2)
        local mk2 = marks.new()
        chart(d2, exp, bs)
        for _, b in ipairs(bs) do speed_table(d2, exp, b, mk2, d) end
        for i = #mk2.errors, 1, -1 do if said[mk2.errors[i]] then table.remove(mk2.errors, i) end end
        mk2:defects(d2)
      end)
    doc:paragraph(("Speed-up against bits per weight, and each scheme's time, bytes and speed-up at every batch with "
      .. "its statistics: %s."):format(label), "small")
  end
  if #R.records(exp, { series = "layer_error" }) > 0 or #R.records(exp, { series = "model_loss" }) > 0 then
    doc:section("Accuracy", 2)
    layer_table(doc, exp)
    loss_table(doc, exp)
  end
end

function S.compress(doc, results)
  doc:section("Compression: quantization and pruning")
  local exps, none = R.family(results, "compress")
  if not exps then return doc:paragraph(none) end
  doc:paragraph("Fewer bytes per weight are the other remedy for a bandwidth-bound machine. Each scheme below is measured "
    .. "three ways: how fast the products that stream its weights run, how much error it adds to a layer, and how much "
    .. "held-out loss a trained model loses with it.")
  for _, e in ipairs(exps) do
    if e.status == "partial" then doc:paragraph(("Partial (%s): %s."):format(e.device or "?", e.note or "stopped early"), "note") end
    if e.status == "complete" or e.status == "partial" then device_part(doc, results, e)
    elseif e.status == "skipped" then
      doc:paragraph(("Compression, %s: not measured: %s."):format(DEVICE[e.device] or e.device or "?",
        (tostring(e.reason):gsub("^not measured: ", ""))))
    end
  end
  local n = 0
  for _, e in ipairs(exps) do n = n + #(e.skipped or {}) + ((e.status == "complete" or e.status == "partial") and 0 or 1) end
  if n > 0 then
    local label = appendix.defer(doc, "Compression: what was not measured", function(d) skipped(d, exps) end)
    doc:paragraph(("%d compression items were not measured; each with its reason: %s."):format(n, label), "small")
  end
end

return S
