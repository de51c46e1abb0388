-- tests/e2e/decision_figures.lua guards src/decide and lua/sparkreport/sections/team.lua and
-- decision.lua: one truth for every figure a buyer reads. The recorded default run
-- (tests/fixtures/rerun/default.json.gz) is drawn, and its pages 1-4 read back with pdftotext: every
-- dollar figure, every hour figure (a table's hours and bands included) and every count (jobs a month
-- or a year, people, Sparks, GPUs, servers, instances, tokens) is one the decision stage wrote in
-- results.json (team_decision: its records and info), in the format the pages print; nothing else.
-- Then page 1's options table is worked out again here from the inputs alone (the team's terms, the
-- cost and offer rows, the projection's hours scaled to each job's tokens; bills from each offer's
-- price, steps, minimum and instance sizes), never from the stage's records or code, for the options'
-- counts the stage chose: cash outlay, cost a year and cost per job as printed.
local env = ...
local json = require "json"
local sh, q, fail, read, rate = env.sh, env.q, env.fail, env.read, env.rate
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local path = env.out .. "/default.json"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(path)))
if zrc ~= 0 then return "skip", "gzip not found" end
local doc = json.decode(read(path))
local td = doc.team_decision or fail("the recorded default run has no team decision")
if td.error then fail("the team decision failed: %s", td.error) end

-- ---- the formats the pages print (sparkreport.format's rules, written again) ---------------------
local function thousands(x)
  local s = ("%d"):format(math.floor(x + 0.5)):reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (s:gsub("^,", ""))
end
local function usd(x)
  if x >= 1000 then return "$" .. thousands(x) end
  if x >= 100 then return ("$%.0f"):format(x) elseif x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end
local function count(x)       -- tokens: "100 M", "9.89 B"
  for _, u in ipairs { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "k" } } do
    if x >= u[1] then return rate(x / u[1]) .. " " .. u[2] end
  end
  return ("%d"):format(math.floor(x + 0.5))
end

-- ---- every figure the stage wrote ----------------------------------------------------------------
local S = { dollars = {}, hours = {}, counts = {}, tokens = {} }
local function add(v)
  if v < 0 or v ~= v or v == math.huge then return end
  S.dollars[usd(v)], S.dollars["$" .. rate(v)] = true, true
  S.hours[rate(v)] = true
  if v == math.floor(v) then S.counts[thousands(v)] = true else S.counts[rate(v)] = true end
  S.tokens[count(v)] = true
end
local function walk(v)
  if type(v) == "number" then add(v)
  elseif type(v) == "string" then
    for d in v:gmatch("%$%d[%d,]*%.?%d*") do S.dollars[(d:gsub("%.$", ""))] = true end
  elseif type(v) == "table" then for _, x in pairs(v) do walk(x) end end
end
walk(td)

