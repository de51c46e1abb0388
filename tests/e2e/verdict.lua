-- tests/e2e/verdict.lua guards src/decide/rows.c and lua/sparkreport/sections/decision.lua: the per-job
-- pages a buyer signs when a run has no team, checked against the numbers. The recorded default run
-- (tests/fixtures/rerun/default.json.gz) with its team taken out, the decision stage run on it again
-- (tests/unit/test_decide FILE: the decide list's jobs priced at the scenario's use), rendered and read
-- back with pdftotext: every row of the decision table worked out again here from the inputs alone
-- (tests/costs_by_hand.lua): hours, band, GPUs, speed per job and per device from the projection's
-- records, buy from the cost file's price, power and idle power and the terms at the scenario's use,
-- rent from the row's own configuration on its cheapest offer billed in its steps, kWh from the
-- system's power; a cheaper configuration to rent its own row; the verdict box's recommendation per
-- workload following from those costs and their bands; the break-even utilisation found again by
-- bisection from the same terms; the kWh of a job the same on page 1 and in the projection appendix;
-- results.json's energy_kwh on the same whole-system basis; one hours figure per configuration (the
-- scale-out rows of a configuration the projection timed carry its hours, the scale-out appendix
-- prints page 1's); every memory-bound share equal to the sum of its parts; no scaling efficiency
-- above 100 %; hours printed as hours.
local env = ...
local json = require "json"
local H = require "costs_by_hand"
local sh, q, fail, read, rate = env.sh, env.q, env.fail, env.read, env.rate
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local path = env.out .. "/default.json"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(path)))
if zrc ~= 0 then return "skip", "gzip not found" end
local doc = json.decode(read(path))
doc.team_decision, doc.scenario.team = nil, nil
local f = assert(io.open(path, "w")); f:write(json.encode(doc)); f:close()
-- a subshell: sh adds 2>&1, which would put the program's timing line into its output
local so, src = sh(("(%s/tests/unit/test_decide %s > %s.out 2>/dev/null)"):format(q(env.builddir), q(path), q(path)))
if src ~= 0 then fail("the stage without a team: %s", so) end
doc.team_decision = json.decode(read(path .. ".out"))
f = assert(io.open(path, "w")); f:write(json.encode(doc)); f:close()

local pdf = env.out .. "/default.pdf"
local out, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(path), q(pdf)))
if rc ~= 0 then fail("render: %s", out) end
local function text(first, last)
  return (sh(("%s -layout -f %d -l %d %s -"):format(q(env.pdftotext), first, last, q(pdf))))
end
local lit, usd = H.lit, H.usd

-- the numbers, from results.json's inputs alone
local model
for _, e in ipairs(doc.experiments) do if e.name == "model" and e.info and e.info.calibration then model = model or e end end
local recs, names, COSTS, OFFERS = {}, {}, {}, doc.catalog.offers.rows
for _, r in ipairs(model.results) do if r.series == "projection" then recs[r.workload .. "|" .. r.system] = r end end
for _, w in ipairs(model.info.workloads) do names[w.id] = w.name end
for _, r in ipairs(doc.catalog.costs.rows) do COSTS[r.id] = r end
local scn = doc.scenario
local T, U = H.default_terms(scn), scn.utilisation
local SPARK = "dgx-spark"
local function job(id, wid, hh)
  local c, g = COSTS[id] or {}, hh.n
  local j = { hours = hh.h, lo = hh.lo, hi = hh.hi, gpus = g }
  if c.system_power_w then j.kwh = hh.h * g * c.system_power_w / 1000 end
  if c.purchase_usd then j.buy = H.hour(c, T, U) * g * hh.h end
  local b = H.best_bill(model, OFFERS, wid, 1, T.setup_h, math.huge, id, g)
  j.rent = b and b.usd
  return j
end
local function hours(wid, id, n)
  local hh = H.hours(model, wid, id, n)
  if hh then hh.n = n end
  return hh
end

local front = text(1, 4)
local flat = front:gsub("%s+", " ")
if not flat:find("nothing on this page was measured on a Spark or a GPU", 1, true) then
  fail("the first lines do not say that nothing was measured on a Spark or a GPU")
end
for _, want in ipairs { "Verdict", "Flips when, each alone", "A Spark costs $4,699, the whole desk-side computer",
                        "Cost basis, one for every system", "Break-even" } do
  if not flat:find(want, 1, true) then fail("pages 1-4 lack %q", want) end
end

