-- sparkreport.sections.precision: the compute section: how the numbers were made, sustained
-- compute per precision beside the catalog's dense peaks, a roofline per device (measured
-- bandwidth and compute ceilings, spec ceilings dashed, the sweep points) with its knee, the
-- GEMM sweep, the numerical error of each precision, the fixed costs per call, and what was not
-- measured. Draws from the precision records (and the bandwidth ceiling) only.
local ceilings = require "sparkreport.ceilings"
local fmt = require "sparkreport.format"
local marks = require "sparkreport.marks"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"

local S = {}

local ORDER = { "fp64", "fp32", "tf32", "bf16", "fp16", "fp16_acc16", "fp8", "fp8_fast", "nvfp4", "mxfp4" }
local CATALOG = { fp64 = "fp64_tflops", fp32 = "fp32_tflops", tf32 = "tf32_tflops", bf16 = "bf16_tflops",
                  fp16 = "fp16_tflops", fp8 = "fp8_tflops", fp8_fast = "fp8_tflops", nvfp4 = "fp4_tflops", mxfp4 = "fp4_tflops" }
local DEVICE = { cpu = "CPU", gpu = "GPU" }

local function sci(x)
  if x == nil or x ~= x then return "n/a" end
  if x == 0 then return "0" end
  return ("%.2e"):format(x)
end

-- "not measured: why", once (a reason may already say it).
local function not_measured(why)
  return why:find("^not measured") and why or ("not measured: " .. why)
end

-- The catalog's dense peak of a GPU precision, GFLOPS, and its column; the catalog has no CPU
-- compute figures, so CPU rows never get one.
local function spec_peak(row, device, prec)
  local col = CATALOG[prec]
  if device ~= "gpu" or not row or not col or not row[col] then return nil end
  return row[col] * 1000, col
end

local all_records = R.all_records

local function skipped_reason(exps, item)
  for _, e in ipairs(exps) do
    for _, s in ipairs(e.skipped or {}) do if s.item == item then return s.reason end end
  end
end

-- The fastest GEMM of a device and precision in this experiment (by best repetition, as the run's
-- sustained GEMM rate is taken).
local function best_gemm(exps, device, prec)
  local best
  for _, r in ipairs(all_records(exps, { series = "gemm", device = device, precision = prec, valid = true })) do
    if r.gflops_best and (not best or r.gflops_best > best.gflops_best) then best = r end
  end
  return best
end

local function fma_peak(exps, prec)
  local best
  for _, r in ipairs(all_records(exps, { series = "peak", precision = prec, valid = true })) do
    if r.gflops_median and (not best or r.threads > best.threads) then best = r end
  end
  return best
end

