-- sparkreport.sections.bandwidth: the memory-bandwidth section: method, this machine's one DRAM
-- bandwidth and its rule, bandwidth against working set per precision (cache sizes marked),
-- thread scaling, a summary table at the largest size (each kernel's fraction of the DRAM figure)
-- and a detail table per kernel. Draws from the bandwidth records only.
local ceilings = require "sparkreport.ceilings"
local fmt = require "sparkreport.format"
local marks = require "sparkreport.marks"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"

local S = {}

local KERNEL_ORDER = { "copy", "scale", "add", "triad", "read", "fill" }

local function present(recs, key, order)
  local seen, out = {}, {}
  for _, r in ipairs(recs) do seen[r[key]] = true end
  for _, v in ipairs(order) do if seen[v] then out[#out + 1] = v end end
  return out
end

local function sorted(recs, key)
  table.sort(recs, function(a, b) return a[key] < b[key] end)
  return recs
end

-- A chart series of the records that filter selects: x, y and the points that did not settle.
local function series_of(exp, filter, xkey, name)
  local recs = sorted(R.records(exp, filter), xkey)
  local xs, ys = {}, {}
  for _, r in ipairs(recs) do
    xs[#xs + 1] = r[xkey]
    ys[#ys + 1] = r.valid and r.gbps_best or 0 / 0
  end
  return { name = name, x = xs, y = ys, points = true, hollow = marks.hollow(recs) }
end

-- The bytes a record is known to have moved per second, as the DRAM rule counts them: cached
-- stores in the write-allocate view only where the machine showed a read for ownership (files
-- before that test: wherever stores are cached), STREAM's count for non-temporal stores and for
-- read; an older file's figure (legacy) is in STREAM's count throughout. A GPU's stores fetch
-- nothing (its L2 writes whole sectors unread): STREAM's count, whatever an older file says.
local function moved(r, d, gpu)
  local nt = r.stores and (r.stores:find("non") or r.stores == "nt" or r.stores:find("stream"))
  local wa = d.write_allocate
  if d.legacy or nt or gpu or r.kernel == "read" or (wa and wa.shown ~= true) then return r.gbps_best end
  return r.gbps_best_wa or r.gbps_best
end

-- Of the bytes each kernel moves, the share it reads (src/measure/dram.h's mixes).
local READ_SHARE = { read = 1, add = 2 / 3, triad = 2 / 3, copy = 1 / 2, scale = 1 / 2, fill = 0 }

-- The DRAM ceiling of a kernel's own mix (read, write, or read and write in its proportion):
-- info.dram's ceilings; files before them: the one figure.
local function mix_ceiling(d, kernel)
  for _, c in ipairs(d.ceilings or {}) do
    if READ_SHARE[kernel] and math.abs(c.read_share - READ_SHARE[kernel]) < 1e-9 then return c.gbps end
  end
  return d.gbps
end

-- A record's fraction of the ceiling of its mix: only at the DRAM-sized working set (at_dram),
-- where the ceilings are ceilings.
local function of_dram(mk, r, d, at_dram, gpu)
  if not d then return "no figure" end
  if not at_dram then return "in cache" end
  return mk:fraction_cell(moved(r, d, gpu), gpu and d.gbps or mix_ceiling(d, r.kernel), "GB/s",
                          ("%s %s at %s"):format(r.kernel, r.precision, fmt.bytes(r.working_set_bytes)))
end

local function cache_marks(info)
  local marks = {}
  for level, bytes in ipairs(info.cache_levels_bytes or {}) do
    if bytes > 0 then marks[#marks + 1] = { x = bytes, label = "L" .. level } end
  end
  if info.dram_threshold_bytes then marks[#marks + 1] = { x = info.dram_threshold_bytes, label = "4x caches" } end
  return marks
end

-- The one DRAM figure of the device, its rule and where it came from.
local function dram_text(doc, d, device)
  if not d then
    doc:paragraph(("DRAM bandwidth (%s): not measured in this run."):format(device:upper()), "note")
    return
  end
  doc:paragraph(("DRAM bandwidth of this machine (%s), the one figure every section uses: %s GB/s, the %s. Rule: %s.")
    :format(device:upper(), fmt.rate(d.gbps), ceilings.dram_text(d), d.rule))
  if d.read_gbps or d.write_gbps or d.mix_gbps then
    local parts = {}
    for _, c in ipairs(d.ceilings or {}) do
      parts[#parts + 1] = ("%s %s GB/s (%s %s, %s)"):format(c.mix, fmt.rate(c.gbps), c.kernel or "?",
        (c.precision or "?"):upper(), c.stores == "none" and "no stores" or ((c.stores or "?") .. " stores"))
    end
    doc:paragraph(("Its ceilings by mix of reads and writes, what each op is judged against (a weight stream against "
      .. "the read ceiling): %s. Bytes counted: %s.%s"):format(table.concat(parts, "; "),
      ceilings.counted_text(d) or "as STREAM counts them",
      d.read_raised and (" Re-measured: the read ceiling was " .. d.read_raised .. ".") or ""))
  end
end

local function method(doc, exp)
  local info, p = exp.info or {}, exp.params
  local kinds = {}
  for _, k in ipairs(info.kernels or {}) do kinds[#kinds + 1] = ("%s (%s)"):format(k.name, k.formula) end
  doc:paragraph(("Kernels: %s, with s = 3. Bytes are counted as STREAM counts them: %s. Each kernel's output "
    .. "is checked element by element against a plain reference before any time counts (tolerance 1e-12 for "
    .. "FP64, 1e-5 for FP32). Repetitions continue until the coefficient of variation of the times is below "
    .. "%s or the time share is spent (at least %d, after %d warm-up); the headline rate is the best repetition "
    .. "(the STREAM convention), with the median beside it. Arrays are 2 MiB aligned and %s.")
    :format(table.concat(kinds, ", "), info.byte_convention or "", fmt.cv(p.cv), p.min_reps, p.warmup,
            p.first_touch and "first-touched by the threads that time them" or "initialised by the main thread"))
  doc:paragraph(("Caches (%s): %s in all; the largest working set, %s, is %s the DRAM threshold of %s "
    .. "(each array 4x all caches, 256 MiB at least). Up to %d threads; timer tick %s.")
    :format(info.caches_source or "?", fmt.bytes(info.caches_total_bytes or 0), fmt.bytes(info.largest_bytes or 0),
            (info.largest_bytes or 0) >= (info.dram_threshold_bytes or 0) * 0.999 and "at or above" or "below",
            fmt.bytes(info.dram_threshold_bytes or 0), info.threads_max or 0, fmt.seconds(info.timer_tick_s or 0)),
    "small")
end

-- The store kinds of kernel k's records (false: records that name none), in first-seen order.
local function stores_of(recs, k)
  local out, seen = {}, {}
  for _, r in ipairs(recs) do
    local st = r.stores or false
    if r.kernel == k and not seen[st] then seen[st] = true; out[#out + 1] = st end
  end
  return out
end

-- One chart per precision; `only` (1 or 2) draws the first precision, or the ones after it.
local function size_charts(doc, exp, only)
  local recs = R.records(exp, { series = "size" })
  for i, prec in ipairs(present(recs, "precision", { "fp64", "fp32" })) do
    if only == nil or (only == 1) == (i == 1) then
    local series = {}
    for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
      for _, st in ipairs(stores_of(recs, k)) do
        series[#series + 1] = series_of(exp, { series = "size", precision = prec, kernel = k, stores = st or nil },
                                        "working_set_bytes", st and (k .. ", " .. st .. " stores") or k)
      end
    end
    local gpu = exp.device == "gpu"
    doc:chart {
      title = gpu and ("GPU bandwidth against working set, %s, device memory (measured, best repetition)"):format(prec:upper())
              or ("Bandwidth against working set, %s, %d threads (measured, best repetition)")
                 :format(prec:upper(), exp.info.threads_max or 0),
      x = { label = "working set: bytes the kernel names per pass", log = 2, format = "bytes" },
      y = { label = "bandwidth (GB/s)" },
      series = series,
      marks = gpu and { { x = exp.info.l2_bytes, label = "L2" } } or cache_marks(exp.info or {}),
      caption = marks.hollow_caption(series, gpu and "Dashed line: the GPU's L2 cache."
                or "Dashed lines: aggregate capacity of each cache level over all CPUs, and the DRAM threshold."),
    }
    end
  end
end

-- A per-cluster series' name: the kind of core its CPUs are (context.cpu.core_kinds, GB10's
-- Cortex-X925 and Cortex-A725), else its CPU list.
local function cluster_name(results, cpus)
  local cpu = results and results.context and results.context.cpu
  for _, k in ipairs(type(cpu) == "table" and type(cpu.core_kinds) == "table" and cpu.core_kinds or {}) do
    if type(k) == "table" and k.cpus == cpus and type(k.name) == "string" then
      return ("triad, %s cores (CPUs %s)"):format(k.name, cpus)
    end
  end
  return "triad, CPUs " .. cpus
end

local function scaling_chart(doc, exp, results)
  local recs = R.records(exp, { series = "threads" })
  if #recs == 0 then return end
  local prec = present(recs, "precision", { "fp64", "fp32" })[1]
  local series = {}
  for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
    series[#series + 1] = series_of(exp, { series = "threads", precision = prec, kernel = k }, "threads", k)
  end
  for _, r in ipairs(R.records(exp, { series = "cluster", precision = prec, kernel = "triad" })) do
    local name = cluster_name(results, r.cpus)
    local found
    for _, s in ipairs(series) do if s.name == name then found = s end end
    if not found then
      local s = series_of(exp, { series = "cluster", precision = prec, kernel = "triad", cpus = r.cpus }, "threads", name)
      s.dashed = true
      series[#series + 1] = s
    end
  end
  doc:chart {
    title = ("Thread scaling at %s, %s (measured, best repetition)"):format(fmt.bytes(recs[1].array_bytes * 3), prec:upper()),
    x = { label = "threads", min = 1 }, y = { label = "bandwidth (GB/s)" }, series = series,
    caption = marks.hollow_caption(series),
  }
end

local function top_row(mk, r, d, with_stores, at_dram, gpu)
  local what = ("%s %s at %s"):format(r.kernel, r.precision, fmt.bytes(r.working_set_bytes))
  local row = { r.kernel, r.precision }
  if r.valid then
    for _, c in ipairs { fmt.rate(r.gbps_best), fmt.rate(r.gbps_median) } do row[#row + 1] = c end
    if with_stores then row[#row + 1] = r.stores or "" end
    -- a GPU has no write-allocate view: the column stays empty and the table drops it
    for _, c in ipairs { gpu and "" or fmt.rate(r.gbps_best_wa), of_dram(mk, r, d, at_dram, gpu), mk:settled(fmt.cv(r.time_s.cv), r, what),
                         ("%d"):format(#r.samples_s), "valid" } do row[#row + 1] = c end
    return row
  end
  for _, c in ipairs { "not timed", "" } do row[#row + 1] = c end
  if with_stores then row[#row + 1] = r.stores or "" end
  for _, c in ipairs { "", "", "", "", { text = "FAILED", tone = "bad" } } do row[#row + 1] = c end
  return row
end

local function top_columns(with_stores)
  local cols = { { title = "Kernel", width = 0.09 }, { title = "Precision", width = 0.11 },
                 { title = "Best\nGB/s", align = "right", width = 0.08 }, { title = "Median\nGB/s", align = "right", width = 0.09 } }
  if with_stores then cols[#cols + 1] = { title = "Stores", width = 0.14 } end
  for _, c in ipairs { { title = "Write-\nallocate\nGB/s", align = "right", width = with_stores and 0.1 or 0.11 },
                       { title = "Of its mix's\nceiling", align = "right", width = with_stores and 0.12 or 0.18 },
                       { title = "CV", align = "right", width = with_stores and 0.07 or 0.1 },
                       { title = "Reps", align = "right", width = 0.07 },
                       { title = "Validation" } } do cols[#cols + 1] = c end
  return cols
end

local function top_table(doc, exp, mk, d)
  local recs = R.records(exp, { series = "size" })
  local top, with_stores, ws = 0, false, 0
  for _, r in ipairs(recs) do top = math.max(top, r.array_bytes); ws = math.max(ws, r.working_set_bytes) end
  local at_dram = d and (d.legacy or ws >= (d.working_set_bytes or 0) * 0.999)
  local rows = {}
  for _, prec in ipairs(present(recs, "precision", { "fp64", "fp32" })) do
    for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
      for _, r in ipairs(R.records(exp, { series = "size", precision = prec, kernel = k })) do
        if r.array_bytes == top then rows[#rows + 1] = r; with_stores = with_stores or r.stores ~= nil end
      end
    end
  end
  local gpu = exp.device == "gpu"
  for i, r in ipairs(rows) do rows[i] = top_row(mk, r, d, with_stores and not gpu, at_dram, gpu) end
  doc:table {
    columns = top_columns(with_stores and not gpu),
    rows = rows,
    caption = mk:caption(("At the largest working set (%s in three arrays), %s; all figures measured on this run. Of its "
      .. "mix's ceiling: the bytes the kernel is known to have moved (%s) over %s.")
      :format(fmt.bytes(top * 3), gpu and "device memory" or "all threads",
              gpu and "the arrays it names: a GPU's stores fetch nothing, there is no write-allocate view"
                  or "the write-allocate view only where this machine showed a read for ownership",
              d and (gpu and (fmt.rate(d.gbps) .. " GB/s, the DRAM bandwidth above")
                          or "the ceiling of the same mix of reads and writes above (read, write, or both)")
                or "a DRAM figure this run lacks")),
  }
end

local function detail_tables(doc, exp, mk)
  local recs = R.records(exp, { series = "size" })
  for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
    doc:section("Detail: " .. k, 2)
    local rows = {}
    for _, prec in ipairs(present(recs, "precision", { "fp64", "fp32" })) do
      for _, r in ipairs(sorted(R.records(exp, { series = "size", precision = prec, kernel = k }), "working_set_bytes")) do
        local what = ("%s %s at %s%s"):format(k, prec, fmt.bytes(r.working_set_bytes), r.stores and (", " .. r.stores .. " stores") or "")
        rows[#rows + 1] = r.valid
          and { prec, fmt.bytes(r.working_set_bytes), fmt.rate(r.gbps_best), fmt.rate(r.gbps_median),
                mk:settled(fmt.cv(r.time_s.cv), r, what),
                ("%s .. %s"):format(fmt.seconds(r.time_s.ci95_lo), fmt.seconds(r.time_s.ci95_hi)),
                ("%d"):format(#r.samples_s), r.stores and ("valid, " .. r.stores) or "valid" }
          or { prec, fmt.bytes(r.working_set_bytes), "not timed", "", "", "", "", { text = "FAILED", tone = "bad" } }
      end
    end
    doc:table {
      columns = { { title = "Precision", width = 0.11 }, { title = "Working set", align = "right", width = 0.13 },
                  { title = "Best\nGB/s", align = "right", width = 0.1 }, { title = "Median\nGB/s", align = "right", width = 0.1 },
                  { title = "CV", align = "right", width = 0.11 },
                  { title = "95 % CI of the mean\ntime per pass", align = "right", width = 0.24 },
                  { title = "Reps", align = "right", width = 0.07 }, { title = "Validation", width = 0.14 } },
      rows = rows,
      caption = mk:caption(nil),
    }
  end
end

local function skipped(doc, exp)
  if #(exp.skipped or {}) == 0 then return end
  local rows = {}
  for _, s in ipairs(exp.skipped) do rows[#rows + 1] = { s.item, s.reason } end
  doc:table { columns = { { title = "Not measured", width = 0.35 }, { title = "Why" } }, rows = rows }
end

local function cpu_part(doc, results, exp)
  local mk, d = marks.new(), ceilings.dram(results, "cpu")
  method(doc, exp)
  dram_text(doc, d, "cpu")
  size_charts(doc, exp, 1)
  top_table(doc, exp, mk, d)
  mk:defects(doc)
  skipped(doc, exp)
  local label = appendix.defer(doc, "Bandwidth: thread scaling, and per kernel and working-set size", function(d2)
    scaling_chart(d2, exp, results)
    size_charts(d2, exp, 2)
    detail_tables(d2, exp, marks.new())
  end)
  doc:paragraph(("Thread scaling, the other precisions' sweep, and every kernel at every working-set size with its statistics and "
    .. "validation: %s."):format(label), "small")
end

function S.bandwidth(doc, results)
  doc:section("Memory bandwidth")
  local exps, none = R.family(results, "bandwidth")
  if not exps then return doc:paragraph(none) end
  local gpu = require "sparkreport.sections.bandwidth_gpu"
  for _, exp in ipairs(exps) do
    if exp.status == "partial" then          -- a stopped run: draw what was measured, say so
      doc:paragraph(("Partial (%s): %s."):format(exp.device or "?", exp.note or "the run stopped early"), "note")
    end
    local nothing = exp.status == "complete" and R.skipped_reason(exp)      -- a file from before "skipped"
    if nothing or (exp.status ~= "complete" and exp.status ~= "partial") then
      doc:paragraph(("%s memory bandwidth: not measured: %s"):format(exp.device == "gpu" and "GPU" or "CPU",
        (nothing or exp.reason or exp.error or exp.status):gsub("^not measured: ", "")))
    elseif exp.device == "gpu" then
      local function gpu_top(d2, e)
        local mk = marks.new()
        top_table(d2, e, mk, ceilings.dram(results, "gpu"))
        mk:defects(d2)
      end
      gpu.part(doc, results, exp, { size_charts = size_charts, top_table = gpu_top, skipped = skipped })
    else
      cpu_part(doc, results, exp)
    end
  end
end

return S
