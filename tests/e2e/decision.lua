-- tests/e2e/decision.lua guards lua/sparkreport/stages.lua and the decision pages of an older results
-- file: the report a buyer decides from, read back with pdftotext. From the default fixture (a `make
-- report` run of scenarios/default.lua of schema version 1, tests/fixtures/decision/README.md), whose
-- per-job figures the decision stage derives again when it is drawn (with this sparkreport's cost and
-- offer files, which that file predates, and the page says so): pages 1-4 hold a row per workload and
-- compared system with hours, band, fit, cost per job and energy worked out here by hand from the
-- projection records, the cost file and the offers (tests/costs_by_hand.lua); the body before the
-- first appendix is at most 15 pages; the sources list every catalog system the report shows;
-- the validation table's derived column is computed from the columns beside it; the environment has
-- readable labels and the scenario no comments (those three in the technical annex drawn beside it).
-- From the quick fixture (a newer run): the scenario's
-- decide list and cost fields, the costs carried in results.json, CUDA's status and versions.
local env = ...
local json = require "json"
local H = require "costs_by_hand"
local sh, q, fail, read, rate = env.sh, env.q, env.fail, env.read, env.rate
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local dir = env.srcdir .. "/tests/fixtures/decision"
local default = env.out .. "/default.json"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(dir .. "/default.json.gz"), q(default)))
if zrc ~= 0 then return "skip", "gzip not found" end

local function render(path, pdf)
  local out, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(path), q(pdf)))
  if rc ~= 0 then fail("render %s: %s", path, out) end
end
local function pages(pdf)
  local info = sh(("pdfinfo %s 2>/dev/null || %s %s - | grep -c $'\\f'"):format(q(pdf), q(env.pdftotext), q(pdf)))
  return tonumber(info:match("Pages:%s+(%d+)")) or fail("no page count for %s", pdf)
end
local function page_text(pdf, i, j)
  return (sh(("%s -layout -f %d -l %d %s -"):format(q(env.pdftotext), i, j or i, q(pdf))))
end
local function lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end
local function usd(x)       -- sparkreport.cost's rule, below $1,000
  if x >= 100 then return ("$%.0f"):format(x) elseif x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end

local pdf = env.out .. "/default.pdf"
render(default, pdf)
local doc = json.decode(read(default))
local model
for _, e in ipairs(doc.experiments) do if e.name == "model" then model = e end end
local recs = {}
for _, r in ipairs(model.results) do if r.series == "projection" then recs[r.workload .. "|" .. r.system] = r end end

-- the body: every page before the one headed "Appendices"
local n, first = pages(pdf), nil
for i = 1, n do
  if ("\n" .. page_text(pdf, i)):find("\n%s*Appendices%s*\n") then first = i; break end
end
if not first then fail("no page is headed Appendices") end
if first - 1 > 15 then fail("the body has %d pages, more than 15", first - 1) end

