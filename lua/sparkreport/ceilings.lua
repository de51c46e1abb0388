-- sparkreport.ceilings: the machine's measured ceilings (results.ceilings; results.calibration in
-- files written before the name changed), what the sections show and divide by, assembled after
-- all experiments ran from what they measured: sustained peak per
-- device and precision, GEMM efficiency by shape, the bandwidth ladder, the DRAM ceilings, the
-- roofline knees and the fixed costs of a parallel region and of a kernel launch. Every figure is
-- measured on this run; what was not measured is listed with its reason. It computes no model: the
-- training-time model reads the model experiment's own calibration (its info.calibration).
local bench = require "bench"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local M = { version = 1 }

local function valid(r) return r.valid ~= false end

-- Sustained peak per (device, precision): the CPU FMA kernel on all threads, or, where a device
-- has no FMA record (the GPU), its best GEMM; medians, the best repetition beside them.
local function peaks(exps)
  local out, by = {}, {}
  local function offer(dev, prec, gflops, best, method, rank)
    local key = dev .. "/" .. prec
    local cur = by[key]
    if cur and (cur.rank > rank or (cur.rank == rank and cur.gflops >= gflops)) then return end
    local p = { device = dev, precision = prec, gflops = gflops, gflops_best = best, method = method,
                kind = "measured", rank = rank }
    if cur then for i, q in ipairs(out) do if q == cur then out[i] = p end end else out[#out + 1] = p end
    by[key] = p
  end
  for _, e in ipairs(exps) do
    for _, r in ipairs(e.results or {}) do
      if r.series == "peak" and valid(r) and r.gflops_median then
        offer(r.device, r.precision, r.gflops_median, r.gflops_best,
              ("FMA chains (%s), %d threads"):format(r.isa or "?", r.threads or 0), r.threads or 0)
      elseif r.series == "gemm" and valid(r) and r.gflops_median then
        offer(r.device, r.precision, r.gflops_median, r.gflops_best,
              ("GEMM %s %dx%dx%d"):format(r.shape or "", r.m or 0, r.n or 0, r.k or 0), -1)
      end
    end
  end
  for _, p in ipairs(out) do p.rank = nil end
  return out, by
end

local function gemm_surface(exps, by)
  local out = {}
  for _, e in ipairs(exps) do
    for _, r in ipairs(e.results or {}) do
      if r.series == "gemm" and valid(r) and r.gflops_median then
        local peak = by[r.device .. "/" .. r.precision]
        out[#out + 1] = { device = r.device, precision = r.precision, shape = r.shape, m = r.m, n = r.n, k = r.k,
                          flops = r.flops, gflops = r.gflops_median, gflops_best = r.gflops_best,
                          efficiency = peak and r.gflops_median / peak.gflops or nil }
      end
    end
  end
  return out
end

-- The ladder: every size-sweep record of the bandwidth experiments, by device.
local function ladder(results)
  local out, dram = {}, {}
  for _, e in ipairs(R.experiments(results, "bandwidth")) do
    local dev = e.device or "cpu"
    for _, r in ipairs(R.records(e, { series = "size" })) do
      if r.valid and r.gbps_best then
        out[#out + 1] = { device = dev, kernel = r.kernel, precision = r.precision, alloc = r.alloc,
                          working_set_bytes = r.working_set_bytes, threads = r.threads,
                          gbps_best = r.gbps_best, gbps_median = r.gbps_median }
        local d = dram[dev]
        local better = not d or r.working_set_bytes > d.working_set_bytes
          or (r.working_set_bytes == d.working_set_bytes and r.kernel == "read" and d.kernel ~= "read")
        if better and (r.kernel == "read" or r.kernel == "triad") and r.precision == "fp64" then
          dram[dev] = { device = dev, kernel = r.kernel, working_set_bytes = r.working_set_bytes,
                        gbps_best = r.gbps_best, gbps_median = r.gbps_median }
        end
      end
    end
  end
  local list = {}
  for _, d in pairs(dram) do list[#list + 1] = d end
  table.sort(list, function(a, b) return a.device < b.device end)
  return out, list
end

-- The rule the C side states (src/measure/dram.h) and writes into info.dram.rule.
M.DRAM_RULE = bench.dram_rule
M.LEGACY_RULE = "the read kernel (else triad) in FP64 at the largest working set of the bandwidth experiment, best "
  .. "repetition, in STREAM's byte count (the rule of results files older than info.dram)"

local function from_info(dev, d, exp)
  return { device = dev, gbps = d.gbps, gbps_best = d.gbps, kernel = d.kernel, precision = d.precision,
           stores = d.stores, working_set_bytes = d.working_set_bytes, threads = d.threads,
           source = d.source or (exp.name .. " experiment"), rule = d.rule or M.DRAM_RULE,
           read_gbps = d.read_gbps, write_gbps = d.write_gbps, mix_gbps = d.mix_gbps, ceilings = d.ceilings,
           write_allocate = d.write_allocate }
end

-- The DRAM read ceiling of a device (what a weight stream is judged against): info.dram's
-- read_gbps, else (files before it) the one figure. nil without a figure.
function M.read_ceiling(d)
  return d and (d.read_gbps or d.gbps)
end

-- Where the read ceiling comes from, in words: "read kernel in FP32 at 6.0 GiB, 2 threads (bandwidth
-- experiment, best repetition)"; files before the ceilings: dram_text's words of the one figure.
function M.read_text(d)
  for _, c in ipairs(d.ceilings or {}) do
    if c.read_share == 1 then
      return ("%s kernel in %s at %s%s (%s, best repetition)"):format(c.kernel or "read", (c.precision or "fp64"):upper(),
        fmt.bytes(d.working_set_bytes or 0), d.threads and (", %d threads"):format(d.threads) or "", d.source or "?")
    end
  end
  return M.dram_text(d)
end

-- The write-allocate test in words: which bytes a cached store counts, and why.
function M.counted_text(d)
  local wa = d and d.write_allocate
  if not wa then return nil end
  return ("%s (%s; hardware counters: %s)"):format(wa.counted or "?", wa.evidence or "no evidence", wa.counters or "not tried")
end

-- The one DRAM bandwidth of a device, which every section shows and divides by: the bandwidth
-- experiment's info.dram; else the first experiment's info.dram (model, compress, precision);
-- else, for older files, the read kernel (else triad) in FP64 at the largest working set
-- (legacy = true). Fields: gbps (= gbps_best), kernel, precision, stores, working_set_bytes,
-- threads, source, rule. nil when this run measured none.
-- A read ceiling an experiment after the first raised (info.dram.read_raised: a read of its own or
-- a product's weight stream was faster): the highest such figure replaces the first one's read.
local function raised(d, results, ours)
  for _, e in ipairs(results.experiments or {}) do
    local o = ours(e) and e.info and e.info.dram
    if o and o.read_raised and o.read_gbps and o.read_gbps > (d.read_gbps or 0) then
      d.read_gbps, d.read_raised = o.read_gbps, o.read_raised
      local cs = {}
      for _, c in ipairs(d.ceilings or {}) do if c.read_share ~= 1 then cs[#cs + 1] = c end end
      for _, c in ipairs(o.ceilings or {}) do if c.read_share == 1 then table.insert(cs, 1, c) end end
      d.ceilings = cs
      if o.gbps > d.gbps then
        d.gbps, d.gbps_best, d.kernel, d.precision, d.stores = o.gbps, o.gbps, o.kernel, o.precision, o.stores
      end
    end
  end
  return d
end

function M.dram(results, device)
  local function ours(e) return device == "gpu" and e.device == "gpu" or device ~= "gpu" and e.device ~= "gpu" end
  for _, e in ipairs(R.experiments(results, "bandwidth")) do
    if ours(e) and e.info and e.info.dram and e.info.dram.gbps then return raised(from_info(device, e.info.dram, e), results, ours) end
  end
  for _, e in ipairs(results.experiments or {}) do
    if ours(e) and e.info and e.info.dram and e.info.dram.gbps then return raised(from_info(device, e.info.dram, e), results, ours) end
  end
  local _, list = ladder(results)
  for _, d in ipairs(list) do
    if d.device == device then
      d.gbps, d.precision, d.legacy, d.rule = d.gbps_best, "fp64", true, M.LEGACY_RULE
      d.source = "bandwidth experiment"
      return d
    end
  end
end

-- Where the figure comes from, in words, its number left to the caller: "copy kernel in FP64 with
-- non-temporal stores at 1 GiB, 2 threads (bandwidth experiment, best repetition)".
function M.dram_text(d)
  return ("%s kernel in %s%s at %s%s (%s, best repetition)"):format(d.kernel or "?", (d.precision or "fp64"):upper(),
    d.stores and (" with " .. d.stores .. " stores") or "", fmt.bytes(d.working_set_bytes or 0),
    d.threads and (", %d threads"):format(d.threads) or "", d.source or "?")
end

-- The run's sustained GEMM rate of a device and precision, the one every section quotes for that
-- idea: the fastest GEMM of the run, best repetition, among the precision experiment's GEMMs and
-- the model calibration's matmul ceiling (which takes the fastest measured before it, and is
-- measured again when an op beats it). {gflops, m, n, k, source, remeasured} or nil.
function M.gemm_rate(results, device, prec)
  local best
  local function offer(g, m, n, k, source, remeasured)
    if g and (not best or g > best.gflops) then
      best = { gflops = g, m = m, n = n, k = k, source = source, remeasured = remeasured }
    end
  end
  for _, e in ipairs(R.experiments(results, "precision")) do
    for _, r in ipairs(e.results or {}) do
      if r.series == "gemm" and r.device == device and r.precision == prec and valid(r) and r.gflops_best then
        offer(r.gflops_best, r.m, r.n, r.k, ("the precision experiment's GEMM %s"):format(r.shape or ""))
      end
    end
  end
  for _, e in ipairs(R.experiments(results, "model")) do
    local cal = e.info and e.info.calibration
    local g = cal and cal.peak_flops and cal.peak_flops[prec]
    if cal and g and (cal.device or "cpu") == device then
      local pg, re = cal.peak_gemm or {}, cal.remeasured
      offer(g / 1e9, re and re.m or pg.m, re and re.n or pg.n, re and re.k or pg.k,
            re and "the model's calibration, re-measured" or ("the model's calibration (%s)"):format(pg.family or "its own GEMMs"),
            re ~= nil)
    end
  end
  return best
end

local function gemm_rates(results)
  local out = {}
  for _, dev in ipairs { "cpu", "gpu" } do
    for _, prec in ipairs { "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "nvfp4", "mxfp4" } do
      local g = M.gemm_rate(results, dev, prec)
      if g then
        out[#out + 1] = { device = dev, precision = prec, gflops = g.gflops, m = g.m, n = g.n, k = g.k, source = g.source,
                          kind = "measured" }
      end
    end
  end
  return out
end

local function knees(exps)
  local out = {}
  for _, e in ipairs(exps) do
    for _, r in ipairs(R.records(e, { series = "knee" })) do
      out[#out + 1] = { device = r.device, precision = r.precision, method = r.method,
                        ceiling_gbps = r.ceiling_gbps, ceiling_gflops = r.ceiling_gflops,
                        knee_flops_per_byte = r.knee_flops_per_byte, knee_is_lower_bound = r.knee_is_lower_bound }
    end
  end
  return out
end

local function overheads(exps)
  local out, missing = {}, {}
  for _, e in ipairs(exps) do
    for _, r in ipairs(R.records(e, { series = "overhead" })) do
      out[r.what .. "_s"] = r.seconds_median
    end
    for _, s in ipairs(e.skipped or {}) do
      if s.item:find("launch cost", 1, true) then missing.kernel_launch = s.reason end
    end
  end
  for what, reason in pairs(missing) do
    if not out[what .. "_s"] then out[what .. "_not_measured"] = reason end
  end
  return out
end

-- Precision items that were not measured, with their reasons (GPU without a device, ...).
local function not_measured(exps)
  local out = {}
  for _, e in ipairs(exps) do
    for _, s in ipairs(e.skipped or {}) do out[#out + 1] = { item = s.item, reason = s.reason } end
  end
  return out
end

-- Weight formats (the compress experiment): bits per weight with scales and indices, as its
-- scheme table states them, with what this run measured of each (CPU first, batch 1): the
-- speed-up of its weight-streaming product over dense FP32, the fraction of the read bandwidth,
-- the layer error and the trained model's loss change. What the model reads to project weight
-- precision and sparsity.
local function weight_formats(results)
  local out = {}
  for _, e in ipairs(R.experiments(results, "compress")) do
    local dev = e.device or "cpu"
    for _, s in ipairs(#(e.results or {}) > 0 and e.info and e.info.schemes or {}) do
      local f = { device = dev, scheme = s.scheme, bits_per_weight = s.bits_per_weight, density = s.density,
                  block = s.block, value_format = s.value_format, scale_format = s.scale_format, kind = "spec",
                  source = "the format's definition (quant_schemes[], src/exp/compress/quant.c)" }
      for _, r in ipairs(e.results or {}) do
        if r.scheme == s.scheme and valid(r) then
          if r.series == "gemv" and r.batch == 1 then
            f.speedup_vs_fp32, f.read_fraction, f.measured_bits_per_weight = r.speedup_vs_fp32, r.read_fraction_median,
              r.bits_per_weight
            f.read_fraction_dram = r.read_fraction_dram
          elseif r.series == "layer_error" then f.layer_error = r.rel_error
          elseif r.series == "model_loss" then f.loss_change = r.loss_change end
        end
      end
      out[#out + 1] = f
    end
  end
  return out
end

function M.build(results)
  local exps = {}
  for _, e in ipairs(R.experiments(results, "precision")) do
    if e.status == "complete" or e.status == "partial" then exps[#exps + 1] = e end
  end
  local pk, by = peaks(exps)
  local lad = ladder(results)
  local dram = {}
  for _, dev in ipairs { "cpu", "gpu" } do dram[#dram + 1] = M.dram(results, dev) end
  return {
    version = M.version,
    kind = "measured",
    note = "from this run's precision and bandwidth experiments; GFLOPS are 1e9 FLOP/s (peaks: medians, best "
      .. "repetition beside them; gemm_rates: the run's sustained GEMM rate, the fastest GEMM's best repetition), "
      .. "GB/s 1e9 bytes/s in bytes known to move (dram: read, write and mix ceilings), seconds per call",
    peaks = pk, gemm = gemm_surface(exps, by), gemm_rates = gemm_rates(results), bandwidth_ladder = lad, dram = dram,
    knees = knees(exps), overheads = overheads(exps), not_measured = not_measured(exps),
    weight_formats = weight_formats(results),
  }
end

return M
