-- tests/e2e/decision_flips.lua guards src/decide/flips.c and decide.c's binding, and the page that
-- draws them (lua/sparkreport/sections/team.lua): every flip names the option the stage found there.
-- For three teams on the recorded default run's projection (tests/fixtures/rerun/default.json.gz): the
-- run's own team, a small team with a week's deadline, a large one with 300 jobs a month (the stage run
-- again on each, tests/unit/test_decide FILE), every flip found is checked against every option's cost
-- at that point: the option it names is the cheapest there that meets the deadline (else the fastest),
-- with that option's count and cost, and that cost is below the answer's own cost there whenever the
-- answer still meets the deadline; page 1 names that option with that cost. What decides the answer:
-- when it is the deadline, the answer without it is the stage's answer for the same team given a year.
local env = ...
local json = require "json"
local sh, q, fail, read, rate = env.sh, env.q, env.fail, env.read, env.rate
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local path = env.out .. "/default.json"
local _, zrc = sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(path)))
if zrc ~= 0 then return "skip", "gzip not found" end
local base = read(path)

local function thousands(x)
  local s = ("%d"):format(math.floor(x + 0.5)):reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (s:gsub("^,", ""))
end
local function usd(x)
  if x >= 1000 then return "$" .. thousands(x) end
  if x >= 100 then return ("$%.0f"):format(x) elseif x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end

-- the stage over doc with its team replaced (nil: as recorded); the document with that decision
local function decided(tag, team)
  local doc = json.decode(base)
  if not team then return doc end
  doc.scenario.team = team
  local file = env.out .. "/" .. tag .. ".json"
  local f = assert(io.open(file, "w")); f:write(json.encode(doc)); f:close()
  -- a subshell: sh adds 2>&1, which would put the program's timing line into its output
  local out, rc = sh(("(%s/tests/unit/test_decide %s > %s.out 2>/dev/null)"):format(q(env.builddir), q(file), q(file)))
  if rc ~= 0 then fail("%s: the stage failed: %s", tag, out) end
  doc.team_decision = json.decode(read(file .. ".out"))
  return doc
end

-- "3 DGX Sparks", "one H100 SXM5 server (8 GPUs)", "rented HBM GPUs", from the catalog's names
local function option_name(doc, id, n)
  if id == "rent" then return "rented HBM GPUs" end
  if id == "spark" then return n == 1 and "one DGX Spark" or ("%d DGX Sparks"):format(n) end
  local sys = id:match("^server:(.*)$")
  local name = sys
  for _, r in ipairs(doc.catalog.rows) do if r.id == sys then name = r.name:gsub("^NVIDIA ", "") end end
  local g = 8
  for _, r in ipairs(doc.catalog.costs.rows) do if r.id == sys then g = r.server_gpus end end
  return n == 1 and ("one %s server (%d GPUs)"):format(name, g) or ("%d %s servers (%d GPUs each)"):format(n, name, g)
end

local function check_team(tag, team)
  local doc = decided(tag, team)
  local td = doc.team_decision
  if td.error then fail("%s: %s", tag, td.error) end
  local answer, binding
  for _, r in ipairs(td.results) do
    if r.series == "option" and r.answer then answer = r end
    if r.series == "binding" then binding = r end
  end
  local pdf = env.out .. "/" .. tag .. ".pdf"
  local file = env.out .. "/" .. tag .. "-drawn.json"
  local f = assert(io.open(file, "w")); f:write(json.encode(doc)); f:close()
  local out, rc = sh(("%s render %s -o %s"):format(q(env.bin), q(file), q(pdf)))
  if rc ~= 0 then fail("%s: render: %s", tag, out) end
  local page = sh(("%s -f 1 -l 3 %s -"):format(q(env.pdftotext), q(pdf))):gsub("%s*Page %d+ of %d+%s*\f[^\n]*\n", " ")
    :gsub("%s+", " ")
  local found = 0
  for _, r in ipairs(td.results) do
    if r.series == "flip" and r.found then
      local best
      for _, o in ipairs(r.options_at_flip) do
        if o.meets_deadline and (not best or o.usd_per_year < best.usd_per_year) then best = o end
      end
      if not best then
        for _, o in ipairs(r.options_at_flip) do
          if o.result_p95_h and (not best or o.result_p95_h < best.result_p95_h) then best = o end
        end
      end
      local what = ("%s: the %s flip (%s)"):format(tag, r.what, r.direction)
      if not best or best.option ~= r.to then fail("%s names %s; the cheapest option there is %s", what, r.to,
                                                   best and best.option or "none") end
      if r.to_count ~= best.count or r.to_usd_per_year ~= best.usd_per_year then
        fail("%s: %d at %s a year named, %d at %s there", what, r.to_count, r.to_usd_per_year, best.count, best.usd_per_year)
      end
      if r.answer_meets_at and not (r.to_usd_per_year < r.answer_usd_per_year_at) then
        fail("%s: %s costs %s a year there, not below the answer's %s", what, r.to, r.to_usd_per_year,
             r.answer_usd_per_year_at)
      end
      local named = ("%s (%s a year"):format(option_name(doc, r.to, r.to_count), usd(r.to_usd_per_year))
      if not page:find(named, 1, true) then fail("%s: page 1 does not name %q", what, named) end
      found = found + 1
    end
  end
  if binding.constraint == "deadline" then
    local lax = json.decode(json.encode(doc.scenario.team))
    lax.deadline_h = 8766
    local other = decided(tag .. "-lax", lax)
    if other.team_decision.info.answer.option ~= binding.without then
      fail("%s: without the deadline the answer is %s, the page says %s", tag, other.team_decision.info.answer.option,
           binding.without)
    end
  end
  local decides = "What decides it: " .. (binding.constraint == "deadline" and "the deadline" or binding.constraint)
  if not page:find(decides, 1, true) then fail("%s: page 1 does not say %q", tag, decides) end
  return ("%s: %s, %d flips, decided by %s"):format(tag, answer.option, found, binding.constraint)
end

local doc = json.decode(base)
local function team_with(over)
  local t = json.decode(json.encode(doc.scenario.team))
  for k, v in pairs(over) do t[k] = v end
  return t
end
local notes = {
  check_team("default", nil),
  check_team("small", team_with { people = 2, deadline_h = 168,
    jobs = { { workload = "llama-3.1-8b-lora", per_month = 4 }, { workload = "llama-3.1-8b", per_month = 1 } } }),
  check_team("large", team_with { people = 40,
    jobs = { { workload = "llama-3.1-8b-lora", per_month = 280 }, { workload = "llama-3.1-8b", per_month = 20 } } }),
}
local flips = 0
for _, n in ipairs(notes) do flips = flips + tonumber(n:match("(%d+) flips")) end
if flips < 3 then fail("only %d flips found over the three teams: %s", flips, table.concat(notes, "; ")) end
return "pass", table.concat(notes, "; ")