-- pages 1-4: one row per workload and compared system, figures worked out by hand. Cost per job bought:
-- an hour of the system at 50 % use (its price over 3 years' busy hours, its power and idle power at
-- $0.15/kWh, a server's room and support) times the job's device-hours; rent: the row's own
-- configuration on its cheapest offer, billed in the offer's steps with the setup (the fixture predates
-- catalog.costs and catalog.offers: this sparkreport's data/costs.csv and data/offers.csv count).
local front = page_text(pdf, 1, 4)   -- the decision section, its cost and sensitivity tables included
local function csv(file)
  local rows, header = {}, nil
  for line in read(env.srcdir .. "/data/" .. file):gmatch("[^\n]+") do
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
    if not header then header = row else
      local r = {}
      for i, k in ipairs(header) do if row[i] and row[i] ~= "" then r[k] = tonumber(row[i]) or row[i] end end
      rows[#rows + 1] = r
    end
  end
  return rows
end
local COSTS, OFFERS = {}, csv("offers.csv")
for _, r in ipairs(csv("costs.csv")) do COSTS[r.id] = r end
for _, o in ipairs(OFFERS) do
  local sizes = {}
  for n in tostring(o.instance_gpus):gmatch("%d+") do sizes[#sizes + 1] = tonumber(n) end
  o.instance_gpus, o.min_billed_s = sizes, o.min_billed_s or 0
end
local T = H.default_terms {}
local WORKLOADS = { { "gpt2-124m", "(1) GPT-2 124M" }, { "llama-3.1-8b-lora", "(2) Llama-3.1 8B" },
                    { "llama-3.1-8b", "(3) Llama-3.1 8B" }, { "llama-3.3-70b-qlora", "(4) Llama-3.3 70B" } }
local rows = 0
for _, w in ipairs(WORKLOADS) do
  if not front:find(w[2], 1, true) then fail("the decision pages lack the workload row %q", w[2]) end
  for _, id in ipairs { "dgx-spark", "h100-sxm", "h200-sxm", "b200" } do
    local r = recs[w[1] .. "|" .. id] or fail("the fixture has no projection of %s on %s", w[1], id)
    local want
    if r.hours then
      local h, g, c = r.hours, r.gpus or 1, COSTS[id]
      local buy = c.purchase_usd and H.usd(H.hour(c, T, 0.5) * g * h) or "n/a"
      local b = H.best_bill(model, OFFERS, w[1], 1, T.setup_h, math.huge, id, g)
      local rent = b and H.usd(b.usd) or "n/a"
      want = "\n%s*%S[^\n]-%s" .. g .. "%s+" .. lit(rate(h) .. " (" .. rate(r.hours_low) .. "–" .. rate(r.hours_high) .. ")")
        .. "[^\n]-%s" .. lit(buy) .. "[ p]+" .. lit(rent) .. "[ p]+" .. lit(rate(h * g * c.system_power_w / 1000))
    else
      want = "\n%s*%S[^\n]-%s1%s+n/a%s+[^\n]-does not%s+n/a%s+n/a%s+n/a"   -- faster: why there is no ratio
    end
    if not front:find(want) then fail("the decision pages lack the row %s", want) end
    rows = rows + 1
  end
end
if rows ~= 16 then fail("%d decision rows", rows) end
local flat = front:gsub("%s+", " ")
for _, want in ipairs {
  "does not fit on a Spark (needs 151 GB",
  "nothing on this page was measured on a Spark or a GPU", "m measured, s spec, p projected",
  "HBM alone would not close the gap", "over 3.00 years at 50.0 % utilisation", "$0.15 per kWh",
  "The per-job figures were derived again by sparkreport", "the results file predates the decision's records",
} do
  if not flat:find(want, 1, true) then fail("the decision pages lack %q", want) end
end

-- what the appendices hold
local all = sh(("%s -layout %s -"):format(q(env.pdftotext), q(pdf)))
local appendix = all:match("\n%s*Appendices%s*\n(.*)$")
for _, sy in ipairs(model.info.systems) do           -- sources for every catalog system the report shows
  if sy.kind == "catalog" and not appendix:find("\n%s*" .. lit(sy.id) .. "%s") then
    fail("the sources appendix lacks %s", sy.id)
  end
end
-- the technical annex drawn beside it: the environment, the scenario, the validation
local annex = sh(("%s -layout %s -"):format(q(env.pdftotext), q(env.out .. "/default-annex.pdf")))
if all:find("no price in catalog", 1, true) then fail("'no price in catalog' is back") end
if (all .. annex):find("cpu.caches.1", 1, true) then fail("a raw environment key is printed") end
if not annex:match("\n%s*Appendices%s*\n(.*)$"):find("CPU cache L1 data", 1, true) then fail("the caches lack readable labels") end
if (all .. annex):find("measured 5 min 08 s", 1, true) then fail("a scenario comment is quoted as if it were this run") end
for _, r in ipairs(model.results) do                 -- the error: predicted / measured - 1 of the two columns beside it
  if r.series == "validation" then
    local pat = lit(r.config) .. "%s[^\n]-%s" .. lit(("%+.1f %%"):format(100 * (r.predicted_s / r.measured_s - 1)))
    if not annex:find(pat) then fail("the validation row %s lacks its error", r.config) end
  end
end
for _, want in ipairs { "Appendix A: Costs: prices, power and idle power", "RunPod", "2026-10-06", "Idle power",
                        "one eighth of a DGX", "Thinkmate HGX H100", "no whole-system price we can cite" } do
  if not appendix:gsub("%s+", " "):find(want, 1, true) then fail("the appendices lack %q", want) end
end
local basis = all:gsub("%s+", " ")
if not basis:find("NVIDIA H200 SXM n/a no whole-system price we can cite: not priced bought; its rent is its only cost", 1, true) then
  fail("the cost basis does not say that the H200 has no whole-system price")
end

-- the quick fixture: a newer run's scenario fields, costs and CUDA words
local qpath = env.out .. "/quick.json"
sh(("gzip -dc %s > %s"):format(q(dir .. "/quick.json.gz"), q(qpath)))
local qdoc = json.decode(read(qpath))
local scn, cu = qdoc.scenario, qdoc.context.cuda
if #scn.decide ~= 2 or scn.life_years ~= 3 or scn.utilisation ~= 0.5 or scn.kwh_usd ~= 0.15 then
  fail("the quick fixture's scenario lacks its decision fields")
end
if not (qdoc.catalog.costs and #qdoc.catalog.costs.rows > 0) then fail("results.json carries no cost rows") end
if cu.built and not (cu.runtime_version and cu.driver_version and cu.status) then fail("CUDA versions not recorded") end
local qpdf = env.out .. "/quick.pdf"
render(qpath, qpdf)
local qfront = page_text(qpdf, 1, 2):gsub("%s+", " ")
for _, want in ipairs { "(1) GPT-2 124M", "(2) Llama-3.1 8B", "$/job" } do
  if not qfront:find(want, 1, true) then fail("the quick decision pages lack %q", want) end
end
if qfront:find("(3)", 1, true) or qfront:find("Not projected in this run", 1, true) then
  fail("the quick report shows a workload its decide list does not name")
end
local qall = sh(("%s %s -"):format(q(env.pdftotext), q(env.out .. "/quick-annex.pdf"))):gsub("%s+", " ")   -- the environment
if cu.status == "no CUDA device" and not qall:find("CUDA status no CUDA device", 1, true) then
  fail("the environment does not say 'no CUDA device'")
end
return "pass"
