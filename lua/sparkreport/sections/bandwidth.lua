-- sparkreport.sections.bandwidth: the memory-bandwidth section: method, bandwidth against
-- working set per precision (cache sizes marked), thread scaling, a summary table at the
-- largest size and a detail table per kernel. Draws from the bandwidth records only.
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

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

local function series_of(exp, filter, xkey)
  local recs = sorted(R.records(exp, filter), xkey)
  local xs, ys = {}, {}
  for _, r in ipairs(recs) do
    xs[#xs + 1] = r[xkey]
    ys[#ys + 1] = r.valid and r.gbps_best or 0 / 0
  end
  return xs, ys
end

local function cache_marks(info)
  local marks = {}
  for level, bytes in ipairs(info.cache_levels_bytes or {}) do
    if bytes > 0 then marks[#marks + 1] = { x = bytes, label = "L" .. level } end
  end
  if info.dram_threshold_bytes then marks[#marks + 1] = { x = info.dram_threshold_bytes, label = "4x caches" } end
  return marks
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

local function size_charts(doc, exp)
  local recs = R.records(exp, { series = "size" })
  for _, prec in ipairs(present(recs, "precision", { "fp64", "fp32" })) do
    local series = {}
    for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
      local xs, ys = series_of(exp, { series = "size", precision = prec, kernel = k }, "working_set_bytes")
      series[#series + 1] = { name = k, x = xs, y = ys, points = true }
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
      caption = gpu and "Dashed line: the GPU's L2 cache."
                or "Dashed lines: aggregate capacity of each cache level over all CPUs, and the DRAM threshold.",
    }
  end
end

local function scaling_chart(doc, exp)
  local recs = R.records(exp, { series = "threads" })
  if #recs == 0 then return end
  local prec = present(recs, "precision", { "fp64", "fp32" })[1]
  local series = {}
  for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
    local xs, ys = series_of(exp, { series = "threads", precision = prec, kernel = k }, "threads")
    series[#series + 1] = { name = k, x = xs, y = ys, points = true }
  end
  for _, r in ipairs(R.records(exp, { series = "cluster", precision = prec, kernel = "triad" })) do
    local name = "triad, CPUs " .. r.cpus
    local found
    for _, s in ipairs(series) do if s.name == name then found = s end end
    if not found then
      local xs, ys = series_of(exp, { series = "cluster", precision = prec, kernel = "triad", cpus = r.cpus }, "threads")
      series[#series + 1] = { name = name, x = xs, y = ys, points = true, dashed = true }
    end
  end
  doc:chart {
    title = ("Thread scaling at %s, %s (measured, best repetition)"):format(fmt.bytes(recs[1].array_bytes * 3), prec:upper()),
    x = { label = "threads", min = 1 }, y = { label = "bandwidth (GB/s)" }, series = series,
  }
end

local function top_table(doc, exp)
  local recs = R.records(exp, { series = "size" })
  local top = 0
  for _, r in ipairs(recs) do top = math.max(top, r.array_bytes) end
  local rows = {}
  for _, prec in ipairs(present(recs, "precision", { "fp64", "fp32" })) do
    for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
      for _, r in ipairs(R.records(exp, { series = "size", precision = prec, kernel = k })) do
        if r.array_bytes == top then
          rows[#rows + 1] = r.valid
            and { k, prec, fmt.rate(r.gbps_best), fmt.rate(r.gbps_median), fmt.rate(r.gbps_best_wa),
                  fmt.cv(r.time_s.cv), ("%d"):format(#r.samples_s), "valid" }
            or { k, prec, "not timed", "", "", "", "", { text = "FAILED", tone = "bad" } }
        end
      end
    end
  end
  doc:table {
    columns = { { title = "Kernel", width = 0.11 }, { title = "Precision", width = 0.12 },
                { title = "Best\nGB/s", align = "right", width = 0.12 },
                { title = "Median\nGB/s", align = "right", width = 0.12 },
                { title = "Write-allocate\nview, GB/s", align = "right", width = 0.18 },
                { title = "CV", align = "right", width = 0.1 }, { title = "Reps", align = "right", width = 0.1 },
                { title = "Validation", width = 0.15 } },
    rows = rows,
    caption = ("At the largest working set (%s in three arrays), %s; all figures measured on this run.")
              :format(fmt.bytes(top * 3), exp.device == "gpu" and "device memory" or "all threads"),
  }
end

local function detail_tables(doc, exp)
  local recs = R.records(exp, { series = "size" })
  for _, k in ipairs(present(recs, "kernel", KERNEL_ORDER)) do
    doc:section("Detail: " .. k, 2)
    local rows = {}
    for _, prec in ipairs(present(recs, "precision", { "fp64", "fp32" })) do
      for _, r in ipairs(sorted(R.records(exp, { series = "size", precision = prec, kernel = k }), "working_set_bytes")) do
        rows[#rows + 1] = r.valid
          and { prec, fmt.bytes(r.working_set_bytes), fmt.rate(r.gbps_best), fmt.rate(r.gbps_median),
                fmt.cv(r.time_s.cv), ("%s .. %s"):format(fmt.seconds(r.time_s.ci95_lo), fmt.seconds(r.time_s.ci95_hi)),
                ("%d"):format(#r.samples_s), "valid" }
          or { prec, fmt.bytes(r.working_set_bytes), "not timed", "", "", "", "", { text = "FAILED", tone = "bad" } }
      end
    end
    doc:table {
      columns = { { title = "Precision", width = 0.11 }, { title = "Working set", align = "right", width = 0.13 },
                  { title = "Best\nGB/s", align = "right", width = 0.1 }, { title = "Median\nGB/s", align = "right", width = 0.1 },
                  { title = "CV", align = "right", width = 0.09 },
                  { title = "95 % CI of the mean\ntime per pass", align = "right", width = 0.26 },
                  { title = "Reps", align = "right", width = 0.07 }, { title = "Validation", width = 0.14 } },
      rows = rows,
    }
  end
end

local function skipped(doc, exp)
  if #(exp.skipped or {}) == 0 then return end
  local rows = {}
  for _, s in ipairs(exp.skipped) do rows[#rows + 1] = { s.item, s.reason } end
  doc:table { columns = { { title = "Not measured", width = 0.35 }, { title = "Why" } }, rows = rows }
end

local function cpu_part(doc, exp)
  method(doc, exp)
  size_charts(doc, exp)
  top_table(doc, exp)
  scaling_chart(doc, exp)
  skipped(doc, exp)
  detail_tables(doc, exp)
end

function S.bandwidth(doc, results)
  doc:section("Memory bandwidth")
  local exps = R.experiments(results, "bandwidth")
  if #exps == 0 then
    doc:paragraph("Not measured: the scenario has no bandwidth experiment.")
    return
  end
  local gpu = require "sparkreport.sections.bandwidth_gpu"
  for _, exp in ipairs(exps) do
    if exp.status == "partial" then          -- a stopped run: draw what was measured, say so
      doc:paragraph(("Partial (%s): %s."):format(exp.device or "?", exp.note or "the run stopped early"), "note")
    end
    if exp.status ~= "complete" and exp.status ~= "partial" then
      doc:paragraph(("Not measured (%s): %s"):format(exp.device or "?", exp.error or exp.status))
    elseif exp.device == "gpu" then
      gpu.part(doc, results, exp, { size_charts = size_charts, top_table = top_table, skipped = skipped })
    else
      cpu_part(doc, exp)
    end
  end
end

return S
