-- tests/e2e/tenants.lua: shared use end to end (tests/scenarios/tenants.lua). The measured family:
-- every tenant validated before it was timed; in each round the tenants measured at once (each
-- one's window began before every other's ended); slowdown and share follow from the medians, the
-- totals from the shares; no tenant kept more CPUs busy than its threads, no round more than the
-- machine's CPUs over its span (first start to last end) (what the arithmetic of sharing allows). The Spark's tenant records: the N = 1 one is
-- the projection's own row, each share of the pool recomputed from the fit's reserve, a job that does
-- not fit alone has its N = 1 record only, no tenant is faster than N-fold (time-slicing). The PDF:
-- the section's measured sentence and projected table show the records' figures.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local function near(a, b, rel) return math.abs(a - b) <= (rel or 1e-9) * math.max(math.abs(b), 1e-300) end
local function pct(x) return ("%.1f %%"):format(100 * x) end

local out, code = sh(("cd %s && %s run tests/scenarios/tenants.lua -o %s -q"):format(q(env.srcdir), q(env.bin), q(env.out)))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$")
local r = json.decode(read(dir .. "/results.json"))
local e, model = r.experiments[1], r.experiments[2]
if e.name ~= "tenants" or e.status ~= "complete" then fail("tenants experiment: %s %s", e.name, tostring(e.status)) end
local cpus = e.info.cpus

-- ---- the measured family ----
local rounds, alone = {}, {}
for _, x in ipairs(e.results) do
  if x.valid ~= true then fail("%s tenant %d of %d: %s", x.series, x.tenant, x.tenants, tostring(x.error)) end
  if not (x.max_rel_error <= x.tolerance) then fail("%s tenant %d: error %g above %g", x.series, x.tenant, x.max_rel_error, x.tolerance) end
  local key = x.series .. " " .. x.tenants
  rounds[key] = rounds[key] or {}
  table.insert(rounds[key], x)
  if x.tenants == 1 then alone[x.series] = x end