-- every row of the decision table: hours (band), speed per job and per device, buy, rent, kWh
local answers = {}
local function row_pattern(label, j, a)
  local cells = { lit(("%s (%s–%s)"):format(rate(j.hours), rate(j.lo), rate(j.hi))) }
  if a and not (a.hours == j.hours and a.gpus == j.gpus) then
    cells[#cells + 1] = lit(("%sx"):format(rate(a.hours / j.hours)))
    cells[#cells + 1] = lit(("%sx"):format(rate(a.hours * a.gpus / (j.hours * j.gpus))))
  end
  local tail = { j.buy and usd(j.buy) or "n/a", j.rent and usd(j.rent) or "n/a", rate(j.kwh) }
  return "\n%s*" .. label .. "[^\n]-%s" .. ("%d"):format(j.gpus) .. "%s+" .. table.concat(cells, "[ p]+")
    .. "[^\n]-%s" .. lit(tail[1]) .. "[ p]+" .. lit(tail[2]) .. "[ p]+" .. lit(tail[3])
end
for i, wid in ipairs(scn.decide) do
  local a1 = hours(wid, SPARK, 1)
  local a2 = not a1 and hours(wid, SPARK, 2)
  local aj = a1 and job(SPARK, wid, a1) or a2 and job(SPARK, wid, a2)
  local best                          -- the cheapest HBM way to the job, as the verdict picks it
  for _, id in ipairs(scn.systems) do
    local r = recs[wid .. "|" .. id] or fail("no projection of %s on %s", wid, id)
    if r.hours then
      local j = job(id, wid, hours(wid, id, r.gpus or 1))
      local pat = row_pattern("%S", j, aj)
      if not front:find(pat) then fail("the decision table lacks %s on %s: %s", wid, id, pat) end
      local cands = { j }
      -- the cheapest configuration to rent, where it is another: its own row
      local cheap = H.best_bill(model, OFFERS, wid, 1, T.setup_h, math.huge, id)
      if cheap and cheap.n ~= j.gpus and id ~= SPARK then
        local k = job(id, wid, hours(wid, id, cheap.n))
        local kp = row_pattern(("%d x "):format(cheap.n), k, aj)
        if not front:find(kp) then
          fail("the decision table lacks the cheapest way to rent %s on %s (%d GPUs, %s): %s", wid, id, cheap.n, usd(k.rent), kp)
        end
        cands[#cands + 1] = k
      end
      if id ~= SPARK then
        for _, c in ipairs(cands) do
          for _, k in ipairs { "rent", "buy" } do
            if c[k] and (not best or c[k] < best.usd) then best = { id = id, usd = c[k], j = c, how = k } end
          end
        end
      end
    elseif not r.fits and not front:find("\n%s*[^\n]-%s1%s+n/a%s+[^\n]-does not%s") then   -- faster: why none
      fail("the decision table does not say that %s does not fit on %s", wid, id)
    end
  end
  answers[i] = { wid = wid, a = recs[wid .. "|" .. SPARK], aj = aj, one = a1 ~= nil, best = best }
end

-- each workload's rows name the stack they were projected on and the runs it was fitted on; a marginal
-- fit says so and what the job becomes if it does not fit; an extrapolated row is starred
local any_marginal, any_extrap = false, false
for i, wid in ipairs(scn.decide) do
  local a
  for _, id in ipairs(scn.systems) do
    local r = recs[wid .. "|" .. id]
    if r and r.stack_name then a = a or r end
    any_marginal = any_marginal or (r and r.marginal)
    any_extrap = any_extrap or (r and r.extrapolated)
  end
  if not a then fail("no projection of %s names its stack", wid) end
  local want = ("(%d) %s"):format(i, a.stack_name)
  if not flat:find(want, 1, true) or not flat:find(("%s[^;]- fitted on %d runs"):format(lit(want), a.stack_runs)) then
    fail("pages 1-4 do not name workload (%d)'s stack as %q, fitted on %d runs", i, want, a.stack_runs or -1)
  end
end
if any_marginal and not flat:find("marginal; if not: ", 1, true) then fail("no marginal fit is marked on pages 1-4") end
if any_extrap and not flat:find("*: extrapolated", 1, true) then fail("no extrapolated row is explained on pages 1-4") end

-- a job one device cannot hold: the smallest count of devices that can, its own row ("2 x DGX Spark")
-- with its hours, band and costs, and on the Spark a sentence in the verdict box
local multi = 0
for _, r in ipairs(model.results) do
  local listed = false
  for _, id in ipairs(scn.systems) do listed = listed or id == r.system end
  local decided = false
  for _, id in ipairs(scn.decide) do decided = decided or id == r.workload end
  if r.series == "projection_devices" and listed and decided and r.hours then
    local j = job(r.system, r.workload, hours(r.workload, r.system, r.devices))
    local pat = "\n%s*" .. ("%d"):format(j.gpus) .. " x [^\n]-%s" .. ("%d"):format(j.gpus) .. "%s+"
      .. lit(("%s (%s–%s)"):format(rate(r.hours), rate(r.hours_low), rate(r.hours_high)))
      .. "[^\n]-ZeRO%-" .. ("%d"):format(r.zero) .. "[^\n]-%s" .. lit(j.buy and usd(j.buy) or "n/a") .. "[ p]+" .. lit(j.rent and usd(j.rent) or "n/a")
    if not front:find(pat) then fail("the decision table lacks the %d-device row of %s on %s: %s", j.gpus, r.workload, r.system, pat) end
    if r.system == SPARK and not flat:find(("%d Sparks over their ConnectX-7 link hold it"):format(j.gpus), 1, true) then
      fail("the verdict box does not say that %d Sparks hold %s", j.gpus, r.workload)
    end
    multi = multi + 1
  end
end
if multi == 0 then fail("no job one device cannot hold was checked") end

-- the verdict box: each workload under the recommendation its numbers make; the break-even
-- utilisation, found again here by bisection on the same terms
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
local sens = flat
local checked = 0
for i, ans in ipairs(answers) do
  local aj, best = ans.aj, ans.best
  local g = group_of(i)
  if not ans.one then
    if g ~= "Too big" then fail("(%d) does not fit on a Spark but is under %q", i, g) end
  else
    local lo_a, hi_a = aj.buy * aj.lo / aj.hours, aj.buy * aj.hi / aj.hours
    local lo_b, hi_b = best.usd * best.j.lo / best.j.hours, best.usd * best.j.hi / best.j.hours
    local want = math.max(lo_a, lo_b) <= math.min(hi_a, hi_b) and "Either:"
      or aj.buy < best.usd and "Buy a" or "Rent HBM"
    if g ~= want then fail("(%d) %s is under %q; its costs (%s against %s) make it %q", i, ans.wid, g, usd(aj.buy),
                           usd(best.usd), want) end
    -- the use at which the Spark bought costs what the cheapest HBM way does, by bisection
    local c = COSTS[SPARK]
    local lo, hi = 1e-4, 100
    for _ = 1, 80 do
      local mid = math.sqrt(lo * hi)
      if H.hour(c, T, mid) * aj.gpus * aj.hours > best.usd then lo = mid else hi = mid end
    end
    local u = hi
    local printed = u <= 1 and ("%.1f %%"):format(100 * u) or ("none (%.1f %%)"):format(100 * u)
    local row = sens:match("%(" .. i .. "%) [^%$]-(%$[%d,.]+ %$[%d,.]+ %$[%d,.]+ %$[%d,.]+, [^%%]-%%)")
      or fail("the sensitivity table has no row (%d)", i)
    if not row:find(lit((printed:gsub("%)$", ""))) .. "$") then
      fail("(%d) break-even: the table says %q, worked out again %s", i, row, printed)
    end
    if u <= 1 and not box:find(("utilisation %s %.1f %%"):format(g == "Buy a" and "below" or "above", 100 * u), 1, true) then
      fail("(%d) the verdict box does not say the utilisation at which it flips (%.1f %%)", i, 100 * u)
    end
    checked = checked + 1
  end
end
if checked == 0 then fail("no verdict's break-even was checked") end

-- one kWh per job: the projection appendix prints page 1's figure for every compared system
local all = sh(("%s -layout %s -"):format(q(env.pdftotext), q(pdf)))
local appx = all:match("Appendix %u: Projected training time per workload, on the compared systems(.*)$")
  or fail("no projection appendix")
for _, ans in ipairs(answers) do
  local block = appx:match("\n%s*" .. lit(names[ans.wid]) .. "%s*\n(.-)\n%s*[^\n]*parameters, ") or appx
  for _, id in ipairs(scn.systems or scn.compare) do
    local r = recs[ans.wid .. "|" .. id]
    if r.hours then
      local kwh = rate(job(id, ans.wid, hours(ans.wid, id, r.gpus or 1)).kwh)
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
-- a sentence may cross a page break: the page's running footer and header left out (run.lua's plain)
local plain = env.plain(pdf):gsub("%s+", " ")
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
