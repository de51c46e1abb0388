-- tests/e2e/verdict.lua: the decision pages a buyer signs, checked against the numbers. From the
-- recorded default run (tests/fixtures/rerun/default.json.gz) with this sparkreport's cost file in
-- its catalog block (the costs the run would carry now), rendered, read back with pdftotext: every
-- row of the decision table recomputed from results.json (hours, band, GPUs, speed per job and per
-- device, buy, rent and kWh on the one cost basis); the verdict box's recommendation per workload
-- following from those costs; the break-even utilisation reproduced from the table's own printed
-- figures and from results.json; the kWh of a job the same on page 1 and in the projection
-- appendix; results.json's energy_kwh on the same whole-system basis; one hours figure per
-- configuration (the scale-out rows of a configuration the projection timed carry its hours, the
-- scale-out appendix prints page 1's); every memory-bound share equal to the sum of its parts; no
-- scaling efficiency above 100 %; hours printed as hours.
local env = ...
local json = require "json"
local sh, q, fail, read, rate = env.sh, env.q, env.fail, env.read, env.rate
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local path = env.out .. "/default.json"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(path)))
if zrc ~= 0 then return "skip", "gzip not found" end
local doc = json.decode(read(path))
-- the per-job verdict a results file without a team decision gets (an older file's render): the
-- recorded run with its team taken out (tests/e2e/team.lua checks the team's page)
doc.team_decision, doc.scenario.team = nil, nil

-- data/costs.csv, parsed here (quoted fields with commas), into the catalog block
local NUM = { purchase_usd = true, rent_usd_per_gpu_hour = true, system_power_w = true, launch_usd = true,
              server_gpus = true }
local function csv_rows(text)
  local rows = {}
  for line in text:gmatch("[^\n]+") do
    local row, pos = {}, 1
    while pos <= #line + 1 do
      local v
      if line:sub(pos, pos) == '"' then
        local e = pos + 1
        v = ""
        while true do
          local qpos = line:find('"', e, true)
          if line:sub(qpos + 1, qpos + 1) == '"' then v, e = v .. line:sub(e, qpos), qpos + 2
          else v, pos = v .. line:sub(e, qpos - 1), qpos + 2; break end
        end
      else
        local c = line:find(",", pos, true) or #line + 1
        v, pos = line:sub(pos, c - 1), c + 1
      end
      row[#row + 1] = v
    end
    rows[#rows + 1] = row
  end
  return rows
end
local lines = csv_rows(read(env.srcdir .. "/data/costs.csv"))
local header, COSTS, crows = table.remove(lines, 1), {}, {}
for _, l in ipairs(lines) do
  local r = {}
  for i, k in ipairs(header) do if l[i] and l[i] ~= "" then r[k] = NUM[k] and tonumber(l[i]) or l[i] end end
  COSTS[r.id], crows[#crows + 1] = r, r
end
doc.catalog.costs = { source = "data/costs.csv", rows = crows }
local f = assert(io.open(path, "w")); f:write(json.encode(doc)); f:close()

local pdf = env.out .. "/default.pdf"
local out, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(path), q(pdf)))
if rc ~= 0 then fail("render: %s", out) end
local function text(first, last)
  return (sh(("%s -layout -f %d -l %d %s -"):format(q(env.pdftotext), first, last, q(pdf))))
end
local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end
local function usd(x)       -- sparkreport.cost's rule
  if x >= 1000 then
    local s = ("%.0f"):format(x):reverse():gsub("(%d%d%d)", "%1,"):reverse()
    return "$" .. s:gsub("^,", "")
  end
  if x >= 100 then return ("$%.0f"):format(x) elseif x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end
local function num(s) return tonumber((s:gsub("[$,]", ""))) end

-- the numbers, from results.json alone
local model
for _, e in ipairs(doc.experiments) do if e.name == "model" then model = e end end
local recs, names, W = {}, {}, {}
for _, r in ipairs(model.results) do if r.series == "projection" then recs[r.workload .. "|" .. r.system] = r end end
for _, w in ipairs(model.info.workloads) do names[w.id] = w.name end
local scn = doc.scenario
local L, U, E = scn.life_years or 3, scn.utilisation or 0.5, scn.kwh_usd or 0.15
local SPARK = "dgx-spark"
local function job(id, r)
  local c, g = COSTS[id] or {}, r.gpus or 1
  local j = { hours = r.hours, gpus = g }
  if c.system_power_w then j.kwh = r.hours * g * c.system_power_w / 1000 end
  if c.purchase_usd then
    j.capital_full = c.purchase_usd * g * r.hours / (L * 8766)
    j.buy = j.capital_full / U + (j.kwh or 0) * E
  end
  if c.rent_usd_per_gpu_hour then j.rent = r.hours * g * c.rent_usd_per_gpu_hour end
  return j
end

local front = text(1, 3)
local flat = front:gsub("%s+", " ")
if not flat:find("nothing on this page was measured on a Spark or a GPU", 1, true) then
  fail("the first lines do not say that nothing was measured on a Spark or a GPU")
end
for _, want in ipairs { "Verdict", "Flips when, each alone", "A Spark costs $4,699, the whole desk-side computer",
                        "Cost basis, one for every system", "Break-even" } do
  if not flat:find(want, 1, true) then fail("pages 1-3 lack %q", want) end
end
if not text(1, 2):find("Workload /%s+GPUs%s+Hours %(band%)") then fail("pages 1-2 do not reach the decision table") end   -- the title takes two lines

-- every row of the decision table: hours (band), speed per job and per device, buy, rent, kWh
local answers = {}
for i, wid in ipairs(scn.decide) do
  local a = recs[wid .. "|" .. SPARK]
  local aj = a.hours and job(SPARK, a)
  local best                          -- the cheapest HBM way to the job, as the verdict picks it
  for _, id in ipairs(scn.systems or scn.compare) do
    local r = recs[wid .. "|" .. id] or fail("no projection of %s on %s", wid, id)
    if r.hours then
      local j = job(id, r)
      local cells = { lit(("%s (%s–%s)"):format(rate(r.hours), rate(r.hours_low), rate(r.hours_high))) }
      if id ~= SPARK and aj then
        cells[#cells + 1] = lit(("%sx"):format(rate(a.hours / r.hours)))
        cells[#cells + 1] = lit(("%sx"):format(rate(a.hours * aj.gpus / (r.hours * j.gpus))))
      end
      local tail = { j.buy and usd(j.buy) or "n/a", j.rent and usd(j.rent) or "n/a", rate(j.kwh) }
      local pat = "\n%s*%S[^\n]-%s" .. ("%d"):format(j.gpus) .. "%s+" .. table.concat(cells, "[ p]+")
                  .. "[^\n]-%s" .. lit(tail[1]) .. "[ p]+" .. lit(tail[2]) .. "[ p]+" .. lit(tail[3])
      if not front:find(pat) then fail("the decision table lacks %s on %s: %s", wid, id, pat) end
      if id ~= SPARK then
        for _, k in ipairs { "rent", "buy" } do
          if j[k] and (not best or j[k] < best.usd) then best = { id = id, usd = j[k], j = j, r = r } end
        end
      end
    elseif not r.fits and not front:find("\n%s*[^\n]-%s1%s+n/a%s+[^\n]-does not%s") then   -- faster: why none
      fail("the decision table does not say that %s does not fit on %s", wid, id)
    end
  end
  answers[i] = { wid = wid, a = a, aj = aj, best = best }
end

-- each workload's rows name the stack they were projected on and the runs it was fitted on; a marginal
-- fit says so and what the job becomes if it does not fit; an extrapolated row is starred
local any_marginal, any_extrap = false, false
for i, wid in ipairs(scn.decide) do
  local a
  for _, id in ipairs(scn.systems or scn.compare) do
    local r = recs[wid .. "|" .. id]
    if r and r.stack_name then a = a or r end
    any_marginal = any_marginal or (r and r.marginal)
    any_extrap = any_extrap or (r and r.extrapolated)
  end
  if not a then fail("no projection of %s names its stack", wid) end
  local want = ("(%d) %s"):format(i, a.stack_name)
  if not flat:find(want, 1, true) or not flat:find(("%s[^;]- fitted on %d runs"):format(lit(want), a.stack_runs)) then
    fail("pages 1-3 do not name workload (%d)'s stack as %q, fitted on %d runs", i, want, a.stack_runs or -1)
  end
end
if any_marginal and not flat:find("marginal; if not: ", 1, true) then fail("no marginal fit is marked on pages 1-3") end
if any_extrap and not flat:find("*: extrapolated", 1, true) then fail("no extrapolated row is explained on pages 1-3") end

-- a job one device cannot hold: the smallest count of devices that can, its own row ("2 x DGX Spark
-- (ZeRO-3)") with its hours, band and costs, and on the Spark a sentence in the verdict box
local multi = 0
for _, r in ipairs(model.results) do
  local listed = false
  for _, id in ipairs(scn.systems or scn.compare) do listed = listed or id == r.system end
  if r.series == "projection_devices" and listed and r.hours then
    local j = job(r.system, r)
    local pat = "\n%s*" .. ("%d"):format(j.gpus) .. " x [^\n]-%s" .. ("%d"):format(j.gpus) .. "%s+"
      .. lit(("%s (%s–%s)"):format(rate(r.hours), rate(r.hours_low), rate(r.hours_high)))
      .. "[^\n]-ZeRO%-" .. ("%d"):format(r.zero) .. "[^\n]-%s" .. lit(j.buy and usd(j.buy) or "n/a") .. "[ p]+" .. lit(j.rent and usd(j.rent) or "n/a")
    if not front:find(pat) then fail("the decision table lacks the %d-device row of %s on %s: %s", j.gpus, r.workload, r.system, pat) end
    if r.system == SPARK and not flat:find(("%d Sparks over their ConnectX-7 link (ZeRO-%d) hold it"):format(j.gpus, r.zero), 1, true) then
      fail("the verdict box does not say that %d Sparks hold %s", j.gpus, r.workload)
    end
    multi = multi + 1
  end
end

-- the verdict box: each workload under the recommendation its numbers make; the break-even
-- utilisation from results.json and from the table's printed figures; the cheapest HBM row named
local box = flat:match("Verdict Workload Per job %(projected%) Flips when, each alone (.-) A Spark costs")
  or fail("no verdict box on page 1")
local function group_of(i)
  local at = box:find(("(%d) "):format(i), 1, true) or fail("the verdict box lacks workload (%d)", i)
  local head
  for _, h in ipairs { "Buy a", "Either:", "Too big", "Rent HBM" } do      -- a head's first line
    local p0 = 0
    while true do
      local p1 = box:find(h, p0 + 1, true)
      if not p1 or p1 > at then break end
      if not head or p1 > head[2] then head = { h, p1 } end
      p0 = p1
    end
  end
  return head and head[1]
end
local sens = text(1, 4):gsub("%s+", " ")
for i, ans in ipairs(answers) do
  local a, aj, best = ans.a, ans.aj, ans.best
  local g = group_of(i)
  if not a.fits then
    if g ~= "Too big" then fail("(%d) does not fit on a Spark but is under %q", i, g) end
  else
    local lo_a, hi_a = aj.buy * a.hours_low / a.hours, aj.buy * a.hours_high / a.hours
    local lo_b, hi_b = best.usd * best.r.hours_low / best.r.hours, best.usd * best.r.hours_high / best.r.hours
    local want = math.max(lo_a, lo_b) <= math.min(hi_a, hi_b) and "Either:"
      or aj.buy < best.usd and "Buy a" or "Rent HBM"
    if g ~= want then fail("(%d) %s is under %q; its costs (%s against %s) make it %q", i, ans.wid, g, usd(aj.buy),
                           usd(best.usd), want) end
    -- break-even from results.json: capital at 100 % / (the HBM cost - the Spark's energy cost)
    local u = aj.capital_full / (best.usd - aj.kwh * E)
    local printed = u <= 1 and ("%.0f %%"):format(100 * u) or ("none (%.0f %%)"):format(100 * u)
    local row = sens:match("%(" .. i .. "%) [^%$]-(%$[%d,.]+ %$[%d,.]+ %$[%d,.]+ %$[%d,.]+ [^%%]-%%)")
      or fail("the sensitivity table has no row (%d)", i)
    -- the row is read up to its first "%": "none (181 %" of "none (181 %)"
    if not row:find(lit((printed:gsub("%)$", ""))) .. "$") then
      fail("(%d) break-even: the table says %q, results.json %s", i, row, printed)
    end
    -- and from the decision table's printed figures alone: Spark buy $/job and kWh, the cheapest HBM $/job
    local capital_at_u = aj.buy - aj.kwh * E
    local from_table = (num(usd(aj.buy)) - num(rate(aj.kwh)) * E) * U / (num(usd(best.usd)) - num(rate(aj.kwh)) * E)
    if math.abs(from_table - u) > 0.015 then
      fail("(%d) break-even %.3f does not reproduce from the printed table (%.3f; capital %.2f)", i, u, from_table, capital_at_u)
    end
    if u <= 1 and not box:find(("(%d) "):format(i), 1, true) then fail("(%d) missing", i) end
    if u <= 1 and not box:find(("utilisation %s %.0f %%"):format(g == "Buy a" and "below" or "above", 100 * u), 1, true) then
      fail("(%d) the verdict box does not say the utilisation at which it flips (%.0f %%)", i, 100 * u)
    end
  end
end

-- one kWh per job: the projection appendix prints page 1's figure for every compared system
local all = sh(("%s -layout %s -"):format(q(env.pdftotext), q(pdf)))
local appx = all:match("Appendix %u: Projected training time per workload, on the compared systems(.*)$")
  or fail("no projection appendix")
for _, ans in ipairs(answers) do
  local block = appx:match("\n%s*" .. lit(names[ans.wid]) .. "%s*\n(.-)\n%s*[^\n]*parameters, ") or appx
  for _, id in ipairs(scn.systems or scn.compare) do
    local r = recs[ans.wid .. "|" .. id]
    if r.hours then
      local kwh = rate(job(id, r).kwh)
      if not block:find("%s" .. lit(kwh) .. "[ p]") then
        fail("the appendix's kWh of %s on %s is not page 1's %s", ans.wid, id, kwh)
      end
    end
  end
end

-- one kWh basis: results.json's energy_kwh of every projection is the decision pages' (the whole system's
-- power per device, host included, from the cost file), not the chip's
local checked_kwh = 0
for _, r in ipairs(model.results) do
  local c = COSTS[r.system]
  if (r.series == "projection" or r.series == "projection_devices") and r.hours and c and c.system_power_w then
    local want = r.hours * (r.gpus or 1) * c.system_power_w / 1000
    if not (r.energy_kwh and math.abs(r.energy_kwh - want) <= 1e-9 * want) or r.energy_basis ~= "system" then
      fail("results.json's energy_kwh of %s on %s is %s, the decision pages' basis gives %s", r.workload, r.system,
           tostring(r.energy_kwh), want)
    end
    checked_kwh = checked_kwh + 1
  end
end
if checked_kwh == 0 then fail("no projection with a whole-system power to check energy_kwh against") end

-- one hours figure per configuration: a scale-out row of a configuration the projection already timed
-- (llm.c's 8 GPUs, the smallest count that holds a job) carries its hours, and the scale-out appendix
-- prints page 1's figure for it
local timed = {}
for _, r in ipairs(model.results) do
  if (r.series == "projection" or r.series == "projection_devices") and r.hours then
    timed[("%s|%s|%d"):format(r.workload, r.system, r.gpus or 1)] = r
  end
end
local annex = sh(("%s -layout %s -"):format(q(env.pdftotext), q(pdf:gsub("%.pdf$", "-annex.pdf"))))
local scale = annex:match("Appendix %u: Scale%-out(.*)$") or fail("no scale-out appendix in the technical annex")
local same = 0
for _, s in ipairs(model.results) do
  local r = s.series == "scaleout" and s.devices > 1 and timed[("%s|%s|%d"):format(s.workload, s.system, s.devices)]
  if r then
    if s.hours ~= r.hours or s.hours_low ~= r.hours_low or s.hours_high ~= r.hours_high then
      fail("%s on %d x %s: %s h in the scale-out, %s h projected", s.workload, s.devices, s.system, s.hours, r.hours)
    end
    if s.devices == 8 and s.workload == "gpt2-124m" and s.system == "h100-sxm" then
      local block = scale:match("\n%s*gpt2%-124m%s*\n(.-)\n%s*gpt2%-355m%s*\n") or scale
      if not block:find("8%-GPU[^\n]-%s" .. lit(rate(r.hours)) .. " h") then     -- "8-GPU node, ..." may wrap
        fail("the scale-out appendix does not print page 1's %s h for 8 x H100, GPT-2 124M", rate(r.hours))
      end
      if not front:find(lit(("%s (%s–%s)"):format(rate(r.hours), rate(r.hours_low), rate(r.hours_high)))) then
        fail("page 1 does not print %s h for 8 x H100, GPT-2 124M", rate(r.hours))
      end
    end
    same = same + 1
  end
end
if same == 0 then fail("no scale-out row of a configuration the projection timed") end

-- every share that is a sum of parts adds up
-- the running footer and header a sentence may cross at a page break: "Page 36 of 69 <title>"
local plain = all:gsub("%s+", " "):gsub(" Page %d+ of %d+ " .. lit(scn.title or "Memory bandwidth and training time"), "")
local sums = 0
for total, parts in plain:gmatch("There ([%d.]+) %% of the step is in memory%-bound ops %(([^)]*)%)") do
  local sum = 0
  for x in parts:gmatch("([%d.]+) %%") do sum = sum + tonumber(x) end
  local n = select(2, parts:gsub("%%", ""))
  if math.abs(sum - tonumber(total)) > 0.05 * n + 1e-9 then
    fail("memory-bound %s %% is not the sum of its parts (%s: %.1f %%)", total, parts, sum)
  end
  sums = sums + 1
end
if sums == 0 then fail("no memory-bound breakdown found to check") end
for eff in plain:gmatch("(%d+%.%d) %% p? ?%d+%.%d–%d+%.%d %%") do
  if tonumber(eff) > 100 then fail("a scaling efficiency of %s %% is printed", eff) end
end
if plain:find("%d%d%d%d%d%d%d h") then fail("hours printed without thousands separators: %s", plain:match("%d%d%d%d%d%d%d h")) end
if plain:find("CV %d%d%d%.%d %%") then fail("a CV above 100 %% is printed as a figure") end
return "pass"