end
for _, series in ipairs { "stream", "train" } do
  for _, n in ipairs { 1, 2, 4 } do
    local list, one = rounds[series .. " " .. n] or {}, alone[series]
    if #list ~= n then fail("%s at %d tenants: %d records", series, n, #list) end
    local share, cpu_s, first, last = 0, 0, math.huge, -math.huge
    for _, a in ipairs(list) do
      local s = a.time_s.median / one.time_s.median
      if not near(a.slowdown, s) or not near(a.share, 1 / s) then fail("%s tenant %d of %d: slowdown %g, share %g, "
        .. "the medians give %g", series, a.tenant, n, a.slowdown, a.share, s) end
      share = share + a.share
      for _, b in ipairs(list) do
        if a ~= b and not (a.started_s < b.ended_s) then
          fail("%s, %d at once: tenant %d started after tenant %d had finished", series, n, a.tenant, b.tenant)
        end
      end
      if a.cpu_s > a.threads * a.window_s + 0.02 then
        fail("%s tenant %d of %d used %g CPU s in %g s on %d threads", series, a.tenant, n, a.cpu_s, a.window_s, a.threads)
      end
      cpu_s, first, last = cpu_s + a.cpu_s, math.min(first, a.started_s), math.max(last, a.ended_s)
      if n > 1 and a.threads ~= math.max(1, e.info.threads_max // n) then fail("%s: %d threads at N = %d", series, a.threads, n) end
    end
    -- the round's CPU seconds over its span, first start to last end (a clock tick of slack per tenant)
    if cpu_s > cpus * (last - first) + 0.02 * n then
      fail("%s at %d tenants used %g CPU s in %g s on %d CPUs", series, n, cpu_s, last - first, cpus)
    end
    local t
    for _, x in ipairs(e.info.totals) do if x.series == series and x.tenants == n then t = x end end
    if not t or not near(t.cores_sum, cpu_s / (last - first)) then fail("%s at %d: cores_sum %s, the round's CPU s "
      .. "over its span %g", series, n, tostring(t and t.cores_sum), cpu_s / (last - first)) end
    if not t or not near(t.share_sum, share) then fail("%s at %d: share_sum %s, the shares add to %g", series, n,
      tostring(t and t.share_sum), share) end
  end
end

-- ---- the Spark's tenant records ----
local proj, ten, spark = {}, {}, nil
for _, x in ipairs(model.results) do
  if x.series == "projection" and x.system == "dgx-spark" then proj[x.workload] = x end
  if x.series == "tenants" then ten[x.workload] = ten[x.workload] or {}; ten[x.workload][x.tenants] = x end
end
for _, row in ipairs(r.catalog.rows) do if row.id == "dgx-spark" then spark = row end end
local capacity = spark.memory_gb * 1e9                                  -- GB, as data/README.md says of the row
local function usable(n) return (capacity * (1 - 0.16 - 0.05) - (n - 1) * 2e9) / n end
for w, p in pairs(proj) do
  local recs = ten[w] or fail("%s: no tenant records", w)
  local one = recs[1]
  if one.fits ~= p.fits or not near(one.device_bytes, p.memory_bytes) then fail("%s: N = 1 is not the projection's fit", w) end
  if p.fits and not (near(one.hours, p.hours) and near(one.hours_low, p.hours_low) and near(one.hours_high, p.hours_high)
                     and near(one.step_s, p.step_s) and one.slowdown == 1) then
    fail("%s: N = 1 hours %s, the projection's %s", w, tostring(one.hours), tostring(p.hours))
  end
  local count = 0
  for n, x in pairs(recs) do
    count = count + 1
    if not near(x.usable_bytes, usable(n)) then fail("%s N = %d: usable %g, the fit's reserve gives %g", w, n, x.usable_bytes, usable(n)) end
    if x.fits and x.device_bytes > x.usable_bytes then fail("%s N = %d fits in less than it needs", w, n) end
    if x.hours then
      if not (x.slowdown >= n * (1 - 1e-9)) then fail("%s N = %d: slowdown %g, below %d-fold", w, n, x.slowdown, n) end
      if not near(x.slowdown, x.hours / one.hours) then fail("%s N = %d: slowdown is not hours over hours alone", w, n) end
      if not (x.hours_low <= x.hours and x.hours <= x.hours_high) then fail("%s N = %d: hours outside the band", w, n) end
    end
  end
  if p.fits and count ~= 6 or not p.fits and count ~= 1 then fail("%s: %d tenant records (fits alone: %s)", w, count, tostring(p.fits)) end
end
if not (proj["llama-3.1-8b"] and not proj["llama-3.1-8b"].fits) then fail("llama-3.1-8b should not fit one Spark") end
local basis = model.info.tenants_basis or ""
if not basis:find("this run's tenants experiment, the bandwidth stream on this machine's CPU", 1, true) then
  fail("the basis does not name the measurement: %s", basis)
end

-- ---- the PDF ----
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
-- compared without white space: a line may break anywhere in a sentence or a table row
local function squeeze(s) return (s:gsub("%s+", "")) end
-- the decision report, then the technical annex (the measurement on this machine is the annex's)
local text = squeeze(env.plain(dir .. "/report.pdf") .. env.plain(dir .. "/annex.pdf"))
local section = text:match(squeeze("Shared use: several jobs on one machine") .. "(.*)$")
                or fail("the PDF lacks the shared-use section")
local function range(list)
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(list) do lo, hi = math.min(lo, x.share), math.max(hi, x.share) end
  return pct(lo) == pct(hi) and pct(lo) or ("%.1f–%.1f %%"):format(100 * lo, 100 * hi)
end
for _, n in ipairs { 2, 4 } do
  local list, t = rounds["stream " .. n], nil
  for _, x in ipairs(e.info.totals) do if x.series == "stream" and x.tenants == n then t = x end end
  local want = ("%d at once each kept %s of the alone bandwidth (together %s)"):format(n, range(list), pct(t.share_sum))
  if not section:find(squeeze(want), 1, true) then fail("the section lacks %q:\n%s", want, section:sub(1, 1500)) end
end
local function largest(recs)
  local best = 0
  for _, n in ipairs { 1, 2, 3, 4, 6, 8 } do
    if recs[n] and recs[n].fits then best = n elseif recs[n] then break end
  end
  return best
end
local names = {}                                  -- the table names each workload as the decision table does
for _, w in ipairs(model.info.workloads or {}) do names[w.id] = w.name end
for _, w in ipairs { "gpt2-124m", "llama-3.1-8b-lora" } do
  local recs = ten[w]
  local want = ("%s %d %s h"):format(names[w] or fail("%s: no name in the model's info", w), largest(recs),
                                     env.rate(recs[1].hours))
  if not section:find(squeeze(want), 1, true) then fail("the projected table lacks %q", want) end
end
if not section:find(squeeze(names["llama-3.1-8b"] .. " 0 does not fit alone"), 1, true) then
  fail("the table does not say %s does not fit", names["llama-3.1-8b"])
end
for _, t in ipairs { "Projected for the DGX Spark", "Basis. N tenants running one job each", "Shared use measured on this machine",
                     "Slowdown of each tenant against the tenants at once" } do
  if not text:find(squeeze(t), 1, true) then fail("the PDF lacks %q", t) end
end
return "pass"