-- ---- pages 1-4, without the running header and footer --------------------------------------------
local pdf = env.out .. "/default.pdf"
local out, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(path), q(pdf)))
if rc ~= 0 then fail("render: %s", out) end
local raw = sh(("%s -layout -f 1 -l 4 %s -"):format(q(env.pdftotext), q(pdf)))
local lines = {}
for line in raw:gmatch("[^\n]*") do
  if not line:find("Page %d+ of %d+") and not line:find("^%s*DGX Spark or HBM GPUs for .*: training cost and time%s*$") then
    lines[#lines + 1] = line
  end
end
local text = table.concat(lines, "\n")
local flat = text:gsub("%s+", " ")

local misses, seen = {}, 0
local function want(set, figure, where)
  seen = seen + 1
  if not S[set][figure] then misses[#misses + 1] = ("%s %q (%s)"):format(set, figure, where) end
end
local NUM = "(%d[%d,]*%.?%d*)"
local function clean(x) return (x:gsub("%.$", "")) end
for d in flat:gmatch("%$%d[%d,]*%.?%d*") do want("dollars", clean(d), "a dollar figure") end
for h in flat:gmatch(NUM .. " h[^%a]") do want("hours", clean(h), "an hour figure") end
for a in flat:gmatch(NUM .. "–%d[%d,]*%.?%d* h[^%a]") do want("hours", clean(a), "a band's low end") end
for h, lo, hi in text:gmatch(NUM .. " %(" .. NUM .. "–" .. NUM .. "%)") do      -- a table's "24.5 (20.9–45.5)"
  want("hours", h, "a table's hours"); want("hours", lo, "a table's band"); want("hours", hi, "a table's band")
end
for _, pat in ipairs { NUM .. " jobs a month", NUM .. " jobs a year", NUM .. " x %u", NUM .. " DGX Sparks?",
                       NUM .. " Sparks", NUM .. " GPUs?", NUM .. " people", "instance of " .. NUM, "Why " .. NUM,
                       NUM .. " servers", NUM .. " [%w]+ [%w]+ %b() GPU" } do
  for c in flat:gmatch(pat) do want("counts", clean(c), pat) end
end
for line in text:gmatch("[^\n]+") do                  -- the per-job table's GPUs column
  local g = line:match("^%s*%S.-%s(%d+)%s+%d[%d,]*%.?%d* %(")
  if g then want("counts", g, "a table's GPUs") end
end
for t in flat:gmatch("(%d[%d.]* [kMBT]) tokens") do want("tokens", t, "a job's tokens") end
if seen < 150 then fail("only %d figures found on pages 1-4; the pattern or the pages changed", seen) end
if #misses > 0 then
  fail("%d of %d figures on pages 1-4 are not among the decision stage's records: %s", #misses, seen,
       table.concat(misses, "; "))
end

-- ---- page 1's options, from the inputs alone ------------------------------------------------------
local team, HY = doc.scenario.team, 8766
local costs, offers, wl, model = {}, {}, {}, nil
for _, r in ipairs(doc.catalog.costs.rows) do costs[r.id] = r end
for _, o in ipairs(doc.catalog.offers.rows) do offers[#offers + 1] = o end
for _, e in ipairs(doc.experiments) do if e.name == "model" and e.info and e.info.calibration then model = model or e end end
for _, w in ipairs(model.info.workloads) do wl[w.id] = w end
-- hours of job j on system s on n devices: the projection's, times the job's tokens over the workload's
local function hours(j, s, n)
  local scale = (j.tokens or wl[j.workload].tokens) / wl[j.workload].tokens
  for _, r in ipairs(model.results) do
    local dev = r.series == "projection" and (r.gpus or 1) or (r.series == "projection_devices" or r.series == "scaleout") and r.devices
    if dev == n and r.workload == j.workload and r.system == s and r.hours and r.fits ~= false then return r.hours * scale end
  end
end
-- the bill of job j: each offer and each instance size it fits, billed in whole steps with the setup; the
-- cheapest that meets the deadline, else the fastest
local function rent(j)
  local best
  for _, o in ipairs(offers) do
    for _, n in ipairs { 1, 2, 4, 8 } do
      local h = hours(j, o.system, n)
      local size
      for _, z in ipairs(o.instance_gpus) do if not size and z >= n then size = z end end
      if h and size then
        local step, result = o.billing_step_s / 3600, h + team.setup_h
        local billed = math.max(o.min_billed_s / 3600, math.max(math.ceil(result / step - 1e-9), 1) * step)
        local b = { usd = billed * size * o.usd_per_gpu_hour, result = result, meets = result <= team.deadline_h }
        if not best or (b.meets and not best.meets) or (b.meets == best.meets and (b.meets and b.usd < best.usd
           or not b.meets and b.result < best.result)) then best = b end
      end
    end
  end
  return best
end
local jobs_year = 0
for _, j in ipairs(team.jobs) do jobs_year = jobs_year + j.per_month * 12 end
local function option_costs(o)
  local c, busy, rented = costs[o.system or ""] or {}, 0, 0
  local g = o.kind == "server" and c.server_gpus or 1
  for _, j in ipairs(team.jobs) do
    local n, h
    if o.kind == "spark" then
      h, n = hours(j, "dgx-spark", 1), 1
      if not h and o.count >= 2 then h, n = hours(j, "dgx-spark", 2), 2 end
    elseif o.kind == "server" then
      for _, k in ipairs { 1, 2, 4, 8 } do if not h and k <= g then h, n = hours(j, o.system, k), k end end
    end
    if h then busy = busy + j.per_month * 12 * n * h else rented = rented + j.per_month * 12 * rent(j).usd end
  end
  local units = o.kind == "rent" and 0 or o.count * g
  local outlay = units * (c.purchase_usd or 0)
  local room = o.kind == "server" and team.pue or 1
  local total = outlay / team.life_years + busy * (c.system_power_w or 0) / 1000 * room * team.kwh_usd
    + math.max(0, units * HY - busy) * (c.idle_power_w or 0) / 1000 * room * team.kwh_usd + rented
  if o.kind == "server" then
    total = total + outlay * team.support_share + units * c.system_power_w / 1000 * team.facility_usd_per_kw_month * 12
  end
  return outlay, total, total / jobs_year
end
local page1 = sh(("%s -layout -f 1 -l 1 %s -"):format(q(env.pdftotext), q(pdf)))
local checked = 0
for _, r in ipairs(td.results) do
  if r.series == "option" then
    local outlay, total, per = option_costs(r)
    local want_row = (outlay > 0 and usd(outlay):gsub("%p", "%%%0") or "none") .. "[ sp]+" .. usd(total):gsub("%p", "%%%0")
      .. "[ p]+" .. usd(per):gsub("%p", "%%%0") .. " p"
    if not page1:find(want_row) then
      fail("page 1's options table lacks %s as worked out from the terms: %s, %s a year, %s a job", r.option,
           usd(outlay), usd(total), usd(per))
    end
    checked = checked + 1
  end
end
if checked < 3 then fail("only %d options on page 1", checked) end
return "pass", ("%d figures on pages 1-4, all the stage's; %d options worked out again"):format(seen, checked)
