-- sparkreport.sections.collective: beyond one box: the collectives measured across the ranks
-- mpirun started (bus bandwidth against size, ping-pong latency, with nccl-tests' formulas and
-- the job's ranks, hosts and transport), then the scale-out projection (the model experiment's
-- "scaleout" records: tokens/s on 1, 2, 4 and 8 devices with band, efficiency and the link's
-- source) and its stated assumptions. Draws from the results only.
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"
local appendix = require "sparkreport.appendix"

local S = {}

local OPS = { "all-reduce", "all-gather", "reduce-scatter" }
local COUNT = { "one", "two", "three", "four", "five", "six", "seven", "eight" }

local function m(text) return { text = text, kind = "measured" } end
-- GB/s: the report's rule, with two significant figures below 0.01 (small messages)
local function gbps(x) return x and x < 0.01 and ("%.2g"):format(x) or fmt.rate(x) end
local function p(text) return { text = text, kind = "projected" } end
-- device-buffer records (NCCL) beside the host ones (MPI): their own series and rows
local function tag(r) return r.buffers == "device" and " (device)" or "" end

local function job_text(info)
  local job = info.job
  if not job then return ("%d rank%s."):format(info.ranks or 1, (info.ranks or 1) == 1 and "" or "s") end
  local hosts = {}
  for _, h in ipairs(job.hosts or {}) do
    hosts[#hosts + 1] = ("rank %d on %s (%s)"):format(h.rank, h.host, h.interfaces ~= "" and h.interfaces or "no interface")
  end
  return ("%d ranks on %d host%s, started by %s: %s. Transport: %s.%s"):format(job.ranks, job.hosts_count,
    job.hosts_count == 1 and "" or "s", job.launcher or "?", table.concat(hosts, "; "), job.transport or "not known",
    job.transport_device and (" Device buffers: %s."):format(job.transport_device) or "")
end

local function method(doc, e)
  local info = e.info or {}
  doc:paragraph(job_text(info), "small")
  local f = info.formulas or {}
  local lines = {}
  for _, op in ipairs { "ping-pong", "all-reduce", "all-gather", "reduce-scatter" } do
    if f[op] then lines[#lines + 1] = ("%s: algbw = %s; %s"):format(op, f[op].algbw, f[op].busbw) end
  end
  doc:paragraph(("%s. %s."):format(info.convention or "nccl-tests' convention", table.concat(lines, ". ")), "small")
end

-- Bus bandwidth against size, one line per collective (medians, measured).
local function bus_chart(doc, e)
  local series = {}
  for _, buffers in ipairs { "host", "device" } do
    for _, op in ipairs(OPS) do
      local xs, ys = {}, {}
      for _, r in ipairs(R.records(e, { series = "collective", op = op, valid = true })) do
        if r.gbps_bus and (r.buffers or "host") == buffers then xs[#xs + 1], ys[#ys + 1] = r.bytes, r.gbps_bus end
      end
      if #xs > 0 then series[#series + 1] = { name = op .. (buffers == "device" and " (device)" or ""), x = xs, y = ys } end
    end
  end
  if #series == 0 then return end
  doc:chart {
    title = "Bus bandwidth against buffer size (measured, medians)",
    x = { label = "bytes (nccl-tests' size)", log = 2 }, y = { label = "bus bandwidth, GB/s", log = 10 },
    series = series,
    caption = "busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather and reduce-scatter: comparable "
      .. "with the link's one-way rate whatever the rank count.",
  }
end

local function latency_chart(doc, e)
  local series = {}
  for _, r in ipairs(R.records(e, { series = "p2p", valid = true })) do
    local name = ("ping-pong 0-%d%s"):format(r.peer or 1, tag(r))
    local s
    for _, x in ipairs(series) do if x.name == name then s = x end end
    if not s then s = { name = name, x = {}, y = {} }; series[#series + 1] = s end
    if r.latency_s then s.x[#s.x + 1], s.y[#s.y + 1] = r.bytes, r.latency_s * 1e6 end
  end
  if #series == 0 then return end
  doc:chart {
    title = "Point-to-point one-way time against message size (measured, medians)",
    x = { label = "message bytes", log = 2 }, y = { label = "one-way time, µs", log = 10 }, series = series,
    caption = "Half the round trip of a ping-pong between rank 0 and the peer.",
  }
end

local function results_table(doc, e)
  local rows = {}
  for _, r in ipairs(e.results or {}) do
    if r.valid == false then
      rows[#rows + 1] = { r.op .. tag(r), fmt.bytes(r.bytes), { text = "failed: " .. (r.error or "?"), tone = "bad" }, "", "" }
    elseif r.gbps_bus then
      rows[#rows + 1] = { r.op .. (r.peer and (" 0-" .. r.peer) or "") .. tag(r), fmt.bytes(r.bytes),
                          m(fmt.seconds(r.latency_s or (r.time_s and r.time_s.median))),
                          m(gbps(r.gbps_alg)), m(gbps(r.gbps_bus)) }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Operation", width = 0.28 }, { title = "Size", align = "right", width = 0.15 },
                { title = "Time", align = "right", width = 0.19 }, { title = "algbw GB/s", align = "right", width = 0.19 },
                { title = "busbw GB/s", align = "right" } },
    rows = rows,
    caption = "Medians over the repetitions; the time of an operation is the slowest rank's, after a barrier; every "
      .. "result was checked against the expected values before and after it was timed.",
  }
end

-- What was not measured; items that share a reason in one row.
local function skipped(doc, exps)
  local rows = {}
  for _, r in ipairs(R.not_measured(exps, function() return "collectives" end)) do
    rows[#rows + 1] = { r.items, { text = r.reason, tone = "bad" } }
  end
  if #rows == 0 then return end
  doc:table { columns = { { title = "Item", width = 0.35 }, { title = "Why" } }, rows = rows }
end

-- ---- scale-out projection (the model experiment's scaleout records) ----

local function system_names(e)
  local names = {}
  for _, s in ipairs(e.info and e.info.systems or {}) do names[s.id] = s.name end
  return names
end

-- n devices of a system: "Two Sparks" for the report's subject (data/systems.csv's roles)
local function label(names, subject, id, n)
  if id == subject then return ("%s Spark%s"):format(COUNT[n] or tostring(n), n > 1 and "s" or "") end
  local name = names[id] or id
  if n == 1 then return name end
  if n == 8 then return "8-GPU node, " .. name end
  return ("%d x %s"):format(n, name)
end

local function link_cell(r)
  local src = r.link_source or "?"
  local kind = src:find("^measured") and "measured" or src:find("^spec") and "spec" or nil
  return { text = fmt.rate((r.link_Bps or 0) / 1e9), kind = kind }
end

-- The systems a table shows: this machine and the scenario's `compare` list when it has one.
local function shown(results, id)
  local scn = results.scenario or {}
  local compare = scn.systems or scn.compare
  if id == "this" or type(compare) ~= "table" or #compare == 0 then return true end
  for _, c in ipairs(compare) do if c == id then return true end end
  return false
end

-- Scaling efficiency is a ratio of like configurations: a sharded N-device job (ZeRO) runs another
-- configuration than one device (sharding took away the offload or accumulation one device needed),
-- and so does one above 100 %: said as that, never as an efficiency.
local function changed(r)
  return r.devices > 1 and (r.scaling_efficiency > 1 or (type(r.sharding) == "string" and r.sharding:find("^ZeRO")))
end

local function eff_cell(r)
  if changed(r) then
    return { text = ("n/a: %s, not one device's configuration"):format(r.sharding or "another sharding") }
  end
  return p(fmt.pct(r.scaling_efficiency))
end

local function eff_band(r)
  if changed(r) then return "" end
  return p(("%.1f–%.1f %%"):format(100 * r.scaling_efficiency_low, 100 * math.min(1, r.scaling_efficiency_high)))
end

local function scale_row(names, subject, r)
  return { label(names, subject, r.system, r.devices), r.devices > 1 and link_cell(r) or "none",
           p(fmt.big(r.tokens_per_s)), p(("%s–%s"):format(fmt.big(r.tokens_per_s_low), fmt.big(r.tokens_per_s_high))),
           eff_cell(r), eff_band(r), p(fmt.hours(r.hours)) }
end

-- compact: Sparks at every count, the others at one device and a full node only, this CPU left out
local function scale_table(doc, results, e, wid, names, compact)
  local rows, subject = {}, R.roles(e).subject
  for _, r in ipairs(R.records(e, { series = "scaleout", workload = wid })) do
    local keep = not compact or r.system == subject or (r.system ~= "this" and (r.devices == 1 or r.devices == 8))
    if shown(results, r.system) and keep then rows[#rows + 1] = scale_row(names, subject, r) end
  end
  if #rows == 0 then return end
  doc:paragraph(wid, "bold")
  doc:table {
    columns = { { title = "Devices", width = 0.21 }, { title = "Link GB/s", align = "right", width = 0.09 },
                { title = "tokens/s", align = "right", width = 0.12 }, { title = "band", align = "right", width = 0.19 },
                { title = "efficiency", align = "right", width = 0.13 }, { title = "overlap range", align = "right",
                  width = 0.15 }, { title = "time", align = "right" } },
    rows = rows,
    caption = "Projected. Link: bus bandwidth each way per device (spec: data/fabric.csv; measured: this run's "
      .. "all-reduce between hosts). Efficiency = tokens/s on N devices / (N x tokens/s on one); overlap range: "
      .. "none of the traffic hidden to 90 %; the tokens/s band adds the single-device band.",
  }
end

local function fabric_sources(doc, results, e)
  local seen, parts = {}, {}
  for _, r in ipairs(R.records(e, { series = "scaleout" })) do
    if r.link_sources and not seen[r.system] and shown(results, r.system) then
      seen[r.system] = true
      parts[#parts + 1] = ("%s: %s (%s)"):format(r.system, r.link_source:gsub("^spec: ", ""), r.link_sources)
    end
  end
  if #parts > 0 then doc:paragraph("Links (spec): " .. table.concat(parts, "; ") .. ".", "small") end
end

-- tokens/s against devices, one line per system, for one workload.
local function scale_chart(doc, results, e, wid, names)
  local by, order, subject = {}, {}, R.roles(e).subject
  for _, r in ipairs(R.records(e, { series = "scaleout", workload = wid })) do
    if shown(results, r.system) then
      if not by[r.system] then
        by[r.system] = { name = label(names, subject, r.system, 1), x = {}, y = {} }; order[#order + 1] = r.system
      end
      local s = by[r.system]
      s.x[#s.x + 1], s.y[#s.y + 1] = r.devices, r.tokens_per_s
    end
  end
  local series = {}
  for _, id in ipairs(order) do if #series < 12 then series[#series + 1] = by[id] end end
  if #series == 0 then return end
  doc:chart {
    title = ("Projected scaling, %s: tokens/s against devices"):format(wid),
    x = { label = "devices (data parallel)", log = 2 }, y = { label = "tokens/s (projected)", log = 10 }, series = series,
    caption = "Central projections: one device's step plus the gradient traffic not hidden behind the backward pass.",
  }
end

local function not_projected(doc, e)
  local seen, why = {}, {}
  for _, s in ipairs(e.info and e.info.scaleout_not_projected or {}) do
    local key = s.system .. ": " .. s.reason
    if not seen[key] and #why < 12 then seen[key] = true; why[#why + 1] = key end
  end
  if #why > 0 then doc:paragraph("Not projected: " .. table.concat(why, "; ") .. ".", "small") end
end

local function assumptions(doc, e)
  local rules = e.info and e.info.scaleout_rules or {}
  local parts = {}
  for _, k in ipairs { "model", "traffic", "overlap", "link", "efficiency" } do
    if rules[k] then parts[#parts + 1] = ("%s: %s"):format(k, rules[k]) end
  end
  if #parts > 0 then doc:paragraph("Assumptions. " .. table.concat(parts, ". ") .. ".", "small") end
end

-- The workload the body shows: the first of the decision page's that was projected, else the first.
local function lead_workload(results, wids, seen)
  for _, w in ipairs(results.scenario and results.scenario.decide or {}) do
    if seen[w] then return w end
  end
  return seen["gpt2-124m"] and "gpt2-124m" or wids[1]
end

-- The body: one workload's table (one to eight Sparks beside the HBM systems) and the assumptions;
-- the chart, every other workload and the links' sources in an appendix.
local function projection(doc, results)
  local exps = R.experiments(results, "model")
  doc:section("Scale-out projection", 2)
  for _, e in ipairs(exps) do
    local names, wids, seen = system_names(e), {}, {}
    for _, r in ipairs(R.records(e, { series = "scaleout" })) do
      if not seen[r.workload] then seen[r.workload] = true; wids[#wids + 1] = r.workload end
    end
    if #wids > 0 then
      local lead = lead_workload(results, wids, seen)
      local label = appendix.defer(doc, "Scale-out: scaling chart, every workload and device count, links", function(d)
        scale_chart(d, results, e, lead, names)
        for _, wid in ipairs(wids) do scale_table(d, results, e, wid, names) end
        fabric_sources(d, results, e)
        not_projected(d, e)
      end)
      doc:paragraph(("Data parallelism over one to eight devices, for %s: one to eight Sparks beside one GPU and a "
        .. "full node of each HBM system. The scaling chart, 2 and 4 GPUs, every workload (%d in all), the links' "
        .. "sources and what was not projected: %s."):format(lead, #wids, label))
      scale_table(doc, results, e, lead, names, true)
      assumptions(doc, e)
      return
    end
  end
  doc:paragraph("Not projected: the scenario has no model experiment with projections (sr.model { workloads = ... }).")
end

function S.collective(doc, results)
  local exps = R.experiments(results, "collective")
  if #exps == 0 and #R.all_records(R.experiments(results, "model"), { series = "scaleout" }) == 0 then return end
  doc:section("Beyond one box: collectives and scale-out")
  if #exps == 0 then
    doc:paragraph("Not measured: the scenario has no collective experiment; the projection below uses the catalog's links.")
  end
  for _, e in ipairs(exps) do
    method(doc, e)
    bus_chart(doc, e)
    latency_chart(doc, e)
    results_table(doc, e)
  end
  skipped(doc, exps)
  projection(doc, results)
end

return S
