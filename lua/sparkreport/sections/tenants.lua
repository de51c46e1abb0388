-- sparkreport.sections.tenants: shared use. Measured here: N jobs at once on this machine (the
-- tenants experiment: each tenant a separate process running a bandwidth stream or a training
-- step), each tenant's slowdown against running alone and its share of the alone bandwidth, per N,
-- with the machine's load beside them. Projected for the DGX Spark: how many people can share one
-- (the model experiment's "tenants" records: per workload the largest N whose job still fits its
-- share of the pool, and the hours per job at N = 1, 2 and 4 with their band) and on what basis
-- (info.tenants_basis). Draws from the results only.
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"
local marks = require "sparkreport.marks"

local S = {}

local JOBS = { stream = "bandwidth stream", train = "training step" }

local function m(text) return { text = text, kind = "measured" } end
local function p(text) return { text = text, kind = "projected" } end
local function factor(x) return fmt.rate(x) .. "x" end
local function cap(s) return (s:gsub("^%l", string.upper)) end

-- The valid, timed records of one job and count, in tenant order.
local function round(e, series, n)
  local out = {}
  for _, r in ipairs(R.records(e, { series = series, tenants = n })) do
    if r.valid and r.slowdown then out[#out + 1] = r end
  end
  table.sort(out, function(a, b) return a.tenant < b.tenant end)
  return out
end

local function total(e, series, n)
  for _, t in ipairs(e.info and e.info.totals or {}) do
    if t.series == series and t.tenants == n then return t end
  end
end

local function counts(e, series)
  local seen, out = {}, {}
  for _, r in ipairs(R.records(e, { series = series })) do
    if not seen[r.tenants] then seen[r.tenants] = true; out[#out + 1] = r.tenants end
  end
  table.sort(out)
  return out
end

-- "1.02–1.10x", "10.4–13.4 ms": the range over a round's tenants, the unit once when both ends have
-- it (one figure when they agree to the digits shown).
local function range(recs, field, fn)
  local lo, hi = math.huge, -math.huge
  for _, r in ipairs(recs) do lo, hi = math.min(lo, r[field]), math.max(hi, r[field]) end
  local a, b = fn(lo), fn(hi)
  if a == b then return a end
  local na, ua = a:match("^([%d.,]+)%s*(%D*)$")
  local nb, ub = b:match("^([%d.,]+)%s*(%D*)$")
  if na and nb and ua == ub then return ("%s–%s%s%s"):format(na, nb, ua ~= "" and ua ~= "x" and " " or "", ua) end
  return a .. "–" .. b
end

local function load_of(e, series, n)
  for _, x in ipairs(e.info and e.info.rounds or {}) do
    if x.series == series and x.tenants == n and x.load_avg then return fmt.rate(x.load_avg) end
  end
  return "n/a"
end

-- When tenants sharing the machine ran faster than the one alone (a share above 110 %), the words
-- that say why the figure is not about sharing: the machine's other processes held the alone round
-- up (its load average, the CPUs); nil when none did.
local function disturbed(e, series)
  for _, r in ipairs(R.records(e, { series = series })) do
    if r.valid and r.tenants > 1 and r.share and r.share > 1.1 then
      return ("above 100 %%: the tenant alone was held up more by the machine's other processes (load average %s "
        .. "on %d CPUs before its round) than the tenants sharing it, so these figures say more about that load "
        .. "than about sharing"):format(load_of(e, series, 1), e.info and e.info.cpus or 0)
    end
  end
end

-- One row per job and count: each tenant's median time, slowdown and share, the shares together.
local function measured_table(doc, e, mk)
  local rows = {}
  for _, series in ipairs { "stream", "train" } do
    for _, n in ipairs(counts(e, series)) do
      local recs, t = round(e, series, n), total(e, series, n)
      if #recs > 0 and t then
        for _, r in ipairs(recs) do r.median_s = r.time_s.median end
        local time = range(recs, "median_s", fmt.seconds)
        local dagger = ""
        for _, r in ipairs(recs) do     -- every tenant that did not settle in the footnote, one mark on the row
          if mk:settled("", r, ("%s, tenant %d of %d"):format(series, r.tenant, n)) ~= "" then dagger = " " .. marks.DAGGER end
        end
        time = time .. dagger
        rows[#rows + 1] = {
          JOBS[series], ("%d"):format(n), ("%d"):format(recs[1].threads or 0), m(time),
          m(range(recs, "slowdown", factor)),
          series == "stream" and m(range(recs, "gbps_median", fmt.rate)) or "",
          m(range(recs, "share", fmt.pct)), m(fmt.pct(t.share_sum)), load_of(e, series, n) }
      end
    end
  end
  if #rows == 0 then return false end
  doc:table {
    columns = { { title = "Job", width = 0.15 }, { title = "N", align = "right", width = 0.04 },
                { title = "Threads each", align = "right", width = 0.08 },
                { title = "Time per repetition, each", align = "right", width = 0.17 },
                { title = "Slowdown each", align = "right", width = 0.12 },
                { title = "GB/s each", align = "right", width = 0.1 },
                { title = "Share of alone each", align = "right", width = 0.12 },
                { title = "Together", align = "right", width = 0.09 }, { title = "Load avg", align = "right" } },
    rows = rows,
    caption = mk:caption("Measured: N tenants (separate processes) running the same job at once; each column's range "
      .. "runs over the N tenants. Time: median of a tenant's repetitions (a stream pass, an optimizer step). Slowdown: a tenant's median over the alone "
      .. "tenant's (N = 1); share: the inverse, what it kept of the alone throughput (for the stream, of the "
      .. "alone GB/s); together: the N shares added (100 %: together they did what one did alone). Load avg: the "
      .. "machine's one-minute load average before the round (its other processes were not stopped)."),
  }
  return true
end

-- Mean slowdown against N per job, the tenants' spread as error bars, beside N itself (an even split).
local function slowdown_chart(doc, e)
  local series, all = {}, {}
  for _, s in ipairs { "stream", "train" } do
    local xs, ys, lo, hi = {}, {}, {}, {}
    for _, n in ipairs(counts(e, s)) do
      local recs, t = round(e, s, n), total(e, s, n)
      if #recs > 0 and t then
        local a, b = math.huge, -math.huge
        for _, r in ipairs(recs) do a, b = math.min(a, r.slowdown), math.max(b, r.slowdown) end
        xs[#xs + 1], ys[#ys + 1], lo[#lo + 1], hi[#hi + 1] = n, t.slowdown_mean, a, b
        all[n] = true
      end
    end
    if #xs > 1 then series[#series + 1] = { name = JOBS[s] .. " (measured)", x = xs, y = ys, lo = lo, hi = hi } end
  end
  if #series == 0 then return end
  local ns = {}
  for n in pairs(all) do ns[#ns + 1] = n end
  table.sort(ns)
  series[#series + 1] = { name = "N (an even split of the machine)", x = ns, y = ns, dashed = true }
  doc:chart {
    title = "Slowdown of each tenant against the tenants at once (measured on this machine)",
    x = { label = "tenants at once (N)", log = 2 }, y = { label = "slowdown against alone", log = 2 },
    series = series,
    caption = "Points: the tenants' mean slowdown; bars: the slowest and fastest tenant. Dashed: N, what each "
      .. "tenant would see if the machine split evenly and nothing else was lost.",
  }
end

local function failures(doc, e)
  local rows, seen = {}, {}
  for _, r in ipairs(e.results or {}) do
    if not r.valid then
      local key = r.series .. (r.error or "?")
      if not seen[key] then
        seen[key] = true
        rows[#rows + 1] = { ("%s, N = %d"):format(JOBS[r.series] or r.series, r.tenants), { text = r.error or "failed",
                            tone = "bad" } }
      end
    end
  end
  for _, x in ipairs(R.not_measured({ e }, function() return "every job" end)) do
    rows[#rows + 1] = { x.items, { text = x.reason, tone = "bad" } }
  end
  if #rows > 0 then doc:table { columns = { { title = "Not measured", width = 0.35 }, { title = "Why" } }, rows = rows } end
end

local function measured(doc, results)
  local exps = R.experiments(results, "tenants")
  if #exps == 0 then
    doc:paragraph("Not measured: the scenario has no tenants experiment (sr.tenants).")
    return
  end
  for _, e in ipairs(exps) do
    local info, mk = e.info or {}, marks.new()
    local where = e.device == "gpu" and "the GPU" or "the CPU"
    if #(e.results or {}) > 0 then
      doc:paragraph(("On %s: %s. %s.%s"):format(where, info.isolation or "separate processes", info.threads_rule or "",
        info.size_rule and info.size_rule ~= "" and (" Stream working set: " .. info.size_rule .. ".") or ""), "small")
    else
      doc:paragraph(("On %s:"):format(where), "small")
    end
    if measured_table(doc, e, mk) then slowdown_chart(doc, e) end
    for _, series in ipairs { "stream", "train" } do
      local why = disturbed(e, series)
      if why then doc:paragraph(("%s: some tenants kept a share %s."):format(cap(JOBS[series]), why), "small") end
    end
    failures(doc, e)
  end
end

-- ---- the DGX Spark, projected ----

local function spark_records(e)
  local by, order = {}, {}
  for _, r in ipairs(R.records(e, { series = "tenants" })) do
    if not by[r.workload] then by[r.workload] = {}; order[#order + 1] = r.workload end
    by[r.workload][r.tenants] = r
  end
  return by, order
end

-- "41.9 h (28.2–48.5)": hours with the band in the same unit.
local function hours_cell(r, alone)
  if not r then return alone and alone.fits == false and "" or "" end
  if not r.fits then return p(r.tenants == 1 and "does not fit alone" or "does not fit") end
  if not r.hours then return "not projected" end
  return p(("%s (%s–%s)"):format(fmt.hours(r.hours), fmt.hours(r.hours_low, ""), fmt.hours(r.hours_high, "")))
end

-- The largest N whose tenant's job fits its share (and that of every count below it).
local function largest(recs)
  local best
  for _, n in ipairs { 1, 2, 3, 4, 6, 8 } do
    if recs[n] and recs[n].fits then best = n elseif recs[n] then break end
  end
  return best
end

local function projected(doc, results)
  doc:section("Projected for the DGX Spark", 2)
  for _, e in ipairs(R.experiments(results, "model")) do
    local by, order = spark_records(e)
    if #order > 0 then
      local rows, names = {}, {}
      for _, w in ipairs((e.info or {}).workloads or {}) do names[w.id] = w.name end
      for _, w in ipairs(order) do
        local recs, n = by[w], largest(by[w])
        rows[#rows + 1] = { names[w] or w, p(("%d"):format(n or 0)), hours_cell(recs[1]), hours_cell(recs[2]), hours_cell(recs[4]) }
      end
      doc:table {
        columns = { { title = "Workload", width = 0.28 }, { title = "Most that fit", align = "right", width = 0.09 },
                    { title = "Hours per job, alone", align = "right", width = 0.2 },
                    { title = "2 at once", align = "right", width = 0.21 }, { title = "4 at once", align = "right" } },
        rows = rows,
        caption = "Projected: hours of one person's job, band in brackets, when N people run a job each on one DGX "
          .. "Spark at once; most that fit: the largest of 1, 2, 3, 4, 6, 8 people whose jobs each fit their share of "
          .. "the pool (0: the job does not fit one Spark alone).",
      }
      if e.info and e.info.tenants_basis then doc:paragraph("Basis. " .. e.info.tenants_basis .. ".", "small") end
      return
    end
  end
  doc:paragraph("Not projected: the scenario has no model experiment that projects onto the DGX Spark.")
end

-- One sentence per job of the measurement: at each N > 1, what each tenant kept and all together.
local function summary(e)
  local parts = {}
  for _, series in ipairs { "stream", "train" } do
    local said = {}
    for _, n in ipairs(counts(e, series)) do
      local recs, t = round(e, series, n), total(e, series, n)
      if n > 1 and #recs > 0 and t then
        said[#said + 1] = ("%d at once each kept %s of the alone %s (together %s)"):format(n,
          range(recs, "share", fmt.pct), series == "stream" and "bandwidth" or "step rate", fmt.pct(t.share_sum))
      end
    end
    local why = disturbed(e, series)
    if #said > 0 then
      parts[#parts + 1] = ("%s: %s%s"):format(cap(JOBS[series]), table.concat(said, "; "), why and (" (" .. why .. ")") or "")
    end
  end
  if #parts == 0 then return nil end
  return ("Measured on this machine's %s. %s."):format(e.device == "gpu" and "GPU" or "CPU", table.concat(parts, ". "))
end

function S.tenants(doc, results)
  local exps = R.experiments(results, "tenants")
  local spark = #R.all_records(R.experiments(results, "model"), { series = "tenants" }) > 0
  if #exps == 0 and not spark then return end
  doc:section("Shared use: several jobs on one machine")
  doc:paragraph("How much each of N jobs running at once slows down: measured here with N tenants, each a separate "
    .. "process as separate users' jobs are, and projected for N people sharing one DGX Spark.")
  projected(doc, results)
  for _, e in ipairs(exps) do
    local text = summary(e)
    if text then
      doc:paragraph(text .. (" Each tenant's time, slowdown and share per N: %s."):format(
        require("sparkreport.annex").cite("Shared use measured on this machine")))
    end
  end
end

-- The technical annex's part: the measurement on the machine that ran the report.
function S.tenants_measured(doc, results)
  if #R.experiments(results, "tenants") == 0 then return end
  doc:section("Shared use measured on this machine")
  measured(doc, results)
end

return S