local function method(doc, exps)
  local info = exps[1].info or {}
  local cpu = info.cpu or {}
  local ks = {}
  for _, k in ipairs(cpu.kernels or {}) do
    ks[#ks + 1] = ("%s: %s, %d chains of %d-byte vectors"):format(k.precision, k.isa, k.chains, k.vector_bytes)
  end
  doc:paragraph(("Peaks: FMA kernels whose chains of vector registers cover the FMA latency (%s), on one thread and "
    .. "on all %d; GEMM D = A^T B through the BLAS (CPU) or cuBLASLt (GPU), on random inputs in (-1, 1) that are "
    .. "the same values on every device. Every kernel is checked against a plain twin before it is timed (FMA "
    .. "chains exactly; GEMMs per element relative to |A||B|, tolerance 1e-12 FP64, 1e-5 FP32, 1e-2 BF16/FP16/FP8/"
    .. "FP4); repetitions continue until the CV is below %s or the time share is spent. Rates are medians with "
    .. "the best repetition beside them. %s. %s.")
    :format(table.concat(ks, "; "), cpu.threads or 0, fmt.cv(exps[1].params and exps[1].params.cv or 0),
            info.flop_convention or "", info.byte_convention or ""))
  doc:paragraph(("Training shapes (%s): %s tokens, hidden %s, vocabulary %s.")
    :format(info.model or "", fmt.whole(info.tokens or 0), fmt.whole(info.hidden or 0), fmt.whole(info.vocab or 0)), "small")
end

-- One row of the sustained-compute table.
local function peak_row(device, prec, how, r, row)
  local spec, col = spec_peak(row, device, prec)
  return { DEVICE[device], prec, how, { text = fmt.rate(r.gflops_median), kind = "measured" },
           { text = fmt.rate(r.gflops_best), kind = "measured" },
           spec and { text = fmt.rate(spec), kind = "spec" } or (device == "gpu" and "not in catalog" or "no CPU figure"),
           spec and { text = fmt.pct(r.gflops_median / spec), kind = "measured" } or "", col = col }
end

-- Rows of a device's precisions that were not measured: one row when they share one reason.
local function missing_rows(exps, device, missing)
  local reasons, n = {}, 0
  for _, m in ipairs(missing) do
    if not reasons[m.why] then reasons[m.why] = {}; n = n + 1 end
    table.insert(reasons[m.why], m.prec)
  end
  local rows = {}
  for _, m in ipairs(missing) do
    local precs = reasons[m.why]
    if precs then
      rows[#rows + 1] = { DEVICE[device], #precs > 1 and (#precs == #missing and n == 1 and "all" or table.concat(precs, ", ")) or m.prec,
                          { text = not_measured(m.why), tone = "bad" }, "", "", "", "" }
      reasons[m.why] = nil
    end
  end
  return rows
end

local function peaks_table(doc, results, exps)
  local row, rows = R.catalog_row(results), {}
  for _, device in ipairs { "cpu", "gpu" } do
    local missing = {}
    for _, prec in ipairs(ORDER) do
      for _, r in ipairs(all_records(exps, { series = "peak", device = device, precision = prec, valid = true })) do
        rows[#rows + 1] = peak_row(device, prec, ("FMA chains, %d thread%s"):format(r.threads, r.threads > 1 and "s" or ""), r, row)
      end
      local g, rate = best_gemm(exps, device, prec), ceilings.gemm_rate(results, device, prec)
      local why = not g and skipped_reason(exps, DEVICE[device] .. " GEMM " .. prec)
      if g then
        rows[#rows + 1] = peak_row(device, prec, ("sustained GEMM rate: %s %dx%dx%d"):format(g.shape, g.m, g.n, g.k), g, row)
      end
      if rate and (not g or rate.gflops > g.gflops_best * (1 + 1e-9)) then   -- the model measured a faster one
        rows[#rows + 1] = { DEVICE[device], prec, ("sustained GEMM rate: %dx%dx%d, %s"):format(rate.m or 0, rate.n or 0,
                              rate.k or 0, rate.source), "", { text = fmt.rate(rate.gflops), kind = "measured" }, "", "" }
      elseif not g and why then
        missing[#missing + 1] = { prec = prec, why = why }
      end
    end
    for _, r in ipairs(missing_rows(exps, device, missing)) do rows[#rows + 1] = r end
  end
  for _, r in ipairs(rows) do r.col = nil end
  doc:table {
    columns = { { title = "Device", width = 0.1 }, { title = "Precision", width = 0.13 }, { title = "How", width = 0.23 },
                { title = "Median\nGFLOPS", align = "right", width = 0.13 }, { title = "Best\nGFLOPS", align = "right", width = 0.13 },
                { title = "Catalog\ndense GFLOPS", align = "right", width = 0.15 }, { title = "Fraction", align = "right" } },
    rows = rows,
    caption = "Sustained compute: the median repetition, the best beside it; one FMA peak per precision (what MFU is "
      .. "taken against) and one sustained GEMM rate (the fastest GEMM of the run, best repetition: the same figure the "
      .. "training-time model's matmul ceiling divides by). Catalog: dense peaks only (vendor figures quoted with sparsity are halved "
      .. "in the catalog and never used as dense)" .. (row and (", " .. row.name .. ", sources: " .. (row.sources or "?")) or
      ("; this machine is no catalog system (" .. (results.catalog and results.catalog.match_reason or "") .. ")")) .. ".",
  }
end

-- The FMA peak must bound every GEMM of its precision: a GEMM above it means the peak kernel is wrong.
local function consistency(doc, exps)
  for _, prec in ipairs { "fp64", "fp32" } do
    local p, g = fma_peak(exps, prec), best_gemm(exps, "cpu", prec)
    if p and g then
      local ok = p.gflops_best >= g.gflops_best
      doc:paragraph(("Check, %s: FMA peak %s GFLOPS (best repetition, %d threads) %s the best GEMM, %s GFLOPS: %s.")
        :format(prec:upper(), fmt.rate(p.gflops_best), p.threads, ok and ">=" or "<", fmt.rate(g.gflops_best),
                ok and "consistent" or "A GEMM BEATS THE PEAK KERNEL, WHICH IS THEREFORE WRONG"), ok and "small" or "note")
    end
  end
end

-- The bandwidth ceiling of a device: this machine's DRAM read ceiling (the sweep only reads), else
-- the sweep's own.
local function bandwidth_ceiling(results, exps, device)
  local d = ceilings.dram(results, device)
  if d then
    return ceilings.read_ceiling(d), ceilings.read_text(d) .. ", this machine's DRAM read ceiling (the sweep only reads)", d
  end
  local best
  for _, k in ipairs(all_records(exps, { series = "knee", device = device })) do
    best = math.max(best or 0, k.ceiling_gbps)
  end
  return best, "the intensity sweep's own best (no bandwidth experiment in this run)"
end

local function compute_ceiling(exps, device, prec)
  local r = device == "cpu" and fma_peak(exps, prec) or best_gemm(exps, device, prec)
  return r and r.gflops_median
end

local function sweep_series(exps, device, prec, series)
  local by = {}
  for _, r in ipairs(all_records(exps, { series = "sweep", device = device, precision = prec, valid = true })) do
    by[r.method] = by[r.method] or { x = {}, y = {}, recs = {} }
    local t = by[r.method]
    t.x[#t.x + 1], t.y[#t.y + 1], t.recs[#t.recs + 1] = r.flops_per_byte, r.gflops_best, r
  end
  for m, t in pairs(by) do
    series[#series + 1] = { name = ("%s sweep (%s)"):format(prec:upper(), m), x = t.x, y = t.y, points = true,
                            hollow = marks.hollow(t.recs) }
  end
end

-- Sweep points above their roof (the DRAM figure times the intensity, the peak's best repetition
-- above it) are defects, where the sweep's working set is DRAM-sized and the roof a ceiling.
local function check_roof(mk, exps, device, d, bw)
  for _, r in ipairs(all_records(exps, { series = "sweep", device = device, valid = true })) do
    local p = device == "cpu" and fma_peak(exps, r.precision) or best_gemm(exps, device, r.precision)
    local at_dram = d and (r.bytes or 0) >= (d.working_set_bytes or 0) * 0.999
    if at_dram and p and bw then
      mk:fraction(r.gflops_best, math.min(bw * r.flops_per_byte, p.gflops_best), "GFLOP/s",
                  ("%s sweep point at %s FLOP/byte"):format(r.precision:upper(), fmt.rate(r.flops_per_byte)))
    end
  end
end

local function roof(name, bw, peak, lo, hi, dashed)
  local knee = peak / bw
  local xs, ys = { lo }, { math.min(bw * lo, peak) }
  if knee > lo and knee < hi then xs[#xs + 1], ys[#ys + 1] = knee, peak end
  xs[#xs + 1], ys[#ys + 1] = hi, math.min(bw * hi, peak)
  return { name = name, x = xs, y = ys, dashed = dashed }
end

local function roofline(doc, results, exps, device, mk)
  local pts = all_records(exps, { series = "sweep", device = device, valid = true })
  if #pts == 0 then return end
  local lo, hi = math.huge, 0
  for _, r in ipairs(pts) do lo, hi = math.min(lo, r.flops_per_byte), math.max(hi, r.flops_per_byte) end
  lo, hi = lo / 2, hi * 2
  local bw, src, d = bandwidth_ceiling(results, exps, device)
  check_roof(mk, exps, device, d, bw)
  local row, series, spec_bw = R.catalog_row(results), {}, nil
  if device == "gpu" and row then spec_bw = row.mem_bw_gbs end
  for _, prec in ipairs(ORDER) do
    local peak = compute_ceiling(exps, device, prec)
    if peak and bw then series[#series + 1] = roof(prec:upper() .. " roof (measured)", bw, peak, lo, hi) end
    local sp = spec_peak(row, device, prec)
    if sp and spec_bw then series[#series + 1] = roof(prec:upper() .. " roof (spec)", spec_bw, sp, lo, hi, true) end
    sweep_series(exps, device, prec, series)
  end
  doc:chart {
    title = ("Roofline, %s: measured ceilings, sweep points (best repetition)%s"):format(DEVICE[device], spec_bw and ", spec dashed" or ""),
    x = { label = "arithmetic intensity (FLOP per byte moved)", log = 10 }, y = { label = "GFLOPS", log = 10 },
    series = series,
    caption = marks.hollow_caption(series, ("Bandwidth ceiling %s GB/s: %s. Compute ceilings: %s (medians).%s")
      :format(fmt.rate(bw or 0 / 0), src, device == "cpu" and "FMA kernels on all threads" or "best GEMM per precision",
              spec_bw and (" Spec: " .. row.name .. ", " .. fmt.rate(spec_bw) .. " GB/s and the catalog's dense peaks.") or "")),
  }
end

local function knee_table(doc, results, exps)
  local row, rows = R.catalog_row(results), {}
  for _, k in ipairs(all_records(exps, { series = "knee" })) do
    local dram = ceilings.dram(results, k.device)       -- this machine's read ceiling, or none
    local bw = ceilings.read_ceiling(dram)
    local peak = compute_ceiling(exps, k.device, k.precision)
    local sp = spec_peak(row, k.device, k.precision)
    local spec_bw = k.device == "gpu" and row and row.mem_bw_gbs
    rows[#rows + 1] = { DEVICE[k.device], k.precision, k.method,
      { text = fmt.rate(k.ceiling_gbps), kind = "measured" }, { text = fmt.rate(k.ceiling_gflops), kind = "measured" },
      { text = (k.knee_is_lower_bound and ">= " or "") .. fmt.rate(k.knee_flops_per_byte), kind = "measured" },
      (peak and bw) and { text = fmt.rate(peak / bw), kind = "measured" } or (bw and "n/a" or "no bandwidth run"),
      (sp and spec_bw) and { text = fmt.rate(sp / spec_bw), kind = "spec" } or "no catalog figure" }
  end
  if #rows == 0 then return end
  local cpu_dram = ceilings.dram(results, "cpu")
  doc:section("Roofline knees", 2)
  doc:table {
    columns = { { title = "Device", width = 0.1 }, { title = "Precision", width = 0.13 }, { title = "Sweep", width = 0.12 },
                { title = "Sweep\nGB/s", align = "right" }, { title = "Sweep\nGFLOPS", align = "right" },
                { title = "Knee, sweep\nFLOP/byte", align = "right" }, { title = "Knee, peak\n/ DRAM read", align = "right" },
                { title = "Knee, spec\nFLOP/byte", align = "right", width = 0.13 } },
    rows = rows,
    caption = "Knee = compute ceiling / bandwidth ceiling: below it, memory bandwidth sets the pace. The sweep's "
      .. "ceilings are its best bytes/s and best GFLOPS (the sweep's own rates); the second knee divides the sustained "
      .. "peak by this machine's DRAM read ceiling" .. (cpu_dram and (", " .. fmt.rate(ceilings.read_ceiling(cpu_dram)) .. " GB/s for the CPU") or "")
      .. "; the spec knee divides the catalog's dense peak by its memory bandwidth. "
      .. "\">=\": the sweep stopped before twice its knee (time share), so the compute ceiling may lie higher.",
  }
end

local function gemm_chart(doc, exps, device)
  local series = {}
  for _, prec in ipairs(ORDER) do
    local xs, ys = {}, {}
    local recs = all_records(exps, { series = "gemm", device = device, precision = prec, shape = "square", valid = true })
    table.sort(recs, function(a, b) return a.m < b.m end)
    for _, r in ipairs(recs) do xs[#xs + 1], ys[#ys + 1] = r.m, r.gflops_median end
    if #xs > 0 then series[#series + 1] = { name = prec:upper() .. " GEMM", x = xs, y = ys, points = true } end
    local p = device == "cpu" and fma_peak(exps, prec)
    if p and #xs > 0 then
      series[#series + 1] = { name = prec:upper() .. " FMA peak", x = { xs[1], xs[#xs] }, y = { p.gflops_median, p.gflops_median }, dashed = true }
    end
  end
  if #series == 0 then return end
  doc:chart {
    title = ("GEMM throughput against size, %s (square n x n x n, medians)"):format(DEVICE[device]),
    x = { label = "n", log = 2 }, y = { label = "GFLOPS", min = 0 }, series = series,
    caption = device == "cpu" and "Dashed: the FMA peak of the same precision on all threads." or nil,
  }
end

local function gemm_table(doc, exps, device, mk)
  local rows = {}
  for _, prec in ipairs(ORDER) do
    local peak = compute_ceiling(exps, device, prec)
    for _, r in ipairs(all_records(exps, { series = "gemm", device = device, precision = prec })) do
      local what = ("%s GEMM %s %dx%dx%d"):format(prec, r.shape, r.m, r.n, r.k)
      rows[#rows + 1] = r.valid
        and { prec, r.shape, ("%dx%dx%d"):format(r.m, r.n, r.k), { text = fmt.rate(r.gflops_median), kind = "measured" },
              { text = fmt.rate(r.gflops_best), kind = "measured" },
              peak and mk:fraction_cell(r.gflops_median, peak, "GFLOP/s", what) or "",
              mk:settled(fmt.cv(r.time_s.cv), r, what), ("%d"):format(#r.samples_s), "valid" }
        or { prec, r.shape, ("%dx%dx%d"):format(r.m, r.n, r.k), "not timed", "", "", "", "",
             { text = "FAILED (" .. sci(r.max_rel_error) .. ")", tone = "bad" } }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Precision", width = 0.13 }, { title = "Shape", width = 0.11 }, { title = "m x n x k", width = 0.18 },
                { title = "GFLOPS\nmedian", align = "right", width = 0.1 }, { title = "GFLOPS\nbest", align = "right", width = 0.1 },
                { title = device == "cpu" and "Of FMA\npeak" or "Of best\nGEMM", align = "right", width = 0.09 },
                { title = "CV", align = "right", width = 0.08 }, { title = "Reps", align = "right", width = 0.07 },
                { title = "Validation" } },
    rows = rows,
    caption = mk:caption(("GEMM efficiency by shape, %s: D = A^T B, FLOPs 2mnk; shapes square, attn-proj (tokens x hidden x "
      .. "hidden), mlp-up (x 4 hidden), lm-head (x vocab); all measured on this run."):format(DEVICE[device])),
  }
end

local function numerics_table(doc, exps)
  local rows = {}
  if #all_records(exps, { series = "numerics" }) == 0 then return end
  doc:section("Numerical error per precision", 2)
  for _, device in ipairs { "cpu", "gpu" } do
    for _, prec in ipairs(ORDER) do
      for _, r in ipairs(all_records(exps, { series = "numerics", device = device, precision = prec })) do
        rows[#rows + 1] = { DEVICE[device], prec, r.emulated and "emulated (inputs rounded, FP32 accumulate)"
                                                   or (r.method .. ": " .. (r.algo or "")),
          { text = sci(r.rel_error_fro), kind = "measured" }, { text = sci(r.rel_error_max), kind = "measured" },
          sci(r.error_bound), r.within_bound and "within" or { text = "ABOVE", tone = "bad" } }
      end
    end
  end
  if #rows == 0 then return end
  local r1 = all_records(exps, { series = "numerics" })[1]
  doc:table {
    columns = { { title = "Device", width = 0.1 }, { title = "Precision", width = 0.13 }, { title = "Computed by", width = 0.3 },
                { title = "Error\n(Frobenius)", align = "right" }, { title = "Max per element\n/ (|A||B|)ij", align = "right" },
                { title = "Bound", align = "right" }, { title = "", width = 0.08 } },
    rows = rows,
    caption = ("Error of D = A^T B (%dx%dx%d, inputs uniform in (-1, 1)) against FP64 on the unquantized inputs: "
      .. "||D - D64||F / ||D64||F, and the largest per-element error relative to the sum of |products|. Scaling: FP8 "
      .. "per tensor (inputs x 448, 1/448 as A/B scale); NVFP4 inputs x 2688, one UE4M3 scale per 16 along K; MXFP4 one "
      .. "power-of-two UE8M0 scale per 32 along K."):format(r1.m, r1.n, r1.k),
  }
end

local function overheads(doc, exps)
  local parts = {}
  for _, r in ipairs(all_records(exps, { series = "overhead" })) do
    parts[#parts + 1] = r.what == "omp_parallel_region"
      and ("an OpenMP parallel region of %d threads costs %s (median; CV %s)"):format(r.threads, fmt.seconds(r.seconds_median), fmt.cv(r.time_s.cv))
      or ("an empty CUDA kernel launch costs %s back to back (median)"):format(fmt.seconds(r.seconds_median))
  end
  local why = skipped_reason(exps, "GPU kernel launch cost")
  if why then parts[#parts + 1] = "the GPU kernel launch cost: " .. not_measured(why) end
  if #parts > 0 then doc:paragraph("Fixed costs per call (measured): " .. table.concat(parts, "; ") .. ".") end
end

-- What was not measured, items that share a reason in one row.
local function skipped(doc, exps)
  local order, by = {}, {}
  for _, e in ipairs(exps) do
    for _, s in ipairs(e.skipped or {}) do
      if not by[s.reason] then by[s.reason] = {}; order[#order + 1] = s.reason end
      table.insert(by[s.reason], s.item)
    end
  end
  if #order == 0 then return end
  doc:section("Not measured", 2)
  local rows = {}
  for _, why in ipairs(order) do rows[#rows + 1] = { table.concat(by[why], ", "), not_measured(why) } end
  doc:table { columns = { { title = "Not measured", width = 0.45 }, { title = "Why" } }, rows = rows }
end

function S.precision(doc, results)
  doc:section("Compute per precision")
  local all, none = R.family(results, "precision")
  if not all then return doc:paragraph(none) end
  local exps = {}
  for _, e in ipairs(all) do
    if e.status == "complete" or e.status == "partial" then exps[#exps + 1] = e
    else doc:paragraph(("Not measured: %s"):format(e.reason or e.error or e.status or "?")) end
  end
  if #exps == 0 then return end
  method(doc, exps)
  doc:section("Sustained compute", 2)
  peaks_table(doc, results, exps)
  consistency(doc, exps)
  overheads(doc, exps)
  local mk = marks.new()
  for _, device in ipairs { "cpu", "gpu" } do
    if #all_records(exps, { device = device }) > 0 then
      doc:section("Roofline and GEMM, " .. DEVICE[device], 2)
      roofline(doc, results, exps, device, mk)
      mk:defects(doc)
    end
  end
  knee_table(doc, results, exps)
  local label = appendix.defer(doc, "Compute: GEMM sizes, numerical error, what was not measured", function(d)
    local mk2 = marks.new()
    for _, device in ipairs { "cpu", "gpu" } do
      if #all_records(exps, { device = device }) > 0 then
        d:section("GEMM, " .. DEVICE[device], 2)
        gemm_chart(d, exps, device)
        gemm_table(d, exps, device, mk2)
      end
    end
    mk2:defects(d)
    numerics_table(d, exps)
    skipped(d, exps)
  end)
  doc:paragraph(("GEMM rate against size and every GEMM shape with its statistics, the numerical error of each precision against FP64, and "
    .. "what was not measured with its reason: %s."):format(label), "small")
end

return S
