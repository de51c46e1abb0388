-- tests/e2e/decision.lua: the report a buyer decides from, read back with pdftotext. From the
-- default fixture (a `make report` run of scenarios/default.lua, tests/fixtures/decision/README.md):
-- pages 1-2 hold a row per workload and compared system with hours, band, fit, cost per job and
-- energy computed here by hand from the projection records and the cost figures; the body before
-- the first appendix is at most 15 pages; the sources list every catalog system the report shows;
-- the validation table's derived column is computed from the columns beside it; the environment has
-- readable labels and the scenario no comments (those three in the technical annex drawn beside it).
-- From the quick fixture (a newer run): the scenario's
-- decide list and cost fields, the costs carried in results.json, CUDA's status and versions.
local env = ...
local json = require "json"
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

-- pages 1-3: one row per workload and compared system, figures worked out by hand. Cost per job: the
-- whole system's price per device x hours / (3 years x 8766 h x 50 %) + hours x system power x $0.15/kWh;
-- rent: hours x $/GPU-h (the fixture predates catalog.costs: this sparkreport's data/costs.csv counts).
local front = page_text(pdf, 1, 4)   -- the decision section, its cost and sensitivity tables included
local P = { ["dgx-spark"] = 4699, ["h100-sxm"] = 317000 / 8, ["b200"] = 515000 / 8 }    -- data/costs.csv
local RENT = { ["h100-sxm"] = 2.00, ["h200-sxm"] = 4.54, ["b200"] = 4.00 }               -- data/costs.csv
local W = { ["dgx-spark"] = 240, ["h100-sxm"] = 1275, ["h200-sxm"] = 1275, ["b200"] = 1787.5 }
local WORKLOADS = { { "gpt2-124m", "(1) GPT-2 124M" }, { "llama-3.1-8b-lora", "(2) Llama-3.1 8B" },
                    { "llama-3.1-8b", "(3) Llama-3.1 8B" }, { "llama-3.3-70b-qlora", "(4) Llama-3.3 70B" } }
local rows = 0
for _, w in ipairs(WORKLOADS) do
  if not front:find(w[2], 1, true) then fail("the decision pages lack the workload row %q", w[2]) end
  for _, id in ipairs { "dgx-spark", "h100-sxm", "h200-sxm", "b200" } do
    local r = recs[w[1] .. "|" .. id] or fail("the fixture has no projection of %s on %s", w[1], id)
    local want
    if r.hours then
      local h, g = r.hours, r.gpus or 1
      local buy = P[id] and usd(P[id] * g * h / (3 * 8766 * 0.5) + h * g * W[id] / 1000 * 0.15) or "n/a"
      local rent = RENT[id] and usd(h * g * RENT[id]) or "n/a"
      want = "\n%s*%S[^\n]-%s" .. g .. "%s+" .. lit(rate(h) .. " (" .. rate(r.hours_low) .. "–" .. rate(r.hours_high) .. ")")
        .. "[^\n]-%s" .. lit(buy) .. "[ p]+" .. lit(rent) .. "[ p]+" .. lit(rate(h * g * W[id] / 1000))
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
for _, want in ipairs { "Appendix A: Costs: prices, rental and power", "GMI Cloud", "2026-04-13",
                        "one eighth of a DGX", "Thinkmate HGX H100", "no whole-system price we can cite" } do
  if not appendix:gsub("%s+", " "):find(want, 1, true) then fail("the appendices lack %q", want) end
end

-- one rate card where one covers the systems; a system rented elsewhere says so, with its date
local basis = all:gsub("%s+", " ")
if not basis:find("from GMI Cloud (NVIDIA H100 SXM5, NVIDIA B200 (HGX)); NVIDIA H200 SXM has no GMI Cloud rate we can "
                  .. "cite, so its rent is Spheron's of 2026-03-17, another rate card and date", 1, true) then
  fail("the cost basis does not say that the H200's rent comes from another provider")
end
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
